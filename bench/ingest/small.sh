#!/bin/bash
# Small files alone (issue 14, point 1): famfs-cli ingest of FILES files of
# 4-64 KiB from a loop-mounted XFS image (warm) into emulated devices on a
# huge=always tmpfs, against the 2-thread memcpy bound and `cp -a` into
# tmpfs, both measured in the same round. With BASE_CLI (another build's
# famfs-cli) each round also runs it, back to back, for an A/B ratio.
# MIXED=1: the whole tree of run.sh instead (FILES small files plus 200
# of 1-8 MiB and 4 of 256 MiB, 2.69 GB with 20,000), every round against
# its own memcpy bound (run.sh measures the bound once).
# The image is attached with direct I/O (losetup --direct-io=on), so that
# its pages are not cached a second time under the tree's: with the image
# cached too, memory pressure from elsewhere evicted tree pages between
# the warm-up and the ingest (RWF_NOWAIT reads came back EAGAIN and read
# ahead from the loop device; bench/results/ingest.md, 2026-12-05). The
# last line says how much of the tree was still cached after the rounds.
# Usage (root): [MIXED=1] bench/ingest/small.sh BUILD [FILES] [ROUNDS] [BASE_CLI]
set -eu
B=$(realpath "${1:-build}"); N=${2:-20000}; ROUNDS=${3:-5}; BASE=${4:-}
CLI=$B/famfs-cli/famfs-cli; HERE=$(dirname "$(realpath "$0")")
W=$(mktemp -d /tmp/famfs-bench-small.XXXXXX); LOOP=""
cleanup() {
	umount "$W/devs" 2>/dev/null || true
	umount "$W/xfs" 2>/dev/null || umount -l "$W/xfs" 2>/dev/null || true
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
	rm -rf "$W" "/dev/shm/famfs-bench-small.$$"
}
trap cleanup EXIT
mkdir -p "$W/xfs" "$W/devs"
mount -t tmpfs -o huge=always,size=6G famfs-bench-small "$W/devs"
if [ -n "${MIXED:-}" ]; then GEN=""; IMG=$(( N / 10 + 3584 )); else GEN="0 0"; IMG=$(( N / 10 + 512 )); fi
truncate -s ${IMG}M "$W/xfs.img"; mkfs.xfs -q "$W/xfs.img"
LOOP=$(losetup --direct-io=on -f --show "$W/xfs.img")
mount "$LOOP" "$W/xfs"
# shellcheck disable=SC2086 # GEN is two words or none
python3 "$HERE/gen_tree.py" "$W/xfs/src" "$N" $GEN
# written back before the rounds (through the direct-I/O loop device the
# writeback of a fresh tree lasted into round 1: 1.17 s against 0.39 s)
sync -f "$W/xfs"
bytes=$(du -sb --apparent-size "$W/xfs/src" | cut -f1)
find "$W/xfs/src" -type f -print0 | xargs -0 cat > /dev/null
secs() { local a b; a=$(date +%s.%N); "$@" > /dev/null 2>&1; b=$(date +%s.%N); echo "$b - $a" | bc -l; }
ingest() { # CLI: fresh devices, mkfs, then the timed ingest
	rm -f "$W"/devs/*
	"$1" mkemul --size 1GiB "$W"/devs/dev{0,1,2,3}
	"$1" mkfs --log-size 64MiB "$W"/devs/dev{0,1,2,3} > /dev/null
	secs "$1" ingest -d "$W/devs/dev0" -d "$W/devs/dev1" -d "$W/devs/dev2" \
		-d "$W/devs/dev3" --manifest "$W/devs/m.db" "$W/xfs/src" /src
}
echo "# $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
echo "# ${MIXED:+whole tree: }$(find "$W/xfs/src" -type f | wc -l) files, $bytes bytes; ratio = ingest GB/s / 2-thread memcpy GB/s"
echo "| round | memcpy GB/s | cp -a s | ingest s | vs memcpy | vs cp -a |${BASE:+ base s | base / this |}"
echo "| --- | --- | --- | --- | --- | --- |${BASE:+ --- | --- |}"
for r in $(seq "$ROUNDS"); do
	mb=$("$B/bench/ingest/memcpy_bound" 2)
	T=/dev/shm/famfs-bench-small.$$; rm -rf "$T"
	tc=$(secs cp -a "$W/xfs/src" "$T"); rm -rf "$T"
	ti=$(ingest "$CLI")
	extra=""
	if [ -n "$BASE" ]; then
		tb=$(ingest "$BASE")
		extra=$(printf ' %.3f | %.2f |' "$tb" "$(echo "$tb / $ti" | bc -l)")
	fi
	printf '| %d | %.1f | %.3f | %.3f | %.3f | %.2f |%s\n' "$r" "$mb" "$tc" "$ti" \
		"$(echo "$bytes / $ti / 1000000000 / $mb" | bc -l)" \
		"$(echo "$tc / $ti" | bc -l)" "$extra"
done
cached=$(find "$W/xfs/src" -type f -print0 | xargs -0 fincore -b -n -o RES | awk '{s += $1} END {printf "%.0f", s}')
echo "# source in the page cache after the rounds: $cached of $bytes bytes"
