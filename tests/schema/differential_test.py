#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Differential test: random mutants of the valid corpus, judged by
python3-jsonschema (against schemas/cluster.schema.json) and by
`famfs-cli validate --schema-only` (exactly the schema's rules: no
references, no duplicate keys). Any disagreement fails the test and is
printed with the mutant. The seed is fixed, so a failure is reproducible;
pass another seed as the 5th argument to explore.
"""
import copy
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile

import jsonschema
import yaml

KEYS = """apiVersion kind metadata hosts devices regions sets filesystems mounts
datasets defaults name endpoint role tokenFile emul cxl path size serial region
dax memdevs ways granularity host chunk strips set master logSize filesystem
options source destination interleave verify mountOptions bogus Name""".split()

VALUES = [
    0, 1, -1, 2, 3, 4, 5, 16, 64, 65, 256, 1000, 4096, 2097152, 3145728,
    4194304, 16777216, 2**63 - 1, 2**63, 2**64, 1.5, 4.0, 2097152.0, -0.0,
    True, False, None, "", "x", "a b", "nöde", "node0", "node1", "emul0",
    "set0", "fs0", "-x", "x" * 63, "n" * 64, "2MiB", "3M", "1g", "1G", "1Gb",
    "4096", "4096B", "0", "08", "16MiB", "64 MiB", "/abs", "rel", "/",
    "https://h:1", "https://", "http://h", "unix:/s", "unix:s", "master",
    "client", "region3", "region", "dax0.0", "dax0", "famfs.io/v1alpha1",
    "Cluster", "yes", "2026-01-01", "x\n", "2MiB\n",
    [], ["emul0"], ["emul0", "emul0"], [1], ["emul0", "emul1"], {},
    {"name": "x"}, {"path": "/p", "size": "16MiB"}, {"serial": 5},
    {"dax": "dax1.0"}, {"region": "region0", "dax": "dax0.0"},
    {"name": "h", "endpoint": "/s", "role": "master"},
]


# Plain scalars written as text, to test that both sides resolve them alike
# (YAML 1.1 as PyYAML reads it: yes/on booleans, 0x/0o/underscore ints,
# sexagesimal numbers, dates, .inf, ~).
PLAIN = """yes No on OFF true False ~ null NULL 0x10 0o17 017 08 1_000 +5 -0 1:30
1:30.5 190:20:30 1e3 1.0e+3 1. .5 -.5 .inf -.Inf .nan 2026-01-01
2026-1-2 10:00:00 0b101 0b 0x 4.0 2097152.0 2_097_152 3_145_728 16777216
'2MiB' "16MiB" 16MiB 2M 0 00 =  node0 emul0 /abs rel"""
PLAIN = PLAIN.split()
VALUE_AT = re.compile(r"(?<=: )[^,}\]\n#]+")


def mutate_text(text, rng):
    """Replace one scalar value in the text with a plain token."""
    spots = list(VALUE_AT.finditer(text))
    if not spots:
        return text
    m = rng.choice(spots)
    return text[:m.start()] + rng.choice(PLAIN) + text[m.end():]


def paths(obj, prefix=()):
    """Every (container, key) position in obj."""
    out = []
    if isinstance(obj, dict):
        for k in list(obj):
            out.append((obj, k))
            out += paths(obj[k])
    elif isinstance(obj, list):
        for i in range(len(obj)):
            out.append((obj, i))
            out += paths(obj[i])
    return out


def containers(obj):
    out = [obj] if isinstance(obj, (dict, list)) else []
    if isinstance(obj, dict):
        for v in obj.values():
            out += containers(v)
    elif isinstance(obj, list):
        for v in obj:
            out += containers(v)
    return out


def mutate(doc, rng):
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        spots = paths(doc)
        if op < 0.45 and spots:  # replace a value
            c, k = rng.choice(spots)
            c[k] = copy.deepcopy(rng.choice(VALUES))
        elif op < 0.6 and spots:  # delete a key or item
            c, k = rng.choice(spots)
            del c[k]
        else:  # add a key or an item
            c = rng.choice(containers(doc))
            v = copy.deepcopy(rng.choice(VALUES))
            if isinstance(c, dict):
                c[rng.choice(KEYS)] = v
            elif rng.random() < 0.5 and c:
                c.append(copy.deepcopy(rng.choice(c)))
            else:
                c.append(v)
    return doc


def main():
    cli, schema_path, corpus, count = sys.argv[1:5]
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 20261203
    rng = random.Random(seed)
    with open(schema_path) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    bases, texts = [], []
    for p in sorted(glob.glob(os.path.join(corpus, "valid", "*.yaml"))):
        with open(p) as f:
            texts.append(f.read())
        bases.append(yaml.safe_load(texts[-1]))
    tmp = tempfile.mkdtemp(prefix="famfs-diff-")
    files, verdicts = [], {}
    for i in range(int(count)):
        path = os.path.join(tmp, "m%04d.yaml" % i)
        with open(path, "w") as f:
            if i % 3 == 2:  # one in three: a text-level mutant
                f.write(mutate_text(rng.choice(texts), rng))
            else:
                yaml.safe_dump(mutate(rng.choice(bases), rng), f,
                               sort_keys=False, allow_unicode=True)
        try:
            with open(path) as f:
                data = yaml.safe_load(f)
            verdicts[path] = validator.is_valid(data)
        except Exception:  # a YAML error or recursion: a rejection
            verdicts[path] = False
        files.append(path)
    p = subprocess.run([cli, "validate", "--schema-only"] + files,
                       capture_output=True, text=True, timeout=600)
    cli_verdict = {}
    for line in (p.stdout + p.stderr).splitlines():
        m = re.match(r"^(.*\.yaml): (valid|invalid) \(", line)
        if m:
            cli_verdict[m.group(1)] = m.group(2) == "valid"
    bad = 0
    for path in files:
        if path not in cli_verdict:
            print("FAIL no verdict from famfs-cli for %s" % path)
            bad += 1
        elif cli_verdict[path] != verdicts[path]:
            bad += 1
            if bad <= 5:
                print("FAIL %s: schema %s, famfs-cli %s" % (
                    path, "accepts" if verdicts[path] else "rejects",
                    "accepts" if cli_verdict[path] else "rejects"))
                with open(path) as f:
                    print("     " + f.read().replace("\n", "\n     "))
                errs = [l for l in p.stderr.splitlines()
                        if l.startswith(path + ":")]
                print("     famfs-cli: " + "\n     ".join(errs))
    nvalid = sum(verdicts.values())
    print("%d mutants (seed %d): %d valid, %d invalid by the schema; "
          "%d disagreements" % (len(files), seed, nvalid,
                                len(files) - nvalid, bad))
    if not bad:
        subprocess.run(["rm", "-rf", tmp])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
