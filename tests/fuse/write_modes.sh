#!/bin/sh
# fuse_write_modes: on the master, a write-only open bypasses the page
# cache (direct_io: the writer's pages go straight into the WRITE request),
# so does a read-write open on Linux 6.6+ (else it keeps page-cache mode),
# and mmap(MAP_SHARED) of it works, coherent with read() and write();
# a reader on the master that cached a page sees a direct write at once;
# what a write-only writer closed is in the log, byte-identical on a client
# and survives a SIGKILL of famfs-fused right after the close.
# usage: write_modes.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 64MiB
M=$T/master C=$T/client
mount_fs master "$M" --debug
MPID=$LAST_PID

# 1. 2 MiB from a page-aligned buffer at file offset 100. direct_io splits
# the writer's pages at max_write: two requests of exactly 1 MiB. The page
# cache (kernel 6.x) sends the rest of the first page on its own (3996
# bytes), then page-aligned pieces. libfuse -d prints "insize" with the
# 80 bytes of headers (fuse_in_header + fuse_write_in).
write_at_100() {
	python3 - "$M/$1" "$2" <<'PY' || die "writer $1: $?"
import mmap, os, sys
buf = mmap.mmap(-1, 2 << 20)          # page-aligned
buf.write(os.urandom(2 << 20))
fd = os.open(sys.argv[1], getattr(os, sys.argv[2]) | os.O_CREAT, 0o644)
if os.pwrite(fd, buf, 100) != 2 << 20:
    sys.exit("short write")
if sys.argv[2] == "O_RDWR":
    # ENODEV under direct_io unless the kernel allows mmap of it
    m = mmap.mmap(fd, 4096, mmap.MAP_SHARED)
    m[0:4] = b"mmap"
    if os.pread(fd, 4, 0) != b"mmap":
        sys.exit("a read does not see the mapping's store")
    os.pwrite(fd, b"wxyz", 4)
    if m[4:8] != b"wxyz":
        sys.exit("the mapping does not see a write: %r" % m[4:8])
    m.close()
os.close(fd)
PY
}
write_sizes() {
	grep "opcode: WRITE" "$T/master.log" | sed -n 's/.*insize: \([0-9]*\).*/\1/p' |
		tail -n +$(($1 + 1)) | tr '\n' ' '
}
write_at_100 wo O_WRONLY
wo=$(write_sizes 0)
[ "$wo" = "1048656 1048656 " ] || die "write-only open: WRITE sizes $wo, not 2 x 1 MiB direct"
# A read-write open is direct_io too where the kernel keeps a mapping of
# it coherent (FUSE_DIRECT_IO_ALLOW_MMAP, Linux 6.6+; famfs-fused asks for
# it through libfuse's custom I/O, fused/dio_mmap.c), else page cache.
rw_direct=$(uname -r | awk -F. '{ print ($1 > 6 || ($1 == 6 && $2 >= 6)) }')
if grep -q 'read-write opens are direct_io' "$T/master.log"; then
	[ "$rw_direct" = 1 ] || die "read-write opens direct_io on $(uname -r)"
elif [ "$rw_direct" = 1 ]; then
	die "Linux $(uname -r) allows mmap of direct_io files, read-write opens are not direct_io"
fi
write_at_100 rw O_RDWR
rw=$(write_sizes 2)
if [ "$rw_direct" = 1 ]; then
	case "$rw" in "1048656 1048656 "*) ;; *) die "read-write open: WRITE sizes $rw, not 2 x 1 MiB direct" ;; esac
	mode="direct"
else
	case " $rw" in *" 4076 "*) ;; *) die "read-write open: WRITE sizes $rw, not page cache" ;; esac
	mode="page cache"
fi
[ "$(head -c 8 "$M/rw")" = "mmapwxyz" ] || die "the read-write mapping's store is lost"
ok "write-only open: direct WRITE requests; read-write open: $mode, mmap works and is coherent"

# 2. a reader with the page cached sees a direct write from another handle
python3 - "$M/coh" <<'PY' || die "coherence: $?"
import os, sys
p = sys.argv[1]
rw = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
os.write(rw, b"A" * 8192)
r = os.open(p, os.O_RDONLY)
assert os.pread(r, 4, 0) == b"AAAA"       # now in the page cache
w = os.open(p, os.O_WRONLY)
os.pwrite(w, b"BBBB", 0)
got = os.pread(r, 4, 0)
if got != b"BBBB":
    sys.exit("cached reader read %r after a direct write" % got)
for fd in (w, rw, r):
    os.close(fd)
PY
ok "a cached reader sees a direct write at once"

# 3. closed means committed: SIGKILL right after the close loses nothing
"$UTIL" write 21 9437185 "$T/src" seq
dd if="$T/src" of="$M/big" bs=2M 2>"$T/dd.err" || die "dd: $(cat "$T/dd.err")"
kill -KILL "$MPID"
wait "$MPID" 2>/dev/null || true
PIDS=$(echo "$PIDS" | sed "s/ $MPID\b//")
fusermount3 -u "$M" 2>/dev/null || fusermount3 -uz "$M" || die "unmount the dead master"
mount_fs client "$C" --client
CPID=$LAST_PID
cmp "$T/src" "$C/big" || die "big differs on the client after SIGKILL of the master"
ok "a file closed before SIGKILL of the master is whole on a client"
umount_fs "$C" "$CPID"
# shellcheck disable=SC2086
"$CLI" fsck -q $DEVS || die "fsck"
ok "fsck clean"
