#!/usr/bin/env python3
"""Generations of a dataset tree, and a reader that checks every walk of
it against exactly one generation (fuse_exchange).

    gen_walk.py make DIR GEN           write generation GEN into DIR
    gen_walk.py walk DIR STOP OUT      walk DIR until the file STOP exists;
                                       OUT: JSON counts; exit 1 on a bad walk
    gen_walk.py switch A B CLIENT_B N OUT
                                       N times renameat2(A, B, RENAME_EXCHANGE)
                                       on the master; each time wait until
                                       CLIENT_B names B's new inode; a dir fd
                                       of the old tree keeps reading it whole
    gen_walk.py watch M C STOP OUT     until STOP exists: each time the
                                       master's M names a new inode, how
                                       long until the client's C names it;
                                       OUT: JSON (p50, p99, max in ms)

A walk opens DIR by path, then everything below relative to that
directory's descriptor (os.fwalk, openat), reads every file and compares
the set of (path, SHA-256) with each generation: it must equal one of
them, never a mix, never a missing or torn file.
"""
import ctypes
import hashlib
import json
import os
import random
import sys
import time

AT_FDCWD = -100
RENAME_EXCHANGE = 2
GENS = (1, 2)


def layout(gen):
    """(relative path, size, seed) of each file of generation @gen."""
    files = []
    rnd = random.Random(1000 + gen)
    for d in ("", "shards", "shards/deep", "tok"):
        for i in range(4):
            size = rnd.choice((0, 1, 4000, 70000, 1048577, 3 << 20))
            files.append((os.path.join(d, f"f{i}.bin"), size, gen * 100 + i))
    files.append((f"only-in-gen{gen}", 1234 + gen, gen))
    return files


def content(size, seed):
    return random.Random(seed).randbytes(size)


def expected(gen):
    return {p: hashlib.sha256(content(s, seed)).hexdigest()
            for p, s, seed in layout(gen)}


def make(top, gen):
    for p, size, seed in layout(gen):
        path = os.path.join(top, p)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content(size, seed))


def walk_fd(dfd):
    """{relative path: sha256} of the tree open as @dfd."""
    seen = {}
    for root, _dirs, names, rfd in os.fwalk(".", dir_fd=dfd):
        for n in names:
            fd = os.open(n, os.O_RDONLY, dir_fd=rfd)
            try:
                h = hashlib.sha256()
                while True:
                    b = os.read(fd, 1 << 20)
                    if not b:
                        break
                    h.update(b)
            finally:
                os.close(fd)
            seen[os.path.normpath(os.path.join(root, n))] = h.hexdigest()
    return seen


def which_gen(seen, exp):
    for g in GENS:
        if seen == exp[g]:
            return g
    return 0


def describe(seen, exp):
    out = []
    for g in GENS:
        missing = sorted(set(exp[g]) - set(seen))
        extra = sorted(set(seen) - set(exp[g]))
        wrong = sorted(p for p in seen if p in exp[g] and seen[p] != exp[g][p])
        out.append(f"vs gen {g}: missing {missing[:3]}, extra {extra[:3]}, "
                   f"different {wrong[:3]}")
    return "; ".join(out)


def walk(top, stop, out):
    exp = {g: expected(g) for g in GENS}
    counts = {"walks": 0, "gen1": 0, "gen2": 0, "changes": 0}
    last = None
    while not os.path.exists(stop):
        try:
            dfd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
            try:
                seen = walk_fd(dfd)
            finally:
                os.close(dfd)
        except OSError as e:
            print(f"walk {counts['walks']}: {e}", file=sys.stderr)
            return 1
        g = which_gen(seen, exp)
        if not g:
            print(f"walk {counts['walks']}: matches no generation: "
                  f"{describe(seen, exp)}", file=sys.stderr)
            return 1
        counts["walks"] += 1
        counts[f"gen{g}"] += 1
        if last and g != last:
            counts["changes"] += 1
        last = g
    with open(out, "w") as f:
        json.dump(counts, f)
    return 0


def renameat2(a, b, flags):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), flags):
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), a)


def gen_of_fd(dfd, exp):
    return which_gen(walk_fd(dfd), exp)


def switch(a, b, client_b, n, out):
    exp = {g: expected(g) for g in GENS}
    lat = []
    for i in range(n):
        old = os.open(client_b, os.O_RDONLY | os.O_DIRECTORY)
        before = gen_of_fd(old, exp)
        if not before:
            print(f"switch {i}: the client's tree is no generation",
                  file=sys.stderr)
            return 1
        renameat2(a, b, RENAME_EXCHANGE)
        t0 = time.monotonic()
        want = os.stat(b).st_ino
        while os.stat(client_b).st_ino != want:
            if time.monotonic() - t0 > 30:
                print(f"switch {i}: the client never saw it", file=sys.stderr)
                return 1
            time.sleep(0.0005)
        lat.append(time.monotonic() - t0)
        # the descriptor opened before the switch still reads the old tree
        after = gen_of_fd(old, exp)
        os.close(old)
        if after != before:
            print(f"switch {i}: an open directory of gen {before} now reads "
                  f"as gen {after}", file=sys.stderr)
            return 1
        time.sleep(0.15)
    lat.sort()
    res = {"switches": n, "p50_ms": 1000 * lat[len(lat) // 2],
           "p99_ms": 1000 * lat[min(len(lat) - 1, (len(lat) * 99) // 100)],
           "max_ms": 1000 * lat[-1]}
    with open(out, "w") as f:
        json.dump(res, f)
    return 0


def percentiles(lat, n):
    lat.sort()
    return {"switches": n, "p50_ms": 1000 * lat[len(lat) // 2],
            "p99_ms": 1000 * lat[min(len(lat) - 1, (len(lat) * 99) // 100)],
            "max_ms": 1000 * lat[-1]} if lat else {"switches": 0}


def ino(path):
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def watch(m, c, stop, out):
    """Switches made by someone else (apply): seen on the master at t0,
    on the client when its path names the same inode."""
    lat = []
    last = ino(m)
    while not os.path.exists(stop):
        now = ino(m)
        if now is None or now == last:
            time.sleep(0.0005)
            continue
        t0 = time.monotonic()
        while ino(c) != now and time.monotonic() - t0 < 30:
            time.sleep(0.0005)
        if ino(c) != now:
            print(f"the client never named inode {now}", file=sys.stderr)
            return 1
        lat.append(time.monotonic() - t0)
        last = now
    with open(out, "w") as f:
        json.dump(percentiles(lat, len(lat)), f)
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "make":
        make(argv[2], int(argv[3]))
        return 0
    if len(argv) == 5 and argv[1] == "walk":
        return walk(argv[2], argv[3], argv[4])
    if len(argv) == 6 and argv[1] == "watch":
        return watch(argv[2], argv[3], argv[4], argv[5])
    if len(argv) == 7 and argv[1] == "switch":
        return switch(argv[2], argv[3], argv[4], int(argv[5]), argv[6])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
