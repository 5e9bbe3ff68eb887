#!/bin/bash
# bench/kmod/replay.sh BUILD_DIR [DIR]
#
# The kernel module's replay of bench_mount's logs in the QEMU guest
# (TCG, emulated CXL pmem, kernel 6.1), as a ratio to the guest's own
# CRC32C pass over the same log bytes. For each size of SIZES (default
# 1 M and 3 M entries):
#  1. `bench_mount --make` writes the log on the host (a sparse image in
#     DIR, default /var/tmp/famfs-kreplay);
#  2. a guest (famfs.replay=prep) lays out one fsdax namespace over a CXL
#     memdev sized for the image and marks its first byte; the marker's
#     offset in the memdev's backing file is where /dev/pmem0 starts;
#  3. the image's superblock and log are copied there (the files' data
#     is never read: holes);
#  4. a second guest on the same backing files (famfs.replay=run) lays
#     out the same namespace and runs `famfs-vmcheck replay-bench`: ROUNDS
#     client kernel mounts (mount(2) + the replay by the module's ioctls)
#     each followed by a CRC pass over the log through the mount's
#     .meta/dev0, and the kernel memory the mount keeps.
# The guest's RAM is MEM_PER_M (default 1536 MiB) per million entries
# plus 1 GiB. Console logs stay in DIR/vm-N/console-replay.log.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
B=$(cd "$1" && pwd)
D=${2:-/var/tmp/famfs-kreplay}
SIZES=${SIZES:-"1000000 3000000"}
ROUNDS=${ROUNDS:-3}
MEM_PER_M=${MEM_PER_M:-1536}
KVER=${KVER:-$(ls /lib/modules | grep '^6\.1\.' | sort -V | tail -n 1)}
KERNEL=/boot/vmlinuz-$KVER
KO=$(find "$B/kmod" -name famfs.ko -path "*$KVER*" | head -n 1)
[ -n "$KO" ] || KO=$(find "$B/kmod" -name famfs.ko | head -n 1)
BINS=("$B/famfs-cli/famfs-cli" "$B/tests/vm/famfs-vmcheck")
MiB=$((1024 * 1024))
MARK=FAMFS-KREPLAY-MARK

for f in "$KERNEL" "$KO" "${BINS[@]}" "$B/bench/lib/bench_mount"; do
	[ -r "$f" ] || { echo "replay.sh: $f missing (-DFAMFS_VM_TESTS=ON?)" >&2; exit 1; }
done
mkdir -p "$D"
# the memdevs' backing files are sparse but tens of GB: never left behind
trap 'rm -f "$D"/vm-*/cxl-*.raw' EXIT
roundup() { echo $((($1 + $2 - 1) / $2 * $2)); }

for n in $SIZES; do
	img=$D/k$n.img
	[ -f "$img" ] || "$B/bench/lib/bench_mount" --make "$img" "$n"
	dev=$(stat -c %s "$img")
	# the namespace's info block and 2 MiB alignment fit in the margin;
	# CXL capacity comes in 256 MiB
	cxl=$(roundup $((dev + 256 * MiB)) $((256 * MiB)))
	win=$(roundup $((cxl + 512 * MiB)) $((1024 * MiB)))
	mem=$((1024 + n / 1000000 * MEM_PER_M))
	# Linux 6.1 finds a region's addresses in its window only at an
	# address at least the region's size (gfr_continue(): "addr > addr -
	# size"), else create-region fails with ERANGE: a hotplug area of
	# the memdev's size (maxmem, address space only) puts the window,
	# which QEMU places after it, high enough.
	w=$D/vm-$n
	mkdir -p "$w"
	rm -f "$w"/cxl-*.raw
	# vm-boot.sh's hang guard (900 s) is far too short here: a round of
	# 3 M entries took 9.5 min of guest time under load
	export FAMFS_VM_TIMEOUT=${FAMFS_VM_TIMEOUT:-$((1800 + ROUNDS * n / 1000))} \
		FAMFS_VM_GUESTS=replay FAMFS_VM_KEEP=1 FAMFS_VM_CXL_SIZE=$cxl \
		FAMFS_VM_CXL_WINDOW=$win \
		FAMFS_VM_MEM=${mem}M,slots=1,maxmem=$(((mem * MiB + cxl) / MiB))M
	echo "== $n entries: image $((dev / MiB)) MiB, memdev $((cxl / MiB)) MiB, guest RAM $mem MiB"
	FAMFS_VM_KARGS="famfs.replay=prep" "$TOP/tests/vm/vm-boot.sh" "$w" \
		"$KVER" "$KERNEL" "$KO" "${BINS[@]}"
	cp "$w/console-replay.log" "$w/console-prep.log"
	# the marker: where /dev/pmem0 starts in the backing file
	off=$(python3 - "$w/cxl-mem0.raw" "$MARK" <<'EOF'
import mmap, sys
with open(sys.argv[1], 'rb') as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    print(m.find(sys.argv[2].encode(), 0, 1 << 30))
EOF
)
	[ "$off" -ge 0 ] || { echo "replay.sh: no marker in $w/cxl-mem0.raw" >&2; exit 1; }
	# superblocks, log header and entries: log_offset + log_size of the
	# superblock (struct famfs_superblock, include/famfs/format.h)
	copy=$(python3 - "$img" <<'EOF'
import struct, sys
with open(sys.argv[1], 'rb') as f:
    f.seek(4096 + 40)
    off, size = struct.unpack('<QQ', f.read(16))
print(off + size)
EOF
)
	echo "log ends at $copy; /dev/pmem0 starts at $off of the memdev"
	copy=$(roundup "$copy" "$MiB")
	dd if="$img" of="$w/cxl-mem0.raw" bs=1M count=$((copy / MiB)) \
		oflag=seek_bytes seek="$off" conv=sparse,notrunc status=none
	sync "$w/cxl-mem0.raw"
	FAMFS_VM_KARGS="famfs.replay=run famfs.replay_rounds=$ROUNDS" \
		"$TOP/tests/vm/vm-boot.sh" "$w" "$KVER" "$KERNEL" "$KO" "${BINS[@]}" || true
	grep -a -E '^BENCH|^(MemTotal|MemAvailable|Slab)|FAMFS-VM-TEST' "$w/console-replay.log"
	rm -f "$w"/cxl-*.raw
done
