#!/bin/sh
# The same POSIX operations on tmpfs (Linux itself) and on famfs: a real
# famfs-fused master over emulated devices, then a client of it (read-only,
# EROFS). compare.py accepts exactly the differences docs/fuse.md lists.
# Usage: posix.sh FUSED CLI POSIX_OPS (as root: chown)
FUSED=$1 CLI=$2 OPS=$3
HERE=$(dirname "$0")
. "$HERE/../fuse/lib.sh"

REF=$T/tmpfs   # $T is in /dev/shm
mkdir -p "$REF"
[ "$(stat -f -c %T "$REF")" = tmpfs ] || die "$REF is not on tmpfs"
"$OPS" setup "$REF" || die "setup on tmpfs"
"$OPS" run "$REF" >"$T/tmpfs.out" || die "run on tmpfs"

make_fs 1 256MiB
mount_master_and_client
mkdir "$M/master-run" "$M/client-run" || die "mkdir on the master"
"$OPS" setup "$M/master-run" || die "setup on the master mount"
"$OPS" run "$M/master-run" >"$T/master.out" || die "run on the master mount"
"$OPS" setup "$M/client-run" || die "setup for the client, on the master"
n=0
until [ -e "$C/client-run/src/m" ]; do
	n=$((n + 1))
	[ "$n" -lt 1000 ] || die "the client never saw the fixtures"
	sleep 0.01
done
"$OPS" run "$C/client-run" >"$T/client.out" || die "run on the client mount"
python3 "$HERE/compare.py" "$HERE/../../docs/fuse.md" "$T/tmpfs.out" \
	"$T/master.out" "$T/client.out" ||
	{ paste "$T/tmpfs.out" "$T/master.out" "$T/client.out" | cut -f1,3,6,9 >&2; die "compare"; }
ok "famfs differs from tmpfs only as docs/fuse.md lists"
