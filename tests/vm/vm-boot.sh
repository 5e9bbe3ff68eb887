#!/bin/bash
# ctest vm.boot: build the initramfs, boot the guest kernel under QEMU (TCG)
# with one emulated CXL type-3 pmem device, run guest/kmod.sh inside and
# keep the serial console in WORK/console.log for the per-check tests.
#
# Usage: vm-boot.sh WORK KVER KERNEL FAMFS_KO BIN...
# Exit: 0 guest ran to the end with a clean console; 77 (skip) when QEMU
# or the kernel image is missing; 1 otherwise.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$1 KVER=$2 KERNEL=$3 KO=$4
shift 4
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${FAMFS_VM_TIMEOUT:-420}
LOG=$WORK/console.log

mkdir -p "$WORK"
rm -f "$LOG"
if ! command -v "$QEMU" >/dev/null; then
	echo "vm.boot: SKIP: $QEMU not installed" | tee "$LOG"
	exit 77
fi
if [ -z "$KERNEL" ] || [ ! -r "$KERNEL" ]; then
	echo "vm.boot: SKIP: no guest kernel image for '$KVER'" | tee "$LOG"
	exit 77
fi
for f in "$KO" "$@"; do
	if [ ! -f "$f" ]; then
		echo "vm.boot: FAIL: $f was not built" | tee "$LOG"
		exit 1
	fi
done

"$HERE/build-initramfs.sh" "$WORK/initramfs.cpio.gz" "$KVER" "$KO" "$@" ||
	exit 1

# One CXL type-3 persistent memory device behind a CXL host bridge. The
# second, empty root port matters: QEMU 7.2 routes CXL.mem only through a
# committed host-bridge HDM decoder, and Linux 6.1 programs that decoder
# only when the bridge has more than one root port.
rm -f "$WORK/cxl-mem0.raw" "$WORK/cxl-lsa0.raw"
truncate -s 512M "$WORK/cxl-mem0.raw"
truncate -s 256M "$WORK/cxl-lsa0.raw"
cxl=(-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
     -object memory-backend-file,id=cxl-mem0,share=on,mem-path=$WORK/cxl-mem0.raw,size=512M
     -object memory-backend-file,id=cxl-lsa0,share=on,mem-path=$WORK/cxl-lsa0.raw,size=256M
     -device cxl-rp,port=0,bus=cxl.1,id=root_port0,chassis=0,slot=2
     -device cxl-type3,bus=root_port0,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0
     -device cxl-rp,port=1,bus=cxl.1,id=root_port1,chassis=0,slot=3
     -M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G,cxl-fmw.0.interleave-granularity=8k)

t0=$(date +%s)
# KVM is not available on the build machines (no nested virtualization).
timeout "$TIMEOUT" "$QEMU" -M q35,cxl=on -accel tcg,thread=multi -cpu max \
	-smp 2 -m 2G -nographic -no-reboot -serial stdio -monitor none \
	-kernel "$KERNEL" -initrd "$WORK/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=4" \
	"${cxl[@]}" </dev/null >"$LOG" 2>&1
rc=$?
t1=$(date +%s)
rm -f "$WORK/cxl-mem0.raw" "$WORK/cxl-lsa0.raw"
echo "vm.boot: qemu rc=$rc wall=$((t1 - t0))s console=$LOG"

# The guest's own summary lines, for the ctest log.
grep -a -E '^FAMFS-VM-(TEST|BEGIN|END)' "$LOG"
if "$HERE/console-clean.sh" "$LOG"; then :; else
	echo "vm.boot: FAIL: kernel oops/WARN/BUG on the guest console"
	exit 1
fi
if ! grep -a -q '^FAMFS-VM-END' "$LOG"; then
	echo "vm.boot: FAIL: the guest did not finish (rc=$rc); tail:"
	tail -n 40 "$LOG"
	exit 1
fi
exit 0
