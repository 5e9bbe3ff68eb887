#!/bin/bash
# Ingest benchmark (issue 7): the same tree on XFS, hot cache, in one run:
# cp -a into tmpfs, cp -a into our master mount (when famfs-fused is
# built), our ingest, and the memcpy bound. Prints ratios; then files/s on
# a tree of many small files. Usage: bench/ingest/run.sh BUILD [SMALL_FILES]
set -eu
B=$(realpath "${1:-build}"); SMALL=${2:-100000}
CLI=$B/famfs-cli/famfs-cli; FUSED=$B/fused/famfs-fused; HERE=$(dirname "$(realpath "$0")")
W=$(mktemp -d /tmp/famfs-bench-ingest.XXXXXX)
# Emulated devices on a tmpfs with 2 MiB pages, as DAX memory is mapped;
# the cp baseline goes to plain /dev/shm, as in shared/PERF-NOTES.md.
S=$W/devs; T=/dev/shm/famfs-bench-cp.$$
cleanup() {
	fusermount3 -u "$S/mnt" 2>/dev/null || true
	umount "$S" 2>/dev/null || true
	umount "$W/xfs" 2>/dev/null || umount -l "$W/xfs" 2>/dev/null || true
	rm -rf "$W" "$T"
}
trap cleanup EXIT
mkdir -p "$W/xfs" "$S" "$T"
mount -t tmpfs -o huge=always,size=12G famfs-bench-devs "$S"
truncate -s 9G "$W/xfs.img"; mkfs.xfs -q "$W/xfs.img"; mount -o loop "$W/xfs.img" "$W/xfs"
python3 "$HERE/gen_tree.py" "$W/xfs/mixed" 20000
python3 "$HERE/gen_tree.py" "$W/xfs/many" "$SMALL" 0 0
bytes=$(du -sb --apparent-size "$W/xfs/mixed" | cut -f1)
files=$(find "$W/xfs/mixed" -type f | wc -l)
warm() { find "$1" -type f -print0 | xargs -0 cat > /dev/null; }
secs() { local a b; a=$(date +%s.%N); "$@" > /dev/null; b=$(date +%s.%N); echo "$b - $a" | bc -l; }
gbs() { echo "scale=2; $bytes / $1 / 1000000000" | bc -l; }
fresh_fs() { # fresh emulated devices (populated at creation) and mkfs
	rm -f "$S"/dev*; $CLI mkemul --size "$1" "$S/dev0" "$S/dev1" "$S/dev2" "$S/dev3"
	$CLI mkfs --log-size 64MiB "$S/dev0" "$S/dev1" "$S/dev2" "$S/dev3" > /dev/null
}
DEVS="-d $S/dev0 -d $S/dev1 -d $S/dev2 -d $S/dev3"

echo "# ingest benchmark: $files files, $bytes bytes (mixed tree), $(nproc) CPUs"
membound=$("$B/bench/ingest/memcpy_bound" 2)
warm "$W/xfs/mixed"; t_cp=$(secs cp -a "$W/xfs/mixed" "$T/cp-tmpfs"); rm -rf "$T/cp-tmpfs"
fresh_fs 1GiB
warm "$W/xfs/mixed"; t_ing=$(secs $CLI ingest $DEVS --manifest "$S/m.db" "$W/xfs/mixed" /mixed)
t_mnt=""
if [ -x "$FUSED" ]; then
	fresh_fs 1GiB; mkdir -p "$S/mnt"
	"$FUSED" --host-name "$(hostname)" "$S/dev0" "$S/dev1" "$S/dev2" "$S/dev3" "$S/mnt" > "$W/fused.log" 2>&1 &
	for _ in $(seq 100); do mountpoint -q "$S/mnt" && break; sleep 0.1; done
	if mountpoint -q "$S/mnt"; then
		warm "$W/xfs/mixed"; t_mnt=$(secs cp -a "$W/xfs/mixed" "$S/mnt/mixed")
		fusermount3 -u "$S/mnt"
	fi
fi
cp_gbs=$(gbs "$t_cp"); ing_gbs=$(gbs "$t_ing")
echo
echo "| copy | seconds | GB/s | vs cp -a to tmpfs | vs memcpy bound |"
echo "| --- | --- | --- | --- | --- |"
printf '| memcpy bound (2 threads, pre-faulted) | | %s | | 1.00 |\n' "$membound"
printf '| cp -a XFS -> tmpfs | %.2f | %s | 1.00 | %.2f |\n' "$t_cp" "$cp_gbs" "$(echo "$cp_gbs / $membound" | bc -l)"
if [ -n "$t_mnt" ]; then
	m_gbs=$(gbs "$t_mnt")
	printf '| cp -a XFS -> famfs master mount (FUSE) | %.2f | %s | %.2f | %.2f |\n' "$t_mnt" "$m_gbs" \
		"$(echo "$m_gbs / $cp_gbs" | bc -l)" "$(echo "$m_gbs / $membound" | bc -l)"
else
	echo "| cp -a XFS -> famfs master mount (FUSE) | n/a (famfs-fused not built) | | | |"
fi
printf '| famfs-cli ingest (%s threads, checksums on) | %.2f | %s | %.2f | %.2f |\n' "$(nproc)" "$t_ing" "$ing_gbs" \
	"$(echo "$ing_gbs / $cp_gbs" | bc -l)" "$(echo "$ing_gbs / $membound" | bc -l)"
echo
echo "goals: ingest >= 1.5 x cp -a to tmpfs, >= 0.6 x the memcpy bound"

# many small files: files/s
nsmall=$(find "$W/xfs/many" -type f | wc -l)
warm "$W/xfs/many"; t_cps=$(secs cp -a "$W/xfs/many" "$T/cp-many"); rm -rf "$T/cp-many"
fresh_fs 2GiB
warm "$W/xfs/many"; t_ings=$(secs $CLI ingest $DEVS --manifest "$S/m2.db" "$W/xfs/many" /many)
echo
echo "| $nsmall small files (4-64 KiB) | seconds | files/s | ratio |"
echo "| --- | --- | --- | --- |"
printf '| cp -a XFS -> tmpfs | %.2f | %.0f | 1.00 |\n' "$t_cps" "$(echo "$nsmall / $t_cps" | bc -l)"
printf '| famfs-cli ingest | %.2f | %.0f | %.2f |\n' "$t_ings" "$(echo "$nsmall / $t_ings" | bc -l)" \
	"$(echo "$t_cps / $t_ings" | bc -l)"
