# Sourced by the guest scripts: the device, the mount, the files, and
# the check runner whose lines the host reads.
DEV=/dev/pmem0       # device 0: superblock and log
DEV1=/dev/pmem0.1    # device 1: a second namespace of the same region
MNT=/mnt/famfs
IL=$MNT/dir/il       # interleaved: 4 strips, 2 MiB chunks
PLAIN=$MNT/plain     # one extent
SMALL=$MNT/small     # packed at 4 KiB
LIVE=$MNT/live       # created while mounted, through .meta/dev0

failed=0
check() {
	name=$1
	shift
	echo "FAMFS-VM-RUN $name"
	# not in an if: errexit must stay live inside the check
	( set -e; "$@" ) 2>&1
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

# The CXL stack, until both memdevs are there.
cxl_modules() {
	for m in cxl_acpi cxl_pci cxl_mem cxl_pmem nd_pmem nd_btt dax_pmem \
		 device_dax kmem; do
		modprobe $m
	done
	for i in 1 2 3 4 5 6 7 8 9 10; do
		memdev_by_serial 4096 >/dev/null &&
			memdev_by_serial 4097 >/dev/null && break
		sleep 1
	done
}

modprobe_cxl() {
	cxl_modules
	# one memdev (the 1 GiB one, serial 4096), one pmem region (its
	# namespace labels live in the LSA)
	cxl create-region -t pmem -d decoder0.0 -w 1 -m $(memdev_by_serial 4096)
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
