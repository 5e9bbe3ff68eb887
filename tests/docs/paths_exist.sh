#!/bin/bash
# Every path a contributor doc names exists: each word of the form
# TOP/... whose TOP is a top-level entry of the repository (lib/,
# famfs-cli/cmd_ls.c, docs/api.md, ...). Templates (<name>) and globs are
# skipped. Usage: paths_exist.sh REPO FILE...
set -euo pipefail
REPO=$1
shift
# the tracked top-level entries (build trees are not part of the layout)
tops=$(git -C "$REPO" ls-files 2>/dev/null | cut -d/ -f1 | sort -u | paste -sd'|')
[ -n "$tops" ] || tops=$(cd "$REPO" && ls | grep -v '^build' | paste -sd'|')
fail=0 n=0
for doc in "$@"; do
	[ -f "$REPO/$doc" ] || { echo "$doc: no such file"; fail=1; continue; }
	while read -r p; do
		case "$p" in *'<'*|*'*'*) continue ;; esac
		n=$((n + 1))
		[ -e "$REPO/$p" ] || { echo "$doc names $p, which does not exist"; fail=1; }
	done < <(grep -oE "(^|[^A-Za-z0-9_./-])($tops)/[A-Za-z0-9_.<>*/-]*" "$REPO/$doc" |
		 sed -E 's/^[^A-Za-z0-9_.]//; s/[.]$//' | sort -u)
done
[ "$n" -gt 0 ] || { echo "no path found in $*"; exit 1; }
[ $fail = 0 ] && echo "$n paths named, all exist"
exit $fail
