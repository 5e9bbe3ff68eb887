#!/bin/sh
# fuse_statfs_space: statfs on a master mount gives the raw free space
# (f_bfree) and the largest file the allocator places now with the
# default interleave (f_bavail, df's "Avail"), and the allocator agrees:
# two 256 MiB devices with the default log on device 0 have 444 MiB free
# but one striped file of at most 380 MiB (device 0 has 190 MiB after the
# log, each strip needs its share in one run). A file of that size is
# created, one unit more is refused with a message that adds up (by
# famfs-cli create, and through the mount: ENOSPC, the message in
# famfs-fused's log).
# usage: statfs_space.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

DEVS="$T/dev0 $T/dev1"
# shellcheck disable=SC2086
"$CLI" mkemul --size 256MiB $DEVS >/dev/null || die "mkemul"
# shellcheck disable=SC2086
"$CLI" mkfs $DEVS >/dev/null || die "mkfs"
DARGS="-d $T/dev0 -d $T/dev1"

M=$T/master
mount_fs master "$M"
MPID=$LAST_PID
# shellcheck disable=SC2046
set -- $(stat -f -c '%S %f %a' "$M")
free=$(($1 * $2)) avail=$(($1 * $3))
[ "$free" = 465567744 ] || die "f_bfree says $free bytes, not 465567744"
[ "$avail" = 398458880 ] || die "f_bavail says $avail bytes, not 398458880"
ok "statfs: $free bytes free, the largest file $avail bytes"
# through the mount: the writer gets ENOSPC, famfs-fused's log the reason
if truncate -s $((avail + 2097152)) "$M/over" 2>"$T/trunc.err"; then
	die "a file one unit over the largest was sized through the mount"
fi
grep -q "No space left on device" "$T/trunc.err" || die "truncate: $(cat "$T/trunc.err")"
grep -q "a write was refused (ENOSPC): no space: a file of 400556032 bytes takes 2 strips of 201326592 bytes, each in one run; room on each device (free, largest run): dev0 199229440, 199229440; dev1 266338304, 266338304" "$T/master.log" ||
	die "famfs-fused did not log the reason: $(cat "$T/master.log")"
rm -f "$M/over"
ok "one unit over through the mount: ENOSPC, the reason in famfs-fused's log"
umount_fs "$M" "$MPID"

# shellcheck disable=SC2086
if "$CLI" create $DARGS -s $((avail + 2097152)) /over 2>"$T/over.err"; then
	die "a file one unit over the largest was created"
fi
grep -q "a file of 400556032 bytes takes 2 strips of 201326592 bytes" "$T/over.err" ||
	die "no size and strips in: $(cat "$T/over.err")"
grep -q "dev0 199229440, 199229440; dev1 266338304, 266338304" "$T/over.err" ||
	die "no room per device in: $(cat "$T/over.err")"
if grep -q "bytes free" "$T/over.err"; then
	die "'N needed, N free' in: $(cat "$T/over.err")"
fi
ok "one unit over is refused: $(cat "$T/over.err")"
# shellcheck disable=SC2086
"$CLI" create $DARGS -s "$avail" /at || die "a file of the largest size failed"
ok "a file of $avail bytes is placed"
