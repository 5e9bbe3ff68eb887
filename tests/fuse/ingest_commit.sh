#!/bin/sh
# fuse_ingest_explicit_commit: a file marked user.famfs.pending commits only
# on user.famfs.commit (bytes written straight into device memory after a
# fallocate are kept and reach the client); one closed without it is
# discarded: no log entry, no name, its space back. user.famfs.policy
# gives a pending file its interleave.
# usage: ingest_commit.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 64MiB
mount_master_and_client
free0=$(df -B1 --output=avail "$M" | tail -1)

"$UTIL" ingest 21 5000000 "$M/kept" commit || die "ingest with commit"
"$UTIL" waitfor "$C/kept" exists 30 || die "committed file never reached the client"
"$UTIL" verify 21 5000000 "$C/kept" || die "device-written bytes differ on the client"
[ "$(stat -c %a "$C/kept")" = 640 ] || die "mode $(stat -c %a "$C/kept")"
ok "explicit commit: visible on the client with the bytes written to the devices"

entries=$("$CLI" log -o json $DEVS | grep -c '"seq"')
"$UTIL" ingest 22 3000000 "$M/dropped" discard || die "ingest without commit"
# the release that discards it is asynchronous: wait for it
"$UTIL" waitfor "$M/dropped" gone 30 || die "a file closed without commit is still there"
[ "$("$CLI" log -o json $DEVS | grep -c '"seq"')" = "$entries" ] ||
	die "a discarded file reached the log"
grep -q "dropped released without user.famfs.commit: discarded" "$T/master.log" ||
	die "discard not reported"
ok "closed without commit: discarded, nothing in the log"

# user.famfs.policy: one file's interleave, set before its space is
# reserved (a dataset's interleave through the master mount)
map=$("$UTIL" policy 9000000 "$M/striped" "chunk=4194304 strips=2") || die "policy: $map"
echo "$map" | grep -q '"chunk":4194304' || die "chunk not honoured: $map"
echo "$map" | grep -q '"nstrips":2' || die "strips not honoured: $map"
map=$("$UTIL" policy 9000000 "$M/striped2" "strips=1") || die "policy: $map"
echo "$map" | grep -q '"extents"' || die "one strip is not one extent: $map"
rm "$M/striped" "$M/striped2"
ok "user.famfs.policy sets a pending file's interleave; bad values EINVAL, late EBUSY"

"$UTIL" write 23 1000 "$M/plain" seq || die "plain write"
rm "$M/kept" "$M/plain"
n=0
until [ "$(df -B1 --output=avail "$M" | tail -1)" = "$free0" ]; do
	n=$((n + 1))
	[ $n -lt 500 ] || die "space not back: $(df -B1 --output=avail "$M" | tail -1) vs $free0"
	rm -f "$M/x"; touch "$M/x"; rm -f "$M/x"  # an unlink runs the master's reclaim
	sleep 0.01
done
ok "all space back after the deletes"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
"$CLI" fsck -q $DEVS || die "fsck"
