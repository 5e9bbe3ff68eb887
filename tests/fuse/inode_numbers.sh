#!/bin/sh
# fuse_inode_numbers: on the master mount a file keeps the inode number it
# had when it was created (a provisional one) after the close that commits
# it, for the whole mount: fstat before the close, lstat after it, a
# lookup after the kernel forgot the inode (drop_caches), readdir's d_ino,
# after a rename and after an O_TRUNC rewrite all agree. GNU tar's
# placeholder for a link pointing outside the tree is replaced by the link.
# Numbers stay unique; a file made before the mount keeps the log's number
# through an O_TRUNC rewrite. A client numbers files by the log (1 + seq).
# usage: inode_numbers.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 1 128MiB
# one file committed before the mount: it has the log's number
printf 'old bytes' >"$T/old.src"
dev_args=""
for d in $DEVS; do dev_args="$dev_args -d $d"; done
# shellcheck disable=SC2086
"$CLI" create $dev_args --from "$T/old.src" /old >/dev/null || die "famfs-cli create"
mount_master_and_client

/usr/bin/python3 - "$M" "$C" <<'PY' || die "inode numbers on the master"
import os, sys, time
m, c = sys.argv[1:3]

def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("2\n")   # dentries and inodes: the kernel forgets them

def d_ino(d, name):
    return [e.inode() for e in os.scandir(d) if e.name == name][0]

# 1. a file with bytes (committed at its close) and an empty one (at its
# release): fstat before the close = lstat after it = readdir's d_ino
for name, data in (("full", b"x" * 5000), ("empty", b"")):
    p = os.path.join(m, name)
    fd = os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    os.write(fd, data)
    before = os.fstat(fd).st_ino
    os.close(fd)
    deadline = time.time() + 30
    while not os.path.exists(os.path.join(c, name)):   # committed
        assert time.time() < deadline, name + " never committed"
        time.sleep(0.01)
    assert os.lstat(p).st_ino == before, (name, before, os.lstat(p).st_ino)
    assert d_ino(m, name) == before, (name, "d_ino", d_ino(m, name))
    drop_caches()
    assert os.lstat(p).st_ino == before, (name, "after drop_caches")
    assert d_ino(m, name) == before, (name, "d_ino after drop_caches")
print("ok: fstat before close, lstat and d_ino after it and after drop_caches agree")

# 2. tar's placeholder: O_CREAT|O_EXCL mode 0, fstat, close; later lstat
# must match before it is swapped for the link
p = os.path.join(m, "placeholder")
fd = os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0)
st = os.fstat(fd)
os.close(fd)
drop_caches()
st2 = os.lstat(p)
assert (st.st_dev, st.st_ino) == (st2.st_dev, st2.st_ino), (st.st_ino, st2.st_ino)
os.unlink(p)
os.symlink("/outside/the/tree", p)
assert os.readlink(p) == "/outside/the/tree"
print("ok: a placeholder keeps st_dev and st_ino until it is replaced by a link")

# 3. rename and O_TRUNC rewrite keep the number; fstat of the rewriting
# descriptor shows it too
full = os.path.join(m, "full")
ino = os.lstat(full).st_ino
os.rename(full, os.path.join(m, "moved"))
moved = os.path.join(m, "moved")
assert os.lstat(moved).st_ino == ino, "rename"
fd = os.open(moved, os.O_WRONLY | os.O_TRUNC)
assert os.fstat(fd).st_ino == ino, ("O_TRUNC fstat", os.fstat(fd).st_ino, ino)
os.write(fd, b"new bytes")
os.close(fd)
assert os.lstat(moved).st_ino == ino, "after the O_TRUNC rewrite"
drop_caches()
assert os.lstat(moved).st_ino == ino, "after the O_TRUNC rewrite, drop_caches"
with open(moved, "rb") as f:
    assert f.read() == b"new bytes"
print("ok: rename and an O_TRUNC rewrite keep the inode number")

# 4. a file from before the mount keeps the log's number through O_TRUNC
old = os.path.join(m, "old")
ino = os.lstat(old).st_ino
assert ino == os.lstat(os.path.join(c, "old")).st_ino, "old file, client"
with open(old, "wb") as f:
    f.write(b"rewritten")
assert os.lstat(old).st_ino == ino, "old file after O_TRUNC"
drop_caches()
assert os.lstat(old).st_ino == ino, "old file after O_TRUNC, drop_caches"
print("ok: a file from before the mount keeps its number through O_TRUNC")

# 5. unique: many files, some removed and made again, no number twice;
# a removed file's name made again gets a new number
d = os.path.join(m, "many")
os.mkdir(d)
for i in range(60):
    with open(os.path.join(d, "f%d" % i), "wb") as f:
        f.write(b"y" * (i % 3))
gone = os.lstat(os.path.join(d, "f7")).st_ino
os.unlink(os.path.join(d, "f7"))
with open(os.path.join(d, "f7"), "wb") as f:
    f.write(b"again")
assert os.lstat(os.path.join(d, "f7")).st_ino != gone, "a new file got a deleted one's number"
drop_caches()
inos = [os.lstat(os.path.join(d, n)).st_ino for n in os.listdir(d)]
inos += [os.lstat(os.path.join(m, n)).st_ino for n in os.listdir(m)]
assert len(inos) == len(set(inos)), "an inode number twice"
print("ok: %d inode numbers, all different" % len(inos))
PY
ok "inode numbers on the master are stable across the commit and unique"

# the client: the log's numbers, the same tree
"$UTIL" waitfor "$C/many/f59" exists 30 || die "the client never saw many/"
sleep 0.3
(cd "$M" && find . -printf '%p %s %M\n' | sort) >"$T/lm"
(cd "$C" && find . -printf '%p %s %M\n' | sort) >"$T/lc"
diff "$T/lm" "$T/lc" >"$T/diff" || die "client differs: $(cat "$T/diff")"
ok "the client shows the same tree"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
