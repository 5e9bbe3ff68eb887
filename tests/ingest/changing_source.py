#!/usr/bin/env python3
"""The source tree of changing_source.sh and the processes that change it.

Every file is made of blocks (4 KiB; 64 KiB in the large files, still
four to a 256 KiB copy piece); block i of file f in generation g is "GEN f
g i" padded with a fill byte that depends on g and i, so any copy can be
checked against the states its source had:

  static    never changes (generation 0)
  rewrite   rewritten in place with one pwrite of generation g+1 (small
            ones go through io_uring, large ones through the large path)
  trunc     opened O_TRUNC, then one write of generation g+1 with a length
            that depends on g (empty between the two calls)
  append    one block appended; block i has generation i
  hot       one block at a time rewritten with a higher generation, by a
            process that never pauses: no copy of it can be consistent,
            so it is refused after its tries (any mix of whole blocks is
            accepted if a copy ever gets through)

  make SRC                    create the tree
  write SRC SEED              change files until SIGTERM; then print counts
  touch SRC                   change every changing file once (deterministic)
  disrupt SRC PID FIFO        let PID start (FIFO); once it has a source file open (the copy has
                              has a source file open (the copy has begun,
                              large files first), delete one small file and
                              rename one directory
  check SRC FAMFS_CLI DEVS... DEST REFUSED_FILE [exact]
                              every file in famfs holds a state its source
                              had (exact: the source's current bytes); every
                              file missing from famfs is in REFUSED_FILE
"""
import os, random, signal, subprocess, sys, time

SMALL_BLOCK, LARGE_BLOCK = 4096, 65536
KINDS = (["static"] * 20 + ["rewrite"] * 24 + ["rewrite-large"] * 5 +
         ["trunc"] * 16 + ["trunc-large"] * 2 + ["append"] * 16 +
         ["append-large"] * 2 + ["hot-large"])
HOT_BLOCKS = 128        # 8 MiB


def block_size(fid):
    return LARGE_BLOCK if KINDS[fid].endswith("large") else SMALL_BLOCK


def block(fid, gen, i):
    head = b"GEN %06d %08d %08d\n" % (fid, gen, i)
    return head + bytes([97 + (gen + i) % 26]) * (block_size(fid) - len(head))


def content(fid, gen, nblocks):
    return b"".join(block(fid, gen, i) for i in range(nblocks))


def rewrite_blocks(kind, fid):
    return 320 if kind == "rewrite-large" else 2 + fid % 60   # 20 MiB


def trunc_blocks(kind, fid, gen):
    if kind == "trunc-large":
        return 33 + (fid * 31 + gen * 97) % 32      # 2-4 MiB
    return 1 + (fid * 7 + gen) % 12


def rel_of(fid, kind):
    if kind == "static" and fid % 10 == 0:
        return "moving/s%03d.bin" % fid     # the directory renamed
    if kind == "static" and fid == 1:
        return "victims/gone.bin"           # the file deleted
    return "%s/f%03d.bin" % (kind, fid)


def files():
    return [(fid, kind, rel_of(fid, kind)) for fid, kind in enumerate(KINDS)]


def make(src):
    for fid, kind, rel in files():
        p = os.path.join(src, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if kind.startswith("rewrite"):
            data = content(fid, 0, rewrite_blocks(kind, fid))
        elif kind.startswith("trunc"):
            data = content(fid, 0, trunc_blocks(kind, fid, 0))
        elif kind == "hot-large":
            data = content(fid, 0, HOT_BLOCKS)
        elif kind.startswith("append"):
            n = 40 if kind == "append-large" else 1
            data = b"".join(block(fid, i, i) for i in range(n))
        else:
            data = content(fid, 0, 1 + fid % 5)
        with open(p, "wb") as f:
            f.write(data)


def gen_of(path, fid):
    with open(path, "rb") as f:
        head = f.read(64)
    if not head:
        return -1
    return int(head.split()[2])


def change(src, fid, kind, rel, rnd=random.Random(0), gen=[0]):
    p = os.path.join(src, rel)
    if kind == "hot-large":
        gen[0] += 1
        i = rnd.randrange(HOT_BLOCKS)
        fd = os.open(p, os.O_WRONLY)
        os.pwrite(fd, block(fid, gen[0], i), i * LARGE_BLOCK)
        os.close(fd)
    elif kind.startswith("rewrite"):
        g = gen_of(p, fid) + 1
        fd = os.open(p, os.O_WRONLY)
        os.pwrite(fd, content(fid, g, rewrite_blocks(kind, fid)), 0)
        os.close(fd)
    elif kind.startswith("trunc"):
        g = max(gen_of(p, fid), 0) + 1
        fd = os.open(p, os.O_WRONLY | os.O_TRUNC)
        os.write(fd, content(fid, g, trunc_blocks(kind, fid, g)))
        os.close(fd)
    else:
        n = os.path.getsize(p) // block_size(fid)
        fd = os.open(p, os.O_WRONLY | os.O_APPEND)
        os.write(fd, block(fid, n, n))
        os.close(fd)


def changing():
    return [f for f in files() if f[1] != "static"]


def hammer(src, seed, stop):
    hot = [f for f in files() if f[1] == "hot-large"][0]
    rnd, n = random.Random(seed), 0
    while not stop:
        change(src, *hot, rnd=rnd)
        n += 1
    print("hammer: %d blocks of the hot file rewritten" % n, flush=True)


def write(src, seed):
    rnd = random.Random(seed)
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    pid = os.fork()
    if pid == 0:
        hammer(src, seed, stop)
        os._exit(0)
    todo = [f for f in changing() if f[1] != "hot-large"]
    large = [f for f in todo if f[1].endswith("large")]
    counts = {}
    while not stop:
        # half the changes go to the large files: their copies take long
        # enough for a rewrite to land in the middle of one
        f = rnd.choice(large if rnd.random() < 0.5 else todo)
        change(src, *f)
        counts[f[1]] = counts.get(f[1], 0) + 1
    print("writer: %d changes (%s)" % (sum(counts.values()), ", ".join(
        "%s %d" % kv for kv in sorted(counts.items()))), flush=True)
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)


