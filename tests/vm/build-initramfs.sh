#!/bin/bash
# Build the guest initramfs for the kmod VM tests:
#   busybox (shell and userland), kmod (modprobe), the nvdimm/dax/cxl/loop
#   modules of the guest kernel with their dependencies, ndctl + cxl,
#   famfs.ko, famfs-cli, famfsd and the test tools with their shared
#   libraries (and libcurl, which famfs-cli dlopens), the provider plugins (BIN arguments ending in .so) in
#   /usr/lib/famfs/plugins, daxctl beside ndctl and cxl (the reference
#   tools the discovery checks compare famfsd with), and the guest scripts
#   (guest/init.sh as /init, guest/*.sh in /tests).
#
# Usage: build-initramfs.sh OUT.cpio.gz KVER FAMFS_KO BIN...
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1 KVER=$2 KO=$3
shift 3
BINS=("$@")
ROOT=$(dirname "$OUT")/initramfs-root

MODS="libnvdimm nd_pmem nd_btt dax_pmem device_dax kmem cxl_acpi cxl_pci
      cxl_mem cxl_pmem loop"
# virtio-net: the network between two guests (vm-twohost.sh)
MODS="$MODS virtio_pci virtio_net"
SYSBINS="/usr/bin/ndctl /usr/bin/cxl /usr/bin/daxctl /usr/bin/kmod"

rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,run,tmp,mnt,etc}
mkdir -p "$ROOT"/{lib/modules,tests}
ln -s lib "$ROOT/lib64"

cp /bin/busybox "$ROOT/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$ROOT/bin/$a" ] || ln -s busybox "$ROOT/bin/$a"
done

# A binary and every shared library ldd names: system libraries at the
# same paths, ours (libfamfs in the build tree, which may well be under
# /tmp, hidden by the guest's tmpfs) in /usr/lib, where ld.so looks once
# the build tree's RUNPATH does not exist.
copy_with_libs() {
	local bin=$1 dst=$2 lib
	install -D -m755 "$bin" "$ROOT$dst"
	ldd "$bin" | awk '/=>/ { print $3 } /^\s*\/lib/ { print $1 }' |
	while read -r lib; do
		[ -n "$lib" ] && [ -e "$lib" ] || continue
		case "$lib" in
		/lib/* | /lib64/* | /usr/lib/*) to=$lib ;;
		*) to=/usr/lib/$(basename "$lib") ;;
		esac
		install -D -m755 "$(readlink -f "$lib")" "$ROOT$to"
	done
}
for b in $SYSBINS; do copy_with_libs "$b" "$b"; done
# famfs-cli dlopens libcurl for the commands that talk to famfsd
# (famfs-cli/client/curl_dl.c): ldd does not name it.
# awk reads to the end: an early exit would leave ldconfig a broken pipe,
# and pipefail then ends this script without a word.
CURL_SO=$(ldconfig -p | awk '$1 == "libcurl.so.4" && /x86-64/ && !f { print $NF; f = 1 }')
[ -n "$CURL_SO" ] || { echo "build-initramfs: no libcurl.so.4 (ldconfig -p)" >&2; exit 1; }
copy_with_libs "$CURL_SO" "$CURL_SO"
for b in "${BINS[@]}"; do
	case "$b" in
	*.so) copy_with_libs "$b" "/usr/lib/famfs/plugins/$(basename "$b")" ;;
	*) copy_with_libs "$b" "/usr/bin/$(basename "$b")" ;;
	esac
done
install -D -m755 "$(readlink -f /lib64/ld-linux-x86-64.so.2)" \
	"$ROOT/lib/ld-linux-x86-64.so.2"
for a in modprobe insmod rmmod lsmod modinfo depmod; do
	rm -f "$ROOT/bin/$a" "$ROOT/sbin/$a"
	ln -s /usr/bin/kmod "$ROOT/sbin/$a"
done
echo "root:x:0:0:root:/root:/bin/sh" > "$ROOT/etc/passwd"
echo "root:x:0:" > "$ROOT/etc/group"
echo "famfs-guest" > "$ROOT/etc/hostname"
echo "127.0.0.1 localhost" > "$ROOT/etc/hosts"

# Guest kernel modules: the dependency closure, resolved by the host's
# modprobe against the guest kernel's tree; ours goes to extra/.
MD=/lib/modules/$KVER
mkdir -p "$ROOT$MD/extra"
cp "$MD"/modules.{order,builtin,builtin.modinfo} "$ROOT$MD/" 2>/dev/null || true
for m in $MODS; do
	modprobe -S "$KVER" --ignore-install --show-depends "$m" |
		awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r ko; do
	# 6.12's modules are xz-compressed; the guest's kmod hands them to the
	# kernel as they are ("Invalid ELF header magic"), so unpack them here.
	case "$ko" in
	*.ko.xz)
		mkdir -p "$(dirname "$ROOT$ko")"
		xz -dc "$ko" >"$ROOT${ko%.xz}"
		;;
	*) install -D -m644 "$ko" "$ROOT$ko" ;;
	esac
done
install -m644 "$KO" "$ROOT$MD/extra/famfs.ko"
depmod -b "$ROOT" "$KVER"

install -m755 "$HERE/guest/init.sh" "$ROOT/init"
install -m755 "$HERE"/guest/*.sh "$ROOT/tests/"

(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet) |
	gzip -1 > "$OUT"
echo "initramfs: $OUT ($(du -h "$OUT" | cut -f1)), kernel $KVER"
