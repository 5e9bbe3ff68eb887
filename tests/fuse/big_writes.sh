#!/bin/sh
# fuse_master_big_writes: files written into the master mount arrive in
# 1 MiB WRITE requests; a file written past several reservation steps
# grows by appending extents (its map lists them: nothing was moved) and
# reads back byte-identical on a client mount; a file whose growth runs
# out of space gets ENOSPC with its size unchanged, is not in the log
# while it is open, commits only what was written at close, and gives
# every reserved byte back when it is removed; writes acknowledged before
# their bytes are stored still read back in order (overlapping rewrites,
# read right after write, fsync, commit); famfs-fused stores into
# emulated devices without faulting their pages into its own mapping.
# usage: big_writes.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 96MiB
M=$T/master C=$T/client
mount_fs master "$M" --debug
MPID=$LAST_PID
mount_fs client "$C" --client
CPID=$LAST_PID

# 1. 40 MiB in 4 MiB write() calls: the kernel splits them at max_write
"$UTIL" write 21 41943041 "$T/src" seq
dd if="$T/src" of="$M/grown" bs=4M 2>"$T/dd.err" || die "dd: $(cat "$T/dd.err")"
# libfuse -d: "unique: N, opcode: WRITE (16), nodeid: .., insize: BYTES"
big=$(grep "opcode: WRITE" "$T/master.log" |
      sed -n 's/.*insize: \([0-9]*\).*/\1/p' | sort -n | tail -1)
[ "${big:-0}" -gt 1048576 ] || die "largest WRITE request was ${big:-none} bytes"
ok "WRITE requests of 1 MiB (largest request $big bytes with header)"

"$UTIL" waitfor "$C/grown" exists 30 || die "grown never reached the client"
cmp "$T/src" "$C/grown" || die "client read-back of grown differs"
map=$("$UTIL" xattr "$C/grown" user.famfs.map) || die "user.famfs.map"
echo "$map" | grep -q '"type":"extents"' || die "grown is not an extent list: $map"
n=$(echo "$map" | grep -o '"offset"' | wc -l)
[ "$n" -ge 3 ] || die "grown has $n extents: not grown in steps? $map"
ok "40 MiB file grown in $n reservation steps, byte-identical on the client"
# emulated devices take writes by pwrite(): famfs-fused must not map (and
# so fault in) the pages it writes; populating them cost 13 % of its CPU
rss=$(awk '/^RssShmem:/ {print $2}' "/proc/$MPID/status")
[ "${rss:-0}" -lt $((16 << 10)) ] ||
	die "famfs-fused maps ${rss} KiB of device memory after a 40 MiB write"
ok "famfs-fused mapped ${rss} KiB of device memory for a 40 MiB write"

# 1b. writes are acknowledged before their bytes are stored: a read right
# after each write, overlapping rewrites, fsync and the commit must all
# see the last bytes written (each waits for running stores)
python3 - "$M/rewrite" "$T/rewrite.want" <<'PY' || die "rewrite: read-back after acknowledged writes differs"
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
want = bytearray()
for i in range(96):
    off, n = (i % 5) * (384 << 10), (1 << 20) - (i % 3) * 4096
    data = bytes([i + 1]) * n
    if os.pwrite(fd, data, off) != n:
        sys.exit("short write %d" % i)
    if off + n > len(want):
        want.extend(bytes(off + n - len(want)))
    want[off:off + n] = data
    if os.pread(fd, n, off) != data:
        sys.exit("write %d: read right after it differs" % i)
os.fsync(fd)
if os.pread(fd, len(want) + 1, 0) != bytes(want):
    sys.exit("whole file differs after fsync")
os.close(fd)
open(sys.argv[2], "wb").write(want)
PY
"$UTIL" waitfor "$C/rewrite" exists 30 || die "rewrite never reached the client"
cmp "$T/rewrite.want" "$C/rewrite" || die "client read-back of rewrite differs"
ok "96 overlapping rewrites: each read right after its write, fsync and the client see the last bytes"

# 2. growth beyond the free space
entries=$("$CLI" log -o json $DEVS | grep -c '"seq"')
free0=$(df -B1 --output=avail "$M" | tail -1)
# the writer keeps the file open until told (a fifo), so that the log and
# the client can be looked at in between (a fork of the writer would close
# its handle: a FLUSH, which commits)
mkfifo "$T/go"
python3 - "$M/full" "$T/full.out" "$T/go" <<'PY' &
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
chunk = os.urandom(1 << 20)
written, msg = 0, ""
try:
    while written <= 1 << 30:
        written += os.write(fd, chunk)
    msg = "no ENOSPC after 1 GiB"
except OSError as e:
    if e.errno != errno.ENOSPC:
        msg = "error %s" % e
if not msg and os.fstat(fd).st_size != written:
    msg = "size %d after ENOSPC, wrote %d" % (os.fstat(fd).st_size, written)
with open(sys.argv[2], "w") as f:
    f.write(msg or "%d" % written)
open(sys.argv[3]).read()
os.close(fd)
PY
WPID=$!
n=0
until [ -s "$T/full.out" ]; do
	n=$((n + 1))
	[ $n -lt 6000 ] || die "the ENOSPC writer never finished"
	sleep 0.01
done
# shellcheck disable=SC2086
now=$("$CLI" log -o json $DEVS | grep -c '"seq"')
[ -e "$C/full" ] && { echo >"$T/go"; die "the client sees a file still open"; }
echo >"$T/go"
wait "$WPID" || die "ENOSPC writer exited with $?"
[ "$now" = "$entries" ] || die "the log changed while the file was open"
written=$(cat "$T/full.out")
case $written in *[!0-9]*) die "ENOSPC writer: $written" ;; esac
[ "$written" -gt $((64 << 20)) ] || die "ENOSPC after only $written bytes"
ok "ENOSPC after $written bytes, size unchanged, nothing in the log while open"
"$UTIL" waitfor "$C/full" exists 30 || die "full never reached the client"
[ "$(stat -c %s "$C/full")" = "$written" ] || die "client size $(stat -c %s "$C/full")"
cmp "$M/full" "$C/full" || die "client read-back of full differs"
# a client's cached inode keeps a deleted file's space: let go first
umount_fs "$C" "$CPID"
rm "$M/full" || die "rm full"
n=0
until [ "$(df -B1 --output=avail "$M" | tail -1)" = "$free0" ]; do
	n=$((n + 1))
	[ $n -lt 500 ] || die "space not back: $(df -B1 --output=avail "$M" | tail -1) vs $free0"
	sleep 0.01
done
ok "what was written committed at close; all space back after rm"

umount_fs "$M" "$MPID"
# shellcheck disable=SC2086
"$CLI" fsck -q $DEVS || die "fsck"
ok "fsck clean"
