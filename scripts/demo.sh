#!/bin/sh
# make demo: the main job on the embedded default (emulated devices).
# Usage: scripts/demo.sh BUILD_DIR
set -eu
BUILD=${1:-build}
CLI="$BUILD/famfs-cli/famfs-cli"
WORK=$(mktemp -d "${TMPDIR:-/dev/shm}/famfs-demo.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT INT TERM

step() { printf '\n== %s\n' "$*"; }

step "four emulated devices of 256 MiB (files in $WORK, mapped shared)"
D="$WORK/dev0 $WORK/dev1 $WORK/dev2 $WORK/dev3"
# shellcheck disable=SC2086
"$CLI" mkemul --size 256MiB $D
DEVS=""
for d in $D; do DEVS="$DEVS -d $d"; done

step "mkfs over all four"
# shellcheck disable=SC2086
"$CLI" mkfs --log-size 16MiB $D

step "a plain file, a directory and a file interleaved over 4 strips"
head -c 100000 /dev/urandom > "$WORK/small.src"
head -c 48000000 /dev/urandom > "$WORK/big.src"
# shellcheck disable=SC2086
"$CLI" create $DEVS --from "$WORK/small.src" --strips 1 /small.bin
# shellcheck disable=SC2086
"$CLI" mkdir $DEVS /models
# shellcheck disable=SC2086
"$CLI" create $DEVS --from "$WORK/big.src" --strips 4 --chunk 2MiB /models/weights.bin
# shellcheck disable=SC2086
"$CLI" ls $DEVS -R

step "fsck"
# shellcheck disable=SC2086
"$CLI" fsck $D

step "the interleaved file's map"
# shellcheck disable=SC2086
"$CLI" getmap $DEVS /models/weights.bin
# shellcheck disable=SC2086
"$CLI" getmap $DEVS -o json /models/weights.bin > "$WORK/map.json"

step "the bytes at the computed device offsets are the file's bytes"
python3 - "$WORK/map.json" "$WORK/big.src" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["map"]
src = open(sys.argv[2], "rb").read()
n, c, strips = len(m["strips"]), m["chunk"], m["strips"]
for o in range(0, len(src), c):
    k = o // c
    s = strips[k % n]
    with open(s["device"], "rb") as f:
        f.seek(s["offset"] + (k // n) * c)
        want = src[o:o + c]
        if f.read(len(want)) != want:
            sys.exit("mismatch at file offset %d" % o)
print("all %d chunks match, over %d devices" % ((len(src) + c - 1) // c,
      len({s["device"] for s in strips})))
PY
# shellcheck disable=SC2086
"$CLI" cat $DEVS /models/weights.bin | cmp - "$WORK/big.src"
echo "famfs-cli cat reads the same bytes"
step "demo done"
