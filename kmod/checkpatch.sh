#!/bin/sh
# Run checkpatch.pl --no-tree -f on each file; exit 77 (skip) without one.
# Usage: checkpatch.sh CHECKPATCH FILE...
cp=$1
shift
if [ -z "$cp" ] || [ ! -f "$cp" ] || case "$cp" in *NOTFOUND) true;; *) false;; esac; then
	echo "checkpatch.pl not found; set -DFAMFS_CHECKPATCH=/path/to/checkpatch.pl"
	exit 77
fi
rc=0
for f in "$@"; do
	case "$f" in */Kbuild) continue ;; esac
	# the compat header exists to test the kernel version
	ign=
	case "$f" in */famfs_compat.h) ign="--ignore LINUX_VERSION_CODE" ;; esac
	perl "$cp" --no-tree --quiet $ign -f "$f" || rc=1
done
exit $rc
