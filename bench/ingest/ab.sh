#!/bin/bash
# Paired A/B of two famfs-cli builds in the same run: FILES small files
# (4-64 KiB, gen_tree.py), or with TREE=dataset a tree of FILES files laid
# out like an image dataset (gen_dataset.py: class directories, ~110 KB
# images), on a loop-mounted XFS image, warm in the page cache, ingested by A and by B back to back in every round (B first on
# even rounds, so neither always runs first), each into fresh emulated
# devices on a huge=always tmpfs. Only the ingest is measured: wall
# seconds and CPU seconds (perf stat task-clock, all threads), compared on
# CPU, which other work on a shared machine moves less than wall time
# (measured on a 2-core machine at load 19: wall A/B 0.59-2.79 over 7
# rounds). Prints each round, then the median CPU A/B: under 1 A is
# cheaper. (Instructions retired would be steadier still; the VM this
# was written on has no PMU.)
# Usage (root): [TREE=dataset] bench/ingest/ab.sh CLI_A CLI_B [FILES] [ROUNDS]
set -eu
A=$(realpath "$1"); B=$(realpath "$2"); N=${3:-20000}; ROUNDS=${4:-7}
HERE=$(dirname "$(realpath "$0")")
W=$(mktemp -d "${TMPDIR:-/tmp}/famfs-bench-ab.XXXXXX"); LOOP=""
cleanup() {
	umount "$W/devs" 2>/dev/null || true
	umount "$W/xfs" 2>/dev/null || umount -l "$W/xfs" 2>/dev/null || true
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
mkdir -p "$W/xfs" "$W/devs"
if [ "${TREE:-small}" = dataset ]; then
	IMG=$(( N * 3 / 20 + 512 )); DEV=$(( (N * 3 / 80 / 1024 + 1) * 1024 ))MiB
else
	IMG=$(( N / 10 + 512 )); DEV=512MiB
fi
mount -t tmpfs -o huge=always,size=$(( ${DEV%MiB} * 4 + 512 ))M famfs-bench-ab "$W/devs"
truncate -s ${IMG}M "$W/xfs.img"; mkfs.xfs -q "$W/xfs.img"
LOOP=$(losetup --direct-io=on -f --show "$W/xfs.img")
mount "$LOOP" "$W/xfs"
if [ "${TREE:-small}" = dataset ]; then
	python3 "$HERE/gen_dataset.py" "$W/xfs/src" "$N"
else
	python3 "$HERE/gen_tree.py" "$W/xfs/src" "$N" 0 0
fi
sync -f "$W/xfs"
find "$W/xfs/src" -type f -print0 | xargs -0 cat > /dev/null
# "WALL CPU" seconds of one command
secs() {
	local a b
	a=$(date +%s.%N)
	perf stat -x, -e task-clock -o "$W/stat" "$@" > /dev/null 2>&1
	b=$(date +%s.%N)
	awk -F, -v w="$(echo "$b - $a" | bc -l)" '$3 == "task-clock" {c = $1 / 1000}
		END {print w, c}' "$W/stat"
}
ingest() { # CLI: fresh devices, mkfs, then the timed ingest
	rm -f "$W"/devs/*
	"$1" mkemul --size "$DEV" "$W"/devs/dev{0,1,2,3}
	"$1" mkfs --log-size 64MiB "$W"/devs/dev{0,1,2,3} > /dev/null
	secs "$1" ingest -d "$W/devs/dev0" -d "$W/devs/dev1" -d "$W/devs/dev2" \
		-d "$W/devs/dev3" --manifest "$W/devs/m.db" "$W/xfs/src" /src
}
echo "# $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
echo "# $(find "$W/xfs/src" -type f | wc -l) files; A = $A; B = $B"
echo "| round | A wall s | B wall s | A CPU s | B CPU s | CPU A / B |"
echo "| --- | --- | --- | --- | --- | --- |"
ratios=()
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then ta=$(ingest "$A"); tb=$(ingest "$B")
	else tb=$(ingest "$B"); ta=$(ingest "$A"); fi
	read -r wa ca <<<"$ta"; read -r wb cb <<<"$tb"
	q=$(echo "$ca / $cb" | bc -l)
	ratios+=("$q")
	printf '| %d | %.3f | %.3f | %.3f | %.3f | %.4f |\n' "$r" "$wa" "$wb" "$ca" "$cb" "$q"
done
median() { # WHAT VALUES...
	local what=$1; shift
	printf '%s\n' "$@" | sort -g | awk -v what="$what" '{v[NR] = $1} END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "# median %s A / B = %.4f (min %.4f, max %.4f, %d rounds)\n", what, m, v[1], v[NR], NR }'
}
median CPU "${ratios[@]}"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
