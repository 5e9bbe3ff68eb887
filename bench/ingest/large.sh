#!/bin/bash
# Large files alone (issue 14, point 2): ingest of a few large files from a
# loop-mounted XFS image into emulated devices on a huge=always tmpfs,
# against a 1-thread memcpy of the same byte count measured in the same
# round. Usage (root): bench/ingest/large.sh BUILD [FILES] [MiB] [ROUNDS]
set -eu
B=$(realpath "${1:-build}"); N=${2:-4}; MIB=${3:-512}; ROUNDS=${4:-5}
BIN=$B/bench/ingest/ingest_large_files
W=$(mktemp -d /tmp/famfs-bench-large.XXXXXX)
cleanup() {
	umount "$W/devs" 2>/dev/null || true
	umount "$W/xfs" 2>/dev/null || umount -l "$W/xfs" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W/xfs" "$W/devs"
mount -t tmpfs -o huge=always,size=$(( N * MIB * 2 + 2048 ))M famfs-bench-large "$W/devs"
truncate -s $(( N * MIB + 512 ))M "$W/xfs.img"; mkfs.xfs -q "$W/xfs.img"; mount -o loop "$W/xfs.img" "$W/xfs"
mkdir "$W/xfs/src"
for i in $(seq "$N"); do # incompressible, not a multiple of 2 MiB
	head -c $(( MIB * 1048576 + i * 4099 )) /dev/urandom > "$W/xfs/src/large$i.bin"
done
echo "# $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
for t in 1 2; do # ingest threads (the bound stays 1-thread memcpy)
	"$BIN" "$W/xfs/src" "$W/devs" "$ROUNDS" "$t" warm
	echo
done
"$BIN" "$W/xfs/src" "$W/devs" "$ROUNDS" 1 cold
