#!/bin/bash
# cli_block_reads: opening a filesystem on block devices reads what it
# needs (labels, superblock, log), not megabytes around every fault. A
# pmem block device is mapped through its page cache; MADV_HUGEPAGE on
# that mapping made each read fault read 4 MiB (two PMD folios) whatever
# the device's readahead: fsck of 9 x 16 MiB devices read 76 MiB, ~2 s a
# device in the TCG guest where CXL memory is emulated MMIO
# (docs/testing.md). Loop devices stand in for pmem: the counters of
# /sys/block/loopN/stat are the bytes the page cache asked for.
# Usage: block_reads.sh FAMFS_CLI
set -u
CLI=$1
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null; then
	echo "SKIP: needs root and losetup"; exit 77
fi
N=4
W=$(mktemp -d /dev/shm/famfs-blockreads.XXXXXX)
DEVS=()
cleanup() {
	for d in "${DEVS[@]}"; do losetup -d "$d"; done
	rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
sectors_read() { # the sectors all DEVS have read so far
	local s=0 d
	for d in "${DEVS[@]}"; do
		s=$((s + $(awk '{ print $3 }' "/sys/block/${d#/dev/}/stat")))
	done
	echo $s
}

for i in $(seq $N); do
	truncate -s 16M "$W/d$i" || fail "truncate"
	d=$(losetup -f --show "$W/d$i") || fail "losetup"
	DEVS+=("$d")
	# pmem's default readahead (128 KiB), whatever the host's loop default
	blockdev --setra 256 "$d" || fail "blockdev --setra"
done
"$CLI" mkfs --log-size 8MiB "${DEVS[@]}" >/dev/null || fail "mkfs"
for d in "${DEVS[@]}"; do blockdev --flushbufs "$d"; done # nothing cached
r0=$(sectors_read)
"$CLI" fsck "${DEVS[@]}" || fail "fsck"
kib=$((($(sectors_read) - r0) / 2))
echo "fsck of $N x 16 MiB block devices read $kib KiB"
# the counters work: the labels at least were read from the devices
[ "$kib" -gt 0 ] || fail "fsck read nothing: the counters prove nothing"
# 1 MiB a device (8 x the readahead); the 4 MiB folios read >= 8 MiB
[ "$kib" -le $((N * 1024)) ] || fail "fsck read $kib KiB, more than 1 MiB a device"
echo "ok: $kib KiB for $N devices"
