#!/bin/bash
# summary.sh BUILD [FILES] [ROUNDS]: the time famfsd takes to summarise a
# dataset's source (ingest/source_summary.c: walk, stat, readlink, sort,
# digest), as a ratio to `find -printf` printing the same fields of the
# same tree, in alternating rounds of the same run (order swapped every
# round). The tree: FILES (default 20000) empty-data files of 4-64 KiB
# (sparse: only their metadata is read) in 100 directories, plus 100
# symlinks, under /var/tmp (page cache warm). Prints each round and the
# medians.
set -eu
BUILD=$(cd "$1" && pwd)
FILES=${2:-20000}
ROUNDS=${3:-11}
BIN=$BUILD/bench/ingest/source_summary
[ -x "$BIN" ] || { echo "no $BIN: build first" >&2; exit 1; }
TREE=$(mktemp -d /var/tmp/famfs-summary-bench.XXXXXX)
trap 'rm -rf "$TREE"' EXIT
python3 - "$TREE" "$FILES" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(1)
for i in range(n):
    d = f"{root}/d{i % 100:02d}"
    if i < 100:
        os.makedirs(d)
        os.symlink(f"../d{(i + 1) % 100:02d}", f"{d}/link")
    with open(f"{d}/f{i:06d}", "wb") as f:
        f.truncate(rnd.randrange(4 << 10, 64 << 10))
PY
now() { date +%s%N; }
find_once() { find "$TREE" -printf '%P %y %s %T@ %m %l\n' >/dev/null; }
sum_once() { "$BIN" "$TREE" >/dev/null 2>&1; }
find_once; sum_once   # warm the cache
"$BIN" "$TREE" 2>/dev/null
ratios=() tf=() ts=()
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then
		a=$(now); find_once; b=$(now); sum_once; c=$(now)
		f=$((b - a)); s=$((c - b))
	else
		a=$(now); sum_once; b=$(now); find_once; c=$(now)
		s=$((b - a)); f=$((c - b))
	fi
	ratio=$(python3 -c "print('%.3f' % ($s / $f))")
	printf 'round %2d: summary %.4f s, find -printf %.4f s, ratio %s\n' "$r" \
		"$(python3 -c "print($s / 1e9)")" "$(python3 -c "print($f / 1e9)")" "$ratio"
	ratios+=("$ratio") ts+=("$s") tf+=("$f")
done
python3 - "${ratios[*]}" "${ts[*]}" "${tf[*]}" <<'PY'
import statistics, sys
r, s, f = ([float(x) for x in a.split()] for a in sys.argv[1:4])
print("median: summary %.4f s, find -printf %.4f s, ratio %.3f (%.3f-%.3f)" % (
    statistics.median(s) / 1e9, statistics.median(f) / 1e9,
    statistics.median(r), min(r), max(r)))
PY
