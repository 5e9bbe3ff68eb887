#!/bin/sh
# fuse_corrupt_follow: a committed entry damaged before a client replayed
# it (docs/format.md "The committed tail"): the following client logs an
# error naming the seq, keeps serving every file it had, and stays up; a
# new client mount is refused, naming the lost path, unless --force.
# usage: corrupt_follow.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 1 64MiB
M=$T/master C=$T/client
mount_fs master "$M"
MPID=$LAST_PID
"$UTIL" write 1 300000 "$M/a" seq || die "write a"
# a slow poll: the entry is damaged before the client's next look at it
mount_fs client "$C" --client --poll-ms 3000
CPID=$LAST_PID
"$UTIL" waitfor "$C/a" exists 30 || die "a never reached the client"

# flip_last: XOR one byte in the middle of the last valid entry; its seq
flip_last() {
	python3 - "$T/dev0" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b")
base, off, last = 2 << 20, 4096, None
while True:
    f.seek(base + off)
    magic, crc, seq, tag, ln = struct.unpack("<IIQQI", f.read(28))
    if magic != 0x31454c46 or ln < 40:
        break
    last = (off, ln, seq)
    off += ln
off, ln, seq = last
f.seek(base + off + ln // 2)
b = f.read(1)[0]
f.seek(base + off + ln // 2)
f.write(bytes([b ^ 0x20]))
print(seq)
PY
}

# The client polls every 3 s (and replays on a lookup it cannot answer,
# so nothing here looks): a file written and damaged at once is almost
# always damaged before the client reads it; if the client was quicker
# (no error within 5 s), try the next one.
i=0 seq=""
while [ $i -lt 3 ] && [ -z "$seq" ]; do
	i=$((i + 1))
	"$UTIL" write 2 5000 "$M/b$i" seq || die "write b$i"
	s=$(flip_last) || die "flip"
	n=0
	while [ $n -lt 500 ]; do
		if grep -q "error: log: corrupt: committed seq $s\.\.$s lost" "$T/client.log"; then
			seq=$s
			break
		fi
		n=$((n + 1))
		sleep 0.01
	done
done
[ -n "$seq" ] || die "the client did not report the corruption: $(tail -3 "$T/client.log")"
ok "client logged: $(grep "error: log: corrupt" "$T/client.log" | head -1)"
kill -0 "$CPID" || die "the client died"
"$UTIL" verify 1 300000 "$C/a" || die "a is no longer served"
[ ! -e "$C/b$i" ] || die "the damaged entry's file appeared"
ok "the client keeps serving what it had"

mkdir -p "$T/c2"
if "$FUSED" --client $DEVS "$T/c2" >"$T/c2.log" 2>&1; then
	die "a new client mount of a corrupt log succeeded"
fi
grep -q "refusing to mount: the metadata log is corrupt: committed seq $seq" "$T/c2.log" ||
	die "refusal: $(cat "$T/c2.log")"
grep -q "lost: /b$i" "$T/c2.log" || die "refusal does not name /b$i: $(cat "$T/c2.log")"
ok "a new mount is refused: $(grep refusing "$T/c2.log")"
mount_fs forced "$T/c3" --client --force
"$UTIL" verify 1 300000 "$T/c3/a" || die "the forced mount lacks a"
ok "--force mounts the files before the bad entry"
umount_fs "$T/c3" "$LAST_PID"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
