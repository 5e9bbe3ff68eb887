#!/bin/sh
# Real tools on the famfs master mount, checked on a client mount (issue
# 25, point 8): `tar x` (without and with -P: links that point outside
# the tree are placeholders first without it) and `cp -a` of a generated tree (symlinks, empty
# directories, names with spaces, UTF-8 and 255 bytes), `rsync -a` twice
# (the second transfers nothing), `git clone` of a local repository and
# `git status`, `python3 -m venv`. Each result is compared on the client
# with `diff -r` and an lstat of every entry (type, mode, owner, mtime,
# link target) against the same work on tmpfs, and the rsync copy against
# the source itself.
# Usage: tools.sh FUSED CLI (as root)
FUSED=$1 CLI=$2
HERE=$(dirname "$0")
. "$HERE/../fuse/lib.sh"

SRC=$T/src REF=$T/ref
/usr/bin/python3 - "$SRC" <<'PY' || die "generate the tree"
import os, sys
root = sys.argv[1]
long = "L" * 251 + ".txt"                       # a 255-byte name
names = ["plain.txt", "with space.txt", "ünïcødé ✓.txt", long]
for d in ["a", "a/b c", "ü dir/deep/er"]:
    os.makedirs(f"{root}/{d}")
    for i, n in enumerate(names):
        with open(f"{root}/{d}/{n}", "wb") as f:
            f.write(os.urandom(100 + 4000 * i))
os.makedirs(f"{root}/empty/also empty")
os.symlink("a/plain.txt", f"{root}/link to file")
os.symlink("ü dir/deep", f"{root}/link-to-dir")
os.symlink("../../outside/the/tree", f"{root}/a/dangling")
os.symlink("/etc/hostname", f"{root}/absolute")
os.chmod(f"{root}/a/plain.txt", 0o600)
os.chown(f"{root}/a/with space.txt", 1000, 1000)
# Every entry gets its own mtime in the past, children before their
# directory. rsync 3.5 retouches a directory's mtime at the end of the
# transfer only when it differs from the source's in whole seconds: with
# a tree made in the same second as the copy, the tmpfs reference kept
# the time its last child was created (tmpfs bumps a directory's mtime on
# every create), not the source's, and the test failed whenever the
# generation and the copy fell in the same second.
t = 1600000000123456789
for dp, dns, fns in os.walk(root, topdown=False):
    for n in fns + dns:
        os.utime(os.path.join(dp, n), ns=(t, t), follow_symlinks=False)
        t += 1000000007
os.utime(f"{root}/a/b c", ns=(1500000000123456789, 1500000000123456789))
os.utime(root, ns=(t, t))
PY
tar cf "$T/tree.tar" -C "$SRC" .
git init -q "$T/repo" && git -C "$T/repo" -c user.email=t@e -c user.name=t \
	commit -q --allow-empty -m init && cp -a "$SRC/a" "$T/repo/a" &&
	git -C "$T/repo" add -A && git -C "$T/repo" -c user.email=t@e -c user.name=t \
	commit -q -m tree || die "make the git repository"

# work DIR: every tool's result under DIR
work() {
	# without -P GNU tar makes a link that points outside (absolute, or
	# with "..") as an empty placeholder file first and swaps in the link
	# at the end only if the placeholder's st_dev and st_ino are
	# unchanged: the placeholder is committed at its close and must keep
	# its inode number (docs/fuse.md). With -P it makes the links at once.
	mkdir "$1/tar" && tar xf "$T/tree.tar" -C "$1/tar" || return 1
	mkdir "$1/tarP" && tar xPf "$T/tree.tar" -C "$1/tarP" || return 1
	cp -a "$SRC" "$1/cp" || return 1
	rsync -a "$SRC/" "$1/rsync/" || return 1
	n=$(rsync -a -i "$SRC/" "$1/rsync/" | wc -l)
	[ "$n" = 0 ] || { echo "second rsync -a changed $n entries" >&2; return 1; }
	git clone -q "$T/repo" "$1/clone" || return 1
	[ -z "$(git -C "$1/clone" status --porcelain)" ] ||
		{ echo "git status after clone is not clean" >&2; return 1; }
	/usr/bin/python3 -m venv --without-pip "$1/venv" || return 1
	"$1/venv/bin/python" -c 'import sys; assert sys.prefix != sys.base_prefix' || return 1
}
mkdir "$REF"
work "$REF" || die "the tools on tmpfs"

