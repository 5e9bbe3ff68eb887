#!/bin/sh
# fuse_client_survives_torn_entry: garbage appended at the log's tail (a
# torn or corrupt append by the master) is reported by the client, which
# keeps serving every valid file; once the master appends a valid entry
# over it, the client applies it.
# usage: torn_entry.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 64MiB
mount_master_and_client
"$UTIL" write 1 300000 "$M/a" seq && "$UTIL" write 2 3000000 "$M/b" seq ||
	die "write"
"$UTIL" waitfor "$C/b" exists 30 || die "b never reached the client"

tail=$("$CLI" log -o json $DEVS | sed -n 's/.*"used_bytes": *\([0-9]*\).*/\1/p')
[ -n "$tail" ] || die "no used_bytes from famfs-cli log"
# an entry magic ("FLE1") followed by junk: looks like an append, fails CRC
{ printf 'FLE1'; head -c 92 /dev/urandom; } |
	dd of="$T/dev0" bs=1 seek=$((2097152 + tail)) conv=notrunc status=none
n=0
until grep -q "bad entry" "$T/client.log"; do
	n=$((n + 1))
	[ $n -lt 3000 ] || die "the client did not report the torn entry"
	sleep 0.01
done
ok "client reported: $(grep "bad entry" "$T/client.log" | head -1)"
kill -0 "$CPID" || die "the client died"
"$UTIL" verify 1 300000 "$C/a" && "$UTIL" verify 2 3000000 "$C/b" ||
	die "valid files no longer served"
ok "client keeps serving the valid files"

# the master's next append lands on the same offset and repairs the tail
"$UTIL" write 3 5000 "$M/c" seq || die "write c"
"$UTIL" waitfor "$C/c" exists 30 || die "c never reached the client"
"$UTIL" verify 3 5000 "$C/c" || die "c differs on the client"
ok "a valid append over the torn bytes reaches the client"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
