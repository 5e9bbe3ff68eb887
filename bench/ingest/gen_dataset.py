#!/usr/bin/env python3
"""A tree of FILES files laid out like an image-classification dataset
(ImageNet's ILSVRC2012 layout): train/<class>/<class>_<n>.JPEG in 100
class directories of uneven size, val/<class>/ILSVRC2012_val_<n>.JPEG
(a tenth of the files), and the label files at the top. Image sizes
follow a log-normal law around ILSVRC2012's mean (138 GB over 1.28 M
images: ~108 KB; median here 93 KiB, 2-8192 KiB), so a few per cent of
them are past the 256 KiB that io_uring reads whole and take the plain
path. Contents are incompressible, as JPEG is. Fixed seed: the same
tree every time.
Usage: gen_dataset.py ROOT [FILES]"""
import math, os, random, sys

root = sys.argv[1]
total = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
rnd = random.Random(34)
blob = os.urandom(16 << 20)


def write(path, n):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        while n > 0:
            k = min(n, len(blob))
            o = rnd.randrange(len(blob) - k + 1)
            f.write(blob[o:o + k])
            n -= k


def image_size():
    s = rnd.lognormvariate(math.log(93 << 10), 0.6)
    return int(min(max(s, 2 << 10), 8 << 20))


classes = sorted({f"n{rnd.randrange(10**8):08d}" for _ in range(100)})
labels = 3
nval = total // 10
ntrain = total - nval - labels
# classes of uneven size, as ILSVRC2012's 732-1300 images a class
weight = [rnd.uniform(0.56, 1.0) for _ in classes]
per = [int(ntrain * w / sum(weight)) for w in weight]
per[-1] += ntrain - sum(per)
lines = []
for c, n in zip(classes, per):
    for i in range(n):
        name = f"{c}_{rnd.randrange(1, 60000)}_{i}.JPEG"
        write(f"{root}/train/{c}/{name}", image_size())
        lines.append(f"train/{c}/{name},{c}")
for i in range(nval):
    c = classes[i % len(classes)]
    name = f"ILSVRC2012_val_{i + 1:08d}.JPEG"
    write(f"{root}/val/{c}/{name}", image_size())
    lines.append(f"val/{c}/{name},{c}")
with open(f"{root}/LOC_synset_mapping.txt", "w") as f:
    f.writelines(f"{c} class {c}\n" for c in classes)
with open(f"{root}/LOC_train_solution.csv", "w") as f:
    f.writelines(f"{s}\n" for s in lines if s.startswith("train/"))
with open(f"{root}/LOC_val_solution.csv", "w") as f:
    f.writelines(f"{s}\n" for s in lines if s.startswith("val/"))
