# Sourced by the guest scripts: the device, the mount, the files, and
# the check runner whose lines the host reads.
DEV=/dev/pmem0       # device 0: superblock and log
DEV1=/dev/pmem0.1    # device 1: a second namespace of the same region
MNT=/mnt/famfs
# famfsd's allowed paths in the guest (famfsd.yaml paths.*): the tests'
# emul devices, mount points and ingest sources
FAMFSD_GUEST_PATHS="--set paths.devices=/dev/shm --set paths.mounts=/mnt --set paths.sources=/tmp"
IL=$MNT/dir/il       # interleaved: 4 strips, 2 MiB chunks
PLAIN=$MNT/plain     # one extent
SMALL=$MNT/small     # packed at 4 KiB
LIVE=$MNT/live       # created while mounted, through .meta/dev0

# famfs.trace on the kernel command line (FAMFS_VM_KARGS=famfs.trace):
# every command of every check on the console after the guest's uptime,
# to see where a guest spends its time (docs/testing.md).
TRACE=
grep -q 'famfs\.trace' /proc/cmdline 2>/dev/null && TRACE=1
PS4='+ $(cut -c1-9 /proc/uptime) '

failed=0
# famfs.only=a,b,c on the kernel command line (FAMFS_VM_KARGS, when
# working on some checks): only those run; the others print nothing.
ONLY=$(sed -n 's/.*famfs\.only=\([a-z0-9_,]*\).*/\1/p' /proc/cmdline 2>/dev/null)
check() {
	name=$1
	shift
	if [ -n "$ONLY" ]; then
		case ",$ONLY," in
		*",$name,"*) ;;
		*) return 0 ;;
		esac
	fi
	echo "FAMFS-VM-RUN $name"
	# not in an if: errexit must stay live inside the check
	( set -e; [ -z "$TRACE" ] || set -x; "$@" ) 2>&1
	rc=$?
	up=$(cut -d' ' -f1 /proc/uptime)
	if [ $rc = 0 ]; then
		echo "FAMFS-VM-TEST $name PASS uptime=$up"
	else
		echo "FAMFS-VM-TEST $name FAIL uptime=$up"
		failed=1
	fi
}
# Expect a command to fail; print what it said.
refuse() {
	if "$@" 2>&1; then
		echo "unexpected success: $*"
		return 1
	fi
	echo "refused as expected: $*"
}
# "! cmd" never trips errexit; this does.
not() {
	if "$@"; then
		echo "unexpectedly true: $*"
		return 1
	fi
	return 0
}
mounted() { grep -q " $MNT famfs " /proc/mounts; }
# A check that failed half way may leave the mount behind; the next
# check starts from an unmounted state.
unmounted() {
	if mounted; then
		echo "(unmounting what an earlier check left)"
		umount $MNT
	fi
}

# The memdev whose serial is $1 (vm-boot.sh sets them: cxl_pci probes
# asynchronously, so mem0/mem1 may come up in either order).
memdev_by_serial() {
	for m in /sys/bus/cxl/devices/mem*; do
		[ "$(($(cat $m/serial 2>/dev/null || echo -1)))" = "$1" ] &&
			basename $m && return 0
	done
	return 1
}

# The memdevs' serials this guest has: vm-boot.sh gives it two, the
# vm-twohost.sh guests one (twohost.sh sets CXL_SERIALS).
CXL_SERIALS=${CXL_SERIALS:-4096 4097}

# Every memdev of CXL_SERIALS is there and bound by cxl_mem.
memdevs_ready() {
	for s in $CXL_SERIALS; do
		m=$(memdev_by_serial $s) || return 1
		[ -e /sys/bus/cxl/devices/$m/driver ] || return 1
	done
}

# The CXL stack, until every memdev is bound; fails naming them.
cxl_modules() {
	for m in cxl_acpi cxl_pci cxl_mem cxl_pmem nd_pmem nd_btt dax_pmem \
		 device_dax kmem; do
		modprobe $m
	done
	# until cxl_mem has bound every memdev (its endpoint port is enumerated)
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		memdevs_ready && return 0
		sleep 1
	done
	ls /sys/bus/cxl/devices/
	dmesg | grep -i -E 'cxl|mem[0-9]|port' | tail -n 30
	echo "memdevs with serials $CXL_SERIALS not all bound after 20 s"
	return 1
}

modprobe_cxl() {
	cxl_modules || return 1
	before=$(ls -d /sys/bus/cxl/devices/region* 2>/dev/null | wc -l)
	# one memdev (the first, serial 4096), one pmem region (its namespace
	# labels live in the LSA)
	cxl create-region -t pmem -d decoder0.0 -w 1 -m $(memdev_by_serial 4096)
	# (ndctl 76.1's cxl exits 0 when it created no region)
	if [ "$(ls -d /sys/bus/cxl/devices/region* 2>/dev/null | wc -l)" -le "$before" ]; then
		dmesg | grep -i cxl | tail -n 60
		echo "cxl create-region made no region"
		return 1
	fi
}

# Two fsdax namespaces in the region: the filesystem's two devices.
# Creating them again with the same sizes lays them out the same way.
make_namespaces() {
	ndctl create-namespace -r region0 -m fsdax -s 240M
	ndctl create-namespace -r region0 -m fsdax -s 240M
	ls -l /dev/pmem*
	[ -b $DEV ] && [ -b $DEV1 ]
}

dmesg_clean() {
	if dmesg | grep -E 'Oops|WARNING:|BUG:|Call Trace:'; then
		return 1
	fi
	echo "no oops/WARN/BUG in dmesg"
}
