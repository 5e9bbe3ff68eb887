#!/bin/sh
# fuse_unmount_clean: SIGTERM and `fusermount3 -u` both unmount cleanly
# (exit status 0, no mount left, a file still open by the master is
# committed), and the filesystem checks clean afterwards.
# usage: unmount.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 64MiB
mount_master_and_client
"$UTIL" write 1 1000000 "$M/f" seq || die "write"
"$UTIL" waitfor "$C/f" exists 30 || die "f never reached the client"

kill -TERM "$CPID"
wait "$CPID" || die "client exited with $? on SIGTERM"
! mountpoint -q "$C" || die "SIGTERM left the client mounted"
ok "client: SIGTERM unmounted, exit 0"

# a writer that still has its file open when the master is stopped
"$UTIL" writeopen 2 12345 "$M/open" "$T/ready" &
WPID=$!
PIDS="$PIDS $WPID"
"$UTIL" waitfor "$T/ready" exists 30 || die "writer did not start"
kill -TERM "$MPID"
wait "$MPID" || die "master exited with $? on SIGTERM"
! mountpoint -q "$M" || die "SIGTERM left the master mounted"
grep -q "still open" "$T/master.log" || die "open file not reported"
ok "master: SIGTERM unmounted, exit 0: $(grep "still open" "$T/master.log")"
"$CLI" ls -d "$T/dev0" -d "$T/dev1" / | grep -q open ||
	die "the open file was not committed"
kill "$WPID"
wait "$WPID" 2>/dev/null || true

PIDS=""
mount_fs master2 "$M"
MPID=$LAST_PID
mount_fs client2 "$C" --client
CPID=$LAST_PID
"$UTIL" verify 1 1000000 "$C/f" || die "f after remount"
"$UTIL" verify 2 12345 "$C/open" || die "the file open at SIGTERM differs"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
ok "fusermount3 -u unmounted both, exit 0"
"$CLI" fsck -q $DEVS || die "fsck"
ok "fsck clean"
