#!/usr/bin/env python3
"""Generate the ingest test tree: many small files, some medium, a few
large; odd names (spaces, UTF-8, 255-byte components, deep paths); empty
files; a sparse file; symlinks (one pointing outside); a hard link; a fifo.
Modes, owners and mtimes vary so that preserving them is checked."""
import os, random, sys

root = sys.argv[1]
scale = int(sys.argv[2]) if len(sys.argv) > 2 else 1
nlarge = int(os.environ.get("LARGE_FILES", "2"))
rnd = random.Random(42)
def write(path, size, mode=0o644, uid=0, gid=0, mtime=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(rnd.randbytes(size))
    os.chmod(path, mode)
    os.chown(path, uid, gid)
    t = mtime if mtime is not None else 1600000000 + rnd.randrange(10**8) + rnd.random()
    os.utime(path, (t, t))

for i in range(300 * scale):
    write(f"{root}/small/d{i % 17}/f{i:05d}.bin", rnd.randrange(1, 64 * 1024),
          mode=rnd.choice([0o644, 0o600, 0o640, 0o755]), uid=rnd.choice([0, 1000, 4242]),
          gid=rnd.choice([0, 100, 4242]))
for i in range(12):
    write(f"{root}/medium/m{i}.bin", rnd.randrange(1 << 20, 8 << 20))
for i in range(nlarge):
    write(f"{root}/large/l{i}.bin", (40 << 20) + rnd.randrange(1 << 20))
write(f"{root}/odd/with space and ünïcødé ✓.txt", 1234)
write(f"{root}/odd/" + "n" * 255, 77)
deep = root + "/deep/" + "/".join(f"level{k}" for k in range(40))
write(deep + "/leaf.txt", 999)
write(f"{root}/empty/zero-a", 0)
write(f"{root}/empty/zero-b", 0, mode=0o400)
os.makedirs(f"{root}/empty/dir", exist_ok=True)
with open(f"{root}/sparse.img", "wb") as f:
    f.seek(5 << 20); f.write(b"end-of-sparse"); f.truncate(9 << 20)
os.symlink("small/d0/f00000.bin", f"{root}/link-inside")
os.symlink("/etc/passwd", f"{root}/link-outside")
os.link(f"{root}/medium/m0.bin", f"{root}/medium/m0-hardlink.bin")
os.mkfifo(f"{root}/a-fifo")
os.chmod(f"{root}/small", 0o750)
os.chown(f"{root}/small", 1000, 1000)
