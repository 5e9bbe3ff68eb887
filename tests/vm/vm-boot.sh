#!/bin/bash
# ctest vm.boot: build the initramfs, boot the guest kernel under QEMU (TCG)
# with one emulated CXL type-3 pmem device, run guest/kmod.sh inside (the
# master host), then boot a second guest on the same memory backing file
# that runs guest/client.sh (a client host). The serial consoles stay in
# WORK/console.log and WORK/console-client.log for the per-check tests.
#
# Usage: vm-boot.sh WORK KVER KERNEL FAMFS_KO BIN...
# Exit: 0 guest ran to the end with a clean console; 77 (skip) when QEMU
# or the kernel image is missing; 1 otherwise.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$1 KVER=$2 KERNEL=$3 KO=$4
shift 4
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${FAMFS_VM_TIMEOUT:-900}  # per guest, a hang guard only
. "$HERE/vm-cpu.sh"
LOG=$WORK/console.log

mkdir -p "$WORK"
rm -f "$LOG"
if ! command -v "$QEMU" >/dev/null; then
	echo "vm.boot: SKIP: $QEMU not installed" | tee "$LOG" "$WORK/console-client.log"
	exit 77
fi
if [ -z "$KERNEL" ] || [ ! -r "$KERNEL" ]; then
	echo "vm.boot: SKIP: no guest kernel image for '$KVER'" | tee "$LOG" "$WORK/console-client.log"
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

# One CXL type-3 persistent memory device (1 GiB: two fsdax namespaces for
# the kmod checks, a devdax and a sector one for famfsd's) behind a CXL
# host bridge. The
# second root port matters even without a device: QEMU 7.2 routes CXL.mem
# only through a committed host-bridge HDM decoder, and Linux 6.1 programs
# that decoder only when the bridge has more than one root port.
# FAMFS_VM_GUESTS=client (debugging) reuses the files the last run kept
# with FAMFS_VM_KEEP=1.
GUESTS=${FAMFS_VM_GUESTS:-kmod client}
# FAMFS_VM_CXL_SIZE, FAMFS_VM_CXL_WINDOW and FAMFS_VM_MEM (bench/kmod/
# replay.sh: a log of millions of files) size the first device, the CXL
# window and the guest's RAM.
CXL0=${FAMFS_VM_CXL_SIZE:-1G} WINDOW=${FAMFS_VM_CXL_WINDOW:-4G}
case "$GUESTS" in kmod*) rm -f "$WORK"/cxl-mem[01].raw "$WORK"/cxl-lsa[01].raw ;; esac
truncate -s "$CXL0" "$WORK/cxl-mem0.raw"
# A second, 256 MiB device on the second root port for famfsd's region
# checks (guest/regions.sh: regions over one memdev and over both). The
# serials (sn) name the memdevs whatever order they probe in.
truncate -s 256M "$WORK/cxl-mem1.raw"
truncate -s 2M "$WORK/cxl-lsa1.raw"
# 2 MiB of labels hold far more than the 16 namespaces the checks make;
# a larger label area only makes ndctl rewrite larger index blocks.
truncate -s 2M "$WORK/cxl-lsa0.raw"
cxl=(-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
     -object memory-backend-file,id=cxl-mem0,share=on,mem-path=$WORK/cxl-mem0.raw,size=$CXL0
     -object memory-backend-file,id=cxl-lsa0,share=on,mem-path=$WORK/cxl-lsa0.raw,size=2M
     -device cxl-rp,port=0,bus=cxl.1,id=root_port0,chassis=0,slot=2
     -device cxl-type3,bus=root_port0,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0,sn=4096
     -device cxl-rp,port=1,bus=cxl.1,id=root_port1,chassis=0,slot=3
     -object memory-backend-file,id=cxl-mem1,share=on,mem-path=$WORK/cxl-mem1.raw,size=256M
     -object memory-backend-file,id=cxl-lsa1,share=on,mem-path=$WORK/cxl-lsa1.raw,size=2M
     -device cxl-type3,bus=root_port1,memdev=cxl-mem1,lsa=cxl-lsa1,id=cxl-pmem1,sn=4097
     -M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=$WINDOW,cxl-fmw.0.interleave-granularity=8k)

# Kernels after 6.1 (docs/kmod.md, "Kernels"): cxl_pci's probe fails (no
# mem0) when the device cannot do event interrupts, as QEMU 7.2's cannot,
# and the firmware granted the OS native CXL error handling:
# pcie_ports=compat keeps _OSC from asking. A region commit needs a CPU
# cache flush the kernel refuses under a hypervisor ("Failed to
# synchronize CPU cache state"): the guest CPU hides the hypervisor bit.
# Debian's 6.12 onlines hot-added memory itself, and daxctl then refuses
# a system-ram reconfigure: memhp_default_state=offline, as on 6.1.
KARGS= CPU=max${FAMFS_VM_CPU_FLAGS:+,$FAMFS_VM_CPU_FLAGS}
case "$KVER" in
6.1.*) ;;
*)
	KARGS="pcie_ports=compat memhp_default_state=offline"
	CPU=$CPU,-hypervisor
	;;
esac
KARGS="$KARGS ${FAMFS_VM_KARGS:-}"  # more, when debugging

# boot_guest NAME LOG: one guest run of guest/NAME.sh, console in LOG.
boot_guest() {
	local t0 t1 rc
	t0=$(date +%s)
	# KVM is not available on the build machines (no nested virtualization).
	# One vCPU (FAMFS_VM_SMP=2 for two): side by side, the 6.1 guests
	# took 135.6 CPU-s with one and 166.0 with two (docs/testing.md).
	timeout "$TIMEOUT" "$QEMU" -M q35,cxl=on -accel tcg,thread=multi \
		-cpu "$CPU" -smp "${FAMFS_VM_SMP:-1}" -m "${FAMFS_VM_MEM:-2G}" -nographic \
		-no-reboot -serial stdio \
		-monitor none -kernel "$KERNEL" \
		-initrd "$WORK/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=4 famfs.guest=$1 $KARGS" \
		"${cxl[@]}" </dev/null >"$2" 2>&1
	rc=$?
	t1=$(date +%s)
	echo "vm.boot: guest $1: qemu rc=$rc wall=$((t1 - t0))s console=$2"
	grep -a -E '^FAMFS-VM-(TEST|BEGIN|END)' "$2"
	if ! "$HERE/console-clean.sh" "$2"; then
		echo "vm.boot: FAIL: kernel oops/WARN/BUG on the $1 guest console"
		return 1
	fi
	if ! grep -a -q '^FAMFS-VM-END' "$2"; then
		echo "vm.boot: FAIL: the $1 guest did not finish (rc=$rc); tail:"
		tail -n 40 "$2"
		return 1
	fi
	return 0
}

# The master host, then a second host on the same memory and label files
# (share=on backing files are how two hosts share one device here).
status=0
for g in $GUESTS; do
	[ "$status" = 0 ] || break
	log=$LOG
	[ "$g" = kmod ] || log=$WORK/console-$g.log
	rm -f "$log"
	boot_guest "$g" "$log" || status=1
done
[ "${FAMFS_VM_KEEP:-0}" = 1 ] || rm -f "$WORK"/cxl-mem[01].raw "$WORK"/cxl-lsa[01].raw
exit "$status"