make_fs 1 512MiB
mount_master_and_client
work "$M" 2>"$T/master.err" || die "the tools on the master mount: $(cat "$T/master.err")"
ok "tar x (and tar xP), cp -a, rsync -a (twice, the second a no-op), git clone + status, python3 -m venv on the master"
n=0
until [ -e "$C/venv/bin/python" ]; do
	n=$((n + 1)); [ "$n" -lt 1500 ] || die "the client never saw the work"; sleep 0.01
done
sleep 0.5   # the rest of the log, beyond the last entry waited for
# the client against the master: everything; against tmpfs: the copies
# (a clone's index and logs, a venv's paths differ from one run to another)
for d in tar tarP cp rsync clone venv; do
	diff -r --no-dereference "$M/$d" "$C/$d" >"$T/diff.out" 2>&1 ||
		die "diff -r $d, master and client: $(head -5 "$T/diff.out")"
done
for d in tar tarP cp rsync; do
	diff -r --no-dereference "$REF/$d" "$C/$d" >"$T/diff.out" 2>&1 ||
		die "diff -r $d, tmpfs and client: $(head -5 "$T/diff.out")"
done
/usr/bin/python3 - "$REF" "$M" "$C" "$SRC" <<'PY' || die "lstat compare"
import os, stat, sys
ref, master, client, src = sys.argv[1:5]

def same(a_root, b_root, tops, dir_mtimes):
    n = 0
    for top in tops:
        for dp, dns, fns in os.walk(os.path.join(a_root, top)):
            for name in dns + fns + ["."]:
                r = os.path.normpath(os.path.join(dp, name))
                g = os.path.join(b_root, os.path.relpath(r, a_root))
                a, b = os.lstat(r), os.lstat(g)
                key = lambda s: (stat.S_IFMT(s.st_mode), oct(stat.S_IMODE(s.st_mode)),
                                 s.st_uid, s.st_gid)
                assert key(a) == key(b), (g, key(a), key(b))
                if stat.S_ISLNK(a.st_mode):
                    assert os.readlink(r) == os.readlink(g), (g, os.readlink(g))
                if dir_mtimes or not stat.S_ISDIR(a.st_mode):
                    assert a.st_mtime_ns == b.st_mtime_ns, (g, a.st_mtime_ns, b.st_mtime_ns)
                n += 1
    return n

# tar x without -P: every link is a link, inside or outside the tree
for top in ("tar", "tarP"):
    for name, target in (("absolute", "/etc/hostname"),
                         ("a/dangling", "../../outside/the/tree"),
                         ("link to file", "a/plain.txt"),
                         ("link-to-dir", "ü dir/deep")):
        for root in (ref, master, client):
            p = os.path.join(root, top, name)
            assert os.path.islink(p) and os.readlink(p) == target, \
                (p, oct(os.lstat(p).st_mode))
n = same(master, client, ("tar", "tarP", "cp", "rsync", "clone", "venv"), True)
# tar, cp -a and rsync -a set every mtime they copy, directories' last
m = same(ref, client, ("tar", "tarP", "cp", "rsync"), True)
m += same(ref, master, ("tar", "tarP"), True)
# and rsync -a's copy as the source has it (rsync -a "SRC/" copies the root too)
s = same(src, os.path.join(client, "rsync"), (".",), True)
print("ok: lstat of %d entries (master/client), %d (tmpfs/client, and"
      " tmpfs/master for tar) and %d "
      "(source/client rsync) agree: type, mode, owner, mtime, link target"
      % (n, m, s))
PY
ok "the client sees what the master made, and the copies as tmpfs has them: diff -r and lstat of every entry"
