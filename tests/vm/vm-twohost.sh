#!/bin/bash
# ctest vm2.boot: two guests at the same time on one emulated CXL type-3
# pmem device (the same share=on memory and label backing files), joined
# by a QEMU UDP socket network (unprivileged, 127.0.0.1): host 1 runs
# guest/twomaster.sh, host 2 guest/twoclient.sh. Each runs a famfsd on
# https with a bearer token; the CA, the hosts' certificates, a CA that
# signed neither, and the token are made here with openssl and reach the
# guests as a second initramfs archive (/etc/famfs-test). The consoles
# stay in WORK/console-h1.log and WORK/console-h2.log for vm2.<check>.
#
# Usage: vm-twohost.sh WORK KVER KERNEL FAMFS_KO BIN...
# Exit: 0 both guests ran to the end with clean consoles; 77 (skip) when
# QEMU or the kernel image is missing; 1 otherwise.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$1 KVER=$2 KERNEL=$3 KO=$4
shift 4
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${FAMFS_VM_TIMEOUT:-900}  # a hang guard only
. "$HERE/vm-cpu.sh"
LOGS=("$WORK/console-h1.log" "$WORK/console-h2.log")

mkdir -p "$WORK"
rm -f "${LOGS[@]}"
skip() {
	echo "vm2.boot: SKIP: $*" | tee "${LOGS[@]}"
	exit 77
}
command -v "$QEMU" >/dev/null || skip "$QEMU not installed"
[ -n "$KERNEL" ] && [ -r "$KERNEL" ] || skip "no guest kernel image for '$KVER'"
command -v openssl >/dev/null || skip "openssl not installed"
t0=$(date +%s)

"$HERE/build-initramfs.sh" "$WORK/initramfs.cpio.gz" "$KVER" "$KO" "$@" ||
	exit 1

# The TLS material, fresh each run: a CA, each host's key and a
# certificate for its address, a second CA that signed nothing here.
X=$WORK/extra
TLS=$X/etc/famfs-test
rm -rf "$X"
mkdir -p "$TLS"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
{
	openssl req -x509 "${ec[@]}" -keyout "$TLS/ca.key" -out "$TLS/ca.pem" \
		-days 2 -subj /CN=famfs-vm2-ca &&
	openssl req -x509 "${ec[@]}" -keyout "$TLS/wrongca.key" \
		-out "$TLS/wrongca.pem" -days 2 -subj /CN=famfs-vm2-wrong-ca &&
	for h in h1:10.9.0.1 h2:10.9.0.2; do
		n=${h%%:*} ip=${h#*:}
		openssl req "${ec[@]}" -keyout "$TLS/$n.key" -out "$X/$n.csr" \
			-subj "/CN=$ip" &&
		openssl x509 -req -in "$X/$n.csr" -CA "$TLS/ca.pem" \
			-CAkey "$TLS/ca.key" -CAcreateserial -days 2 \
			-extfile <(echo "subjectAltName=IP:$ip") -out "$TLS/$n.pem" ||
			exit 1
	done &&
	openssl rand -hex 24 >"$TLS/token"
} >"$WORK/openssl.log" 2>&1 || { echo "vm2.boot: FAIL: openssl"; cat "$WORK/openssl.log"; exit 1; }
rm -f "$TLS/ca.key" "$TLS/wrongca.key" "$X"/*.csr
chmod 600 "$TLS"/*.key "$TLS/token"
# the kernel unpacks concatenated archives in order: this one adds files
cp "$WORK/initramfs.cpio.gz" "$WORK/initramfs-vm2.cpio.gz"
(cd "$X" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) |
	gzip -1 >>"$WORK/initramfs-vm2.cpio.gz"

# The device as vm-boot.sh has it (its comment says why the second, empty
# root port is there), smaller: two 240 MiB namespaces fill it.
rm -f "$WORK/cxl-mem0.raw" "$WORK/cxl-lsa0.raw"
truncate -s 512M "$WORK/cxl-mem0.raw"
truncate -s 2M "$WORK/cxl-lsa0.raw"
cxl=(-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
     -object memory-backend-file,id=cxl-mem0,share=on,mem-path=$WORK/cxl-mem0.raw,size=512M
     -object memory-backend-file,id=cxl-lsa0,share=on,mem-path=$WORK/cxl-lsa0.raw,size=2M
     -device cxl-rp,port=0,bus=cxl.1,id=root_port0,chassis=0,slot=2
     -device cxl-type3,bus=root_port0,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0,sn=4096
     -device cxl-rp,port=1,bus=cxl.1,id=root_port1,chassis=0,slot=3
     -M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G,cxl-fmw.0.interleave-granularity=8k)

# Two free UDP ports on 127.0.0.1: each guest's end of the link.
read -r P1 P2 < <(/usr/bin/python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

# Kernels after 6.1: the same arguments as vm-boot.sh's (its comment
# says why: no native CXL error handling, the hypervisor bit hidden,
# hot-added memory left offline).
KARGS= CPU=max${FAMFS_VM_CPU_FLAGS:+,$FAMFS_VM_CPU_FLAGS}
case "$KVER" in
6.1.*) ;;
*)
	KARGS="pcie_ports=compat memhp_default_state=offline"
	CPU=$CPU,-hypervisor
	;;
esac

# guest N SCRIPT MYPORT PEERPORT: one guest in the background; one vCPU
# each (the build machines have two cores), TCG (no KVM there).
pids=()
guest() {
	timeout "$TIMEOUT" "$QEMU" -M q35,cxl=on -accel tcg,thread=multi \
		-cpu "$CPU" -smp 1 -m 1G \
		-nographic -no-reboot -serial stdio \
		-monitor none -kernel "$KERNEL" \
		-initrd "$WORK/initramfs-vm2.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=4 famfs.guest=$2 $KARGS" \
		-netdev "socket,id=n0,udp=127.0.0.1:$4,localaddr=127.0.0.1:$3" \
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:f5:00:0$1" \
		"${cxl[@]}" </dev/null >"${LOGS[$1 - 1]}" 2>&1 &
	pids+=($!)
}
guest 1 twomaster "$P1" "$P2"
guest 2 twoclient "$P2" "$P1"

status=0
for i in 0 1; do
	wait "${pids[$i]}"
	rc=$?
	log=${LOGS[$i]}
	echo "vm2.boot: host $((i + 1)): qemu rc=$rc wall=$(($(date +%s) - t0))s console=$log"
	grep -a -E '^FAMFS-VM-(TEST|BEGIN|END|LATENCY)' "$log"
	if ! "$HERE/console-clean.sh" "$log"; then
		echo "vm2.boot: FAIL: kernel oops/WARN/BUG on host $((i + 1))'s console"
		status=1
	elif ! grep -a -q '^FAMFS-VM-END' "$log"; then
		echo "vm2.boot: FAIL: host $((i + 1)) did not finish (rc=$rc); tail:"
		tail -n 40 "$log"
		status=1
	fi
done
echo "vm2.boot: both hosts: wall=$(($(date +%s) - t0))s"
[ "${FAMFS_VM_KEEP:-0}" = 1 ] || rm -f "$WORK/cxl-mem0.raw" "$WORK/cxl-lsa0.raw"
exit "$status"
