#!/bin/sh
# fuse_overwrite: the commands of issue 33 give on the master what they
# give on tmpfs (an O_TRUNC open of a committed file replaces it), and a
# client shows the same bytes; ftruncate(fd, 0) then writes (the
# non-atomic path), O_TRUNC of a file still being written, O_TRUNC of a
# file open elsewhere (ETXTBSY, the bytes unchanged), a client that holds
# the old file keeps reading it.
# usage: overwrite.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 1 64MiB
mount_master_and_client
mkdir "$T/tmpfs"

# the three commands, in a directory of each
run_cmds() {
	(cd "$1" && printf AAAAAAAAAA >f && printf BB >f && cat f && echo &&
		echo hello world >g && echo bye >g && cat g &&
		head -c100 "$T/rand" >big && printf x >small && cp small big && wc -c <big) ||
		die "the commands failed in $1"
}
head -c100 /dev/urandom >"$T/rand"
want=$(run_cmds "$T/tmpfs")
got=$(run_cmds "$M")
[ "$got" = "$want" ] || die "master: '$got', tmpfs: '$want'"
for f in f g big small; do
	cmp "$T/tmpfs/$f" "$M/$f" || die "$f differs on the master"
done
ok "printf/echo/cp over longer files: as on tmpfs ($(echo "$got" | tr '\n' ' '))"
for f in f g big small; do
	n=0
	until cmp -s "$T/tmpfs/$f" "$C/$f"; do
		n=$((n + 1))
		[ $n -lt 500 ] || die "$f differs on the client"
		sleep 0.01
	done
done
ok "the client shows the same bytes"

python3 - "$M" <<'PY' || die "python checks: $?"
import errno, os, sys
m = sys.argv[1]
def content(p):
    with open(p, "rb") as f:
        return f.read()
# the non-atomic path: ftruncate(fd, 0) through the only descriptor
with open(m + "/nt", "wb") as f:
    f.write(b"x" * 5000)
fd = os.open(m + "/nt", os.O_RDWR)
os.ftruncate(fd, 0)
os.write(fd, b"y" * 9000)            # more than the old allocation held
os.close(fd)
assert content(m + "/nt") == b"y" * 9000, "ftruncate(0) + write"
# O_TRUNC of a file still being written (pending): size 0, then the rest
a = os.open(m + "/pend", os.O_WRONLY | os.O_CREAT, 0o644)
os.write(a, b"1" * 3000)
b = os.open(m + "/pend", os.O_WRONLY | os.O_TRUNC)
assert os.fstat(a).st_size == 0, "O_TRUNC of a pending file"
os.write(b, b"2" * 10)
os.close(b)
os.close(a)
assert content(m + "/pend") == b"2" * 10, content(m + "/pend")[:20]
# O_TRUNC of a committed file open elsewhere: ETXTBSY, bytes unchanged
r = os.open(m + "/nt", os.O_RDONLY)
try:
    os.open(m + "/nt", os.O_WRONLY | os.O_TRUNC)
    sys.exit("O_TRUNC of a busy file succeeded")
except OSError as e:
    assert e.errno == errno.ETXTBSY, e
os.close(r)
assert content(m + "/nt") == b"y" * 9000, "a refused O_TRUNC changed the file"
PY
ok "ftruncate(0) then writes; O_TRUNC of a pending file; ETXTBSY when open elsewhere"

# a client holding the old file keeps its bytes while the master rewrites it
"$UTIL" write 7 200000 "$T/old"
"$UTIL" write 8 300000 "$T/new"
cp "$T/old" "$M/held"
until cmp -s "$T/old" "$C/held"; do sleep 0.01; done
exec 4<"$C/held"
cp "$T/new" "$M/held"   # cp opens the committed file O_WRONLY|O_TRUNC
cmp "$T/new" "$M/held" || die "the master did not rewrite held"
n=0
until cmp -s "$T/new" "$C/held"; do
	n=$((n + 1))
	[ $n -lt 500 ] || die "the client does not show the new held"
	sleep 0.01
done
cmp "$T/old" /dev/fd/4 || die "the client's open old file lost its bytes"
exec 4<&-
ok "a client's open descriptor keeps the old bytes; new opens see the new file"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
# shellcheck disable=SC2086
"$CLI" fsck -q $DEVS || die "fsck"
ok "fsck clean"
