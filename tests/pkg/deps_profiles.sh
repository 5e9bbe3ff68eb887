#!/bin/bash
# scripts/install-deps.sh's profiles: demo is a strict subset of check,
# package lies between them, no profile names a package twice, and every
# package named has a candidate in the configured archive (apt-cache policy).
# Usage: deps_profiles.sh SCRIPT
set -euo pipefail
SCRIPT=$1
fail=0
list() { "$SCRIPT" --print "$1" | sort; }
for p in demo package check; do
	dups=$("$SCRIPT" --print "$p" | sort | uniq -d)
	[ -z "$dups" ] || { echo "profile $p names twice: $dups"; fail=1; }
done
not_in() { comm -23 <(list "$1") <(list "$2"); }
extra=$(not_in demo check); [ -z "$extra" ] || { echo "in demo, not in check: $extra"; fail=1; }
extra=$(not_in demo package); [ -z "$extra" ] || { echo "in demo, not in package: $extra"; fail=1; }
extra=$(not_in package check); [ -z "$extra" ] || { echo "in package, not in check: $extra"; fail=1; }
[ "$(list demo | wc -l)" -lt "$(list check | wc -l)" ] || { echo "demo is not smaller than check"; fail=1; }
for p in cmocka clang qemu lintian prometheus linux-image linux-source; do
	if list demo | grep -q "$p"; then echo "demo profile names a check-only package ($p)"; fail=1; fi
done
if "$SCRIPT" --print nosuch >/dev/null 2>&1; then echo "--print nosuch succeeded"; fail=1; fi
# One apt-cache call for all of them: a name with a candidate version
# is installable from the configured archive.
found=$(apt-cache policy $(list check) 2>/dev/null |
	awk '/^[^ ].*:$/ { name = substr($0, 1, length($0) - 1) }
	     /^  Candidate:/ && $2 != "(none)" { print name }' | sort -u)
missing=$(comm -23 <(list check | uniq) <(echo "$found"))
[ -z "$missing" ] || { echo "not in the archive (apt-cache policy):" $missing; fail=1; }
[ $fail = 0 ] && echo "profiles: demo $(list demo | wc -l), package $(list package | wc -l), check $(list check | wc -l) packages, all in the archive"
exit $fail
