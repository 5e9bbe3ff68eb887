#!/bin/sh
# fuse_client_hold_blocks_reuse: a file a client holds open (read + mmap)
# keeps its space after the master deletes it: on a full filesystem the
# master's next allocation fails with ENOSPC instead of reusing it, the
# client still reads the old bytes, and once the client closes the file
# the master can allocate the space again.
# usage: hold.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 64MiB
mount_master_and_client

"$UTIL" write 14 4194304 "$M/held" trunc || die "write held"
"$UTIL" waitfor "$C/held" exists 30 || die "held never reached the client"
# fill the filesystem with 2 MiB files until it is full
i=0
while "$UTIL" write $((100 + i)) 2097152 "$M/fill$i" trunc 2>"$T/fill.err"; do
	i=$((i + 1))
	[ $i -lt 200 ] || die "the filesystem never filled up"
done
grep -q "No space left" "$T/fill.err" || die "fill stopped: $(cat "$T/fill.err")"
rm -f "$M/fill$i"
ok "filled with $i files of 2 MiB: $(cat "$T/fill.err")"

"$UTIL" hold 14 4194304 "$C/held" "$T/ready" "$T/go" &
HPID=$!
PIDS="$PIDS $HPID"
"$UTIL" waitfor "$T/ready" exists 30 || die "holder did not start"
rm "$M/held" || die "rm held"
"$UTIL" waitfor "$C/held" gone 30 || die "the delete did not reach the client"
if "$UTIL" write 15 4194304 "$M/new" trunc 2>"$T/new.err"; then
	die "the master reused the space of a file a client holds open"
fi
grep -q "No space left" "$T/new.err" || die "new: $(cat "$T/new.err")"
rm -f "$M/new"
ok "while the client holds it, the master gets ENOSPC, not its space"

touch "$T/go"
wait "$HPID" || die "the held file's bytes changed under the client"
ok "the client still read the deleted file's bytes"
n=0
until "$UTIL" write 15 4194304 "$M/new" trunc 2>"$T/new.err"; do
	rm -f "$M/new"
	n=$((n + 1))
	[ $n -lt 300 ] || die "space never came back after the release: $(cat "$T/new.err")"
	sleep 0.01
done
"$UTIL" waitfor "$C/new" exists 30 || die "new never reached the client"
"$UTIL" verify 15 4194304 "$C/new" || die "new differs on the client"
ok "after the client's release the master reuses the space"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
"$CLI" fsck -q $DEVS || die "fsck"
