#!/bin/bash
# Whole-tree ingest against its read floor (issue 25, point 9): the tree of
# bench/ingest/gen_tree.py (SMALL files of 4-64 KiB, MEDIUM of 1-8 MiB,
# LARGE of 256 MiB) on a loop-mounted XFS image, warm in the page cache;
# in each round, back to back: famfs-read-floor (THREADS threads doing
# only open + pread + close of every file into huge-page memory) and
# famfs-cli ingest --threads THREADS into fresh emulated devices on a
# huge=always tmpfs (mkemul and mkfs not timed). ratio = floor s / ingest
# s (wall), per round; the median is the figure. Goal: >= 0.8. Each
# round also prints both commands' CPU seconds (perf task-clock, all
# threads): where the wall time goes on a loaded machine.
# Usage (root): [SMALL=20000 MEDIUM=200 LARGE=4 THREADS=2]
#               bench/posix/floor.sh BUILD [ROUNDS]
set -eu
B=$(realpath "${1:-build}"); ROUNDS=${2:-5}
SMALL=${SMALL:-20000}; MEDIUM=${MEDIUM:-200}; LARGE=${LARGE:-4}; THREADS=${THREADS:-2}
CLI=$B/famfs-cli/famfs-cli; FLOOR=$B/bench/posix/famfs-read-floor
HERE=$(dirname "$(realpath "$0")")
W=$(mktemp -d "${TMPDIR:-/tmp}/famfs-bench-floor.XXXXXX"); LOOP=""
cleanup() {
	umount "$W/devs" 2>/dev/null || true
	umount "$W/xfs" 2>/dev/null || umount -l "$W/xfs" 2>/dev/null || true
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W/xfs" "$W/devs"
mb=$(( SMALL * 40 / 1024 + MEDIUM * 5 + LARGE * 256 ))
mount -t tmpfs -o huge=always,size=$(( mb * 2 + 1024 ))M famfs-bench-floor "$W/devs"
truncate -s $(( mb * 3 / 2 + 512 ))M "$W/xfs.img"; mkfs.xfs -q "$W/xfs.img"
LOOP=$(losetup --direct-io=on -f --show "$W/xfs.img")
mount "$LOOP" "$W/xfs"
python3 "$HERE/../ingest/gen_tree.py" "$W/xfs/src" "$SMALL" "$MEDIUM" "$LARGE"
sync -f "$W/xfs"
bytes=$(find "$W/xfs/src" -type f -printf "%s\n" | awk "{s += \$1} END {print s}")
find "$W/xfs/src" -type f -print0 | xargs -0 cat > /dev/null
# "WALL CPU" seconds of one command (CPU: perf task-clock, all threads)
secs() {
	local a b
	a=$(date +%s.%N)
	perf stat -x, -e task-clock -o "$W/stat" "$@" > "$W/out" 2>&1
	b=$(date +%s.%N)
	awk -F, -v w="$(echo "$b - $a" | bc -l)" '$3 == "task-clock" {c = $1 / 1000}
		END {print w, c}' "$W/stat"
}
ingest() {
	rm -f "$W"/devs/*
	"$CLI" mkemul --size $(( mb / 4 + 256 ))MiB "$W"/devs/dev{0,1,2,3}
	"$CLI" mkfs --log-size 64MiB "$W"/devs/dev{0,1,2,3} > /dev/null
	secs "$CLI" ingest -d "$W/devs/dev0" -d "$W/devs/dev1" -d "$W/devs/dev2" \
		-d "$W/devs/dev3" --threads "$THREADS" --manifest "$W/devs/m.db" "$W/xfs/src" /src
}
echo "# $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
echo "# $(find "$W/xfs/src" -type f | wc -l) files, $bytes bytes, $THREADS threads; ratio = floor s / ingest s"
echo "| round | floor s | ingest s | floor GB/s | ingest GB/s | ratio | floor CPU s | ingest CPU s |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
ratios=""
for r in $(seq "$ROUNDS"); do
	read -r tf cf <<<"$(secs "$FLOOR" "$THREADS" "$W/xfs/src")"
	[ "$(cut -d' ' -f2 "$W/out")" = "$bytes" ] || { echo "floor read $(cat "$W/out"), not $bytes bytes" >&2; exit 1; }
	read -r ti ci <<<"$(ingest)"
	ratio=$(echo "$tf / $ti" | bc -l)
	ratios="$ratios $ratio"
	printf '| %d | %.3f | %.3f | %.2f | %.2f | %.3f | %.3f | %.3f |\n' "$r" "$tf" "$ti" \
		"$(echo "$bytes / $tf / 1000000000" | bc -l)" \
		"$(echo "$bytes / $ti / 1000000000" | bc -l)" "$ratio" "$cf" "$ci"
done
echo "# median ratio: $(printf '%s\n' $ratios | sort -g | awk '{v[NR]=$1} END {printf "%.3f", (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')"
