#!/usr/bin/env python3
"""The benchmark dataset, as in shared/PERF-NOTES.md: SMALL files of
4-64 KiB, 200 of 1-8 MiB, 4 of 256 MiB, incompressible."""
import os, random, sys
root, small = sys.argv[1], int(sys.argv[2])
medium = int(sys.argv[3]) if len(sys.argv) > 3 else 200
large = int(sys.argv[4]) if len(sys.argv) > 4 else 4
rnd = random.Random(1)
blob = os.urandom(8 << 20)
def write(p, n):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        while n > 0:
            k = min(n, len(blob)); o = rnd.randrange(len(blob) - k + 1)
            f.write(blob[o:o + k]); n -= k
for i in range(small):
    write(f"{root}/small/{i % 100:02d}/s{i:06d}", rnd.randrange(4 << 10, 64 << 10))
for i in range(medium):
    write(f"{root}/medium/m{i:03d}", rnd.randrange(1 << 20, 8 << 20))
for i in range(large):
    write(f"{root}/large/l{i}", 256 << 20)
