#!/bin/bash
# The small-file tree through the famfs master mount against the same work
# through a minimal stock-FUSE server forwarding to tmpfs (issue 25, point
# 9): libfuse's own example passthrough_ll.c, compiled here from the copy
# libfuse3-dev installs (never kept in this repository), serving a
# directory in /dev/shm with its default options. famfs-fused serves one
# emulated device in /dev/shm. In each round, on both mounts, each pair
# back to back (which mount goes first alternates): `tar x` of the tree,
# `cp -a` of it (from /dev/shm), and CREATES empty files made with
# open(O_CREAT) + close, in 10 batches of CREATES/10 in a directory each,
# the mounts taking turns (creates/s). ratio = passthrough s / famfs s
# per round (> 1: famfs faster); the median of the rounds is the figure.
# Goal >= 0.9.
# Usage (root): [FILES=3000 CREATES=2000] bench/posix/small_tree.sh BUILD [ROUNDS]
set -eu
ulimit -n "$(ulimit -Hn)"   # passthrough_ll: a descriptor per inode
B=$(realpath "${1:-build}"); ROUNDS=${2:-5}
FILES=${FILES:-3000}; CREATES=${CREATES:-2000}
CLI=$B/famfs-cli/famfs-cli; FUSED=$B/fused/famfs-fused
EX=/usr/share/doc/libfuse3-dev/examples
T=$(mktemp -d /dev/shm/famfs-bench-smalltree.XXXXXX); PIDS=""
cleanup() {
	set +e  # a server that exited with its unmount is no error
	for m in "$T/famfs" "$T/pt"; do mountpoint -q "$m" && fusermount3 -u "$m"; done
	for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
[ -f "$EX/passthrough_ll.c" ] || { echo "no $EX/passthrough_ll.c: install libfuse3-dev" >&2; exit 1; }
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -O2 -w -o "$T/passthrough_ll" "$EX/passthrough_ll.c" $(pkg-config fuse3 --cflags --libs)

# the tree: FILES files of 1-16 KiB in 2 levels of directories, empty
# directories, names with spaces and UTF-8
python3 - "$T/src" "$FILES" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(25)
for i in range(n):
    d = f"{root}/dir {i % 20:02d}/sub é{i % 7}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/file ✓ {i:05d}.txt", "wb") as f:
        f.write(os.urandom(rnd.randrange(1024, 16384)))
for i in range(20):
    os.makedirs(f"{root}/empty {i}", exist_ok=True)
PY
tar cf "$T/tree.tar" -C "$T/src" .
"$CLI" mkemul --size 4GiB "$T/dev0" >/dev/null
"$CLI" mkfs --log-size 128MiB "$T/dev0" >/dev/null
mkdir -p "$T/famfs" "$T/pt" "$T/ptback"
"$FUSED" "$T/dev0" "$T/famfs" >"$T/famfs.log" 2>&1 & PIDS="$PIDS $!"
"$T/passthrough_ll" -f -o source="$T/ptback" "$T/pt" >"$T/pt.log" 2>&1 & PIDS="$PIDS $!"
for m in famfs pt; do
	for _ in $(seq 500); do mountpoint -q "$T/$m" && break; sleep 0.02; done
	mountpoint -q "$T/$m" || { echo "$m did not mount: $(cat "$T/$m.log")" >&2; exit 1; }
done

secs() { local a b; a=$(date +%s.%N); "$@" || exit 1; b=$(date +%s.%N); echo "$b - $a" | bc -l; }
# creates DIR N: seconds for N open(O_CREAT) + close in DIR (the loop
# alone, not the interpreter's start)
creates() {
	/usr/bin/python3 -c 'import os, sys, time
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
t = time.monotonic()
for i in range(n):
    os.close(os.open(f"{d}/c{i:06d}", os.O_CREAT | os.O_WRONLY, 0o644))
print(time.monotonic() - t)' "$1" "$2"
}
# pair FIRST SECOND CMD...: CMD MOUNT run on FIRST then SECOND, printed as
# "famfs_s pt_s": each pair runs back to back, so both see the same load
pair() {
	local first=$1 second=$2 x y; shift 2
	x=$("$@" "$first") && y=$("$@" "$second") || exit 1
	if [ "$first" = famfs ]; then echo "$x $y"; else echo "$y $x"; fi
}
tar_x() { mkdir "$T/$2/tar$1" && secs tar xf "$T/tree.tar" -C "$T/$2/tar$1"; }
cp_a() { secs cp -a "$T/src" "$T/$2/cp$1"; }
# work ROUND FIRST SECOND: the three timings, each pair back to back, as
# "tar_famfs tar_pt cp_famfs cp_pt cr_famfs cr_pt". The creates run in 10
# batches, the mounts taking turns: a load spike of a fraction of a
# second hits one batch of one mount, not one mount's whole count.
work() {
	local r=$1 a=$2 b=$3 c fam pt i
	echo "$(pair "$a" "$b" tar_x "$r") $(pair "$b" "$a" cp_a "$r")" \
	     "$(fam=0; pt=0; for i in $(seq 10); do
		c=$(pair "$a" "$b" creates_q "$r" "$i"); set -- $c
		fam=$(echo "$fam + $1" | bc -l); pt=$(echo "$pt + $2" | bc -l); done
		echo "$fam $pt")"
}
# creates_q ROUND BATCH MOUNT: a tenth of CREATES in MOUNT's round dir
creates_q() { creates "$T/$3/cr$1/b$2" $((CREATES / 10)); }
median() { sort -g | awk '{v[NR]=$1} END {printf "%.3f", (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
echo "# $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
echo "# $FILES files ($(du -sb --apparent-size "$T/src" | cut -f1) bytes), $CREATES creates; ratio = passthrough_ll s / famfs s"
echo "| round | tar x famfs / pt s | ratio | cp -a famfs / pt s | ratio | creates/s famfs / pt | ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
rt=""; rc=""; rn=""
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then w=$(work "$r" famfs pt); else w=$(work "$r" pt famfs); fi
	# shellcheck disable=SC2086 # six numbers
	set -- $w
	set -- "$1" "$3" "$5" "$2" "$4" "$6"  # famfs tar cp cr, pt tar cp cr
	a=$(echo "$4 / $1" | bc -l); b=$(echo "$5 / $2" | bc -l); c=$(echo "$6 / $3" | bc -l)
	rt="$rt $a"; rc="$rc $b"; rn="$rn $c"
	# the copies must be whole on both; then the round's trees go
	# (untimed): passthrough_ll holds a descriptor for every inode the
	# kernel knows, and 5 rounds' worth passes a 20,000 open-file limit
	diff -r "$T/src" "$T/famfs/cp$r" >/dev/null && diff -r "$T/src" "$T/pt/cp$r" >/dev/null ||
		{ echo "a copy differs from the source" >&2; exit 1; }
	rm -rf "$T/famfs/tar$r" "$T/famfs/cp$r" "$T/famfs/cr$r" "$T/pt/tar$r" "$T/pt/cp$r" "$T/pt/cr$r"
	printf '| %d | %.3f / %.3f | %.2f | %.3f / %.3f | %.2f | %.0f / %.0f | %.2f |\n' "$r" \
		"$1" "$4" "$a" "$2" "$5" "$b" "$(echo "$CREATES / $3" | bc -l)" \
		"$(echo "$CREATES / $6" | bc -l)" "$c"
done
echo "# median ratios: tar x $(printf '%s\n' $rt | median), cp -a $(printf '%s\n' $rc | median), creates $(printf '%s\n' $rn | median)"