def touch(src):
    for f in changing():
        change(src, *f)


def source_file_open(pid, src):
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                t = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if t.startswith(src + "/") and t.endswith(".bin"):
                return True
    except OSError:
        pass
    return False


def disrupt(src, pid, go):
    with open(go, "w") as f:             # the ingest may start now
        f.write("go\n")
    deadline = time.time() + 60
    while not source_file_open(pid, src):
        if time.time() > deadline:
            sys.exit("disrupt: pid %d never opened a source file" % pid)
        time.sleep(0.0005)
    os.unlink(os.path.join(src, "victims/gone.bin"))
    os.rename(os.path.join(src, "moving"), os.path.join(src, "moved"))
    print("disrupt: deleted victims/gone.bin, renamed moving/ to moved/")


def famfs_bytes(cli, devs, path):
    r = subprocess.run([cli, "cat"] + devs + [path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    return r.stdout if r.returncode == 0 else None


def valid(fid, kind, data):
    """Is @data a state the file of @kind had?"""
    if len(data) % block_size(fid):
        return False
    n = len(data) // block_size(fid)
    if kind.startswith("append"):
        return n >= 1 and data == b"".join(block(fid, i, i) for i in range(n))
    if kind == "hot-large":
        bs = block_size(fid)
        return n == HOT_BLOCKS and all(
            data[i * bs:(i + 1) * bs] == block(fid, int(data[i * bs:i * bs + 64].split()[2]), i)
            for i in range(n))
    if n == 0:
        return kind.startswith("trunc")     # between O_TRUNC and write
    g = int(data[:64].split()[2])
    if kind.startswith("rewrite"):
        want = rewrite_blocks(kind, fid)
    elif kind.startswith("trunc"):
        want = trunc_blocks(kind, fid, g)
    else:
        want = 1 + fid % 5
    return n == want and data == content(fid, g, n)


def check(src, cli, devs, dest, refused_file, exact):
    refused = open(refused_file).read()
    bad = present = missing = 0
    for fid, kind, rel in files():
        if rel.startswith("moving/"):
            if not os.path.exists(os.path.join(src, rel)):
                rel_now = "moved/" + rel.split("/", 1)[1]
            else:
                rel_now = rel
        else:
            rel_now = rel
        data = famfs_bytes(cli, devs, dest + "/" + rel)
        if data is None and rel_now != rel:
            data = famfs_bytes(cli, devs, dest + "/" + rel_now)
        if data is None:
            missing += 1
            gone = not os.path.exists(os.path.join(src, rel_now))
            if rel not in refused and not (gone and exact):
                print("FAIL: %s is neither in famfs nor reported" % rel)
                bad += 1
            continue
        present += 1
        if not valid(fid, kind, data):
            print("FAIL: %s in famfs (%d bytes) is a state its source never had"
                  % (rel, len(data)))
            bad += 1
        elif exact:
            with open(os.path.join(src, rel_now), "rb") as f:
                if f.read() != data:
                    print("FAIL: %s in famfs differs from its source" % rel_now)
                    bad += 1
    print("check: %d files in famfs hold a state their source had, %d not "
          "committed%s" % (present - bad, missing,
                           ", all equal to the source" if exact else ""))
    return 1 if bad else 0


def main():
    cmd, src = sys.argv[1], sys.argv[2]
    if cmd == "make":
        make(src)
    elif cmd == "write":
        write(src, int(sys.argv[3]))
    elif cmd == "touch":
        touch(src)
    elif cmd == "disrupt":
        disrupt(src, int(sys.argv[3]), sys.argv[4])
    elif cmd == "check":
        cli, rest = sys.argv[3], sys.argv[4:]
        exact = rest[-1] == "exact"
        if exact:
            rest = rest[:-1]
        devs, dest, refused_file = rest[:-2], rest[-2], rest[-1]
        sys.exit(check(src, cli, devs, dest, refused_file, exact))
    else:
        sys.exit("usage: see the docstring")


if __name__ == "__main__":
    main()
