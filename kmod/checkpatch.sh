#!/bin/sh
# Run the kernel's checkpatch.pl --no-tree -f on each file.
# Usage: checkpatch.sh DIR FILE...
# checkpatch.pl and the two files it reads beside it (spelling.txt,
# const_structs.checkpatch) come from Debian's linux-source-6.1
# (/usr/src/linux-source-6.1.tar.xz): taken out of the tarball into
# DIR/scripts/ once, reused after. FAMFS_CHECKPATCH=/path/to/checkpatch.pl
# picks another copy. Exit 77 (skip) when there is neither.
set -u
dir=$1
shift
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
cp=${FAMFS_CHECKPATCH:-}
if [ -z "$cp" ]; then
	cp=$dir/scripts/checkpatch.pl
	if [ ! -f "$cp" ]; then
		if [ ! -f "$SRC_TAR" ]; then
			echo "checkpatch.pl: $SRC_TAR not found; install Debian's linux-source-6.1 (apt-get install linux-source-6.1)"
			exit 77
		fi
		mkdir -p "$dir/scripts" || exit 1
		tar -xJf "$SRC_TAR" -C "$dir/scripts" --strip-components=2 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch || {
			echo "checkpatch.pl: cannot extract it from $SRC_TAR"
			rm -f "$dir/scripts/checkpatch.pl"
			exit 1
		}
	fi
elif [ ! -f "$cp" ]; then
	echo "checkpatch.pl: FAMFS_CHECKPATCH=$cp does not exist"
	exit 1
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
