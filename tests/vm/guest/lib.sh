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

modprobe_cxl() {
	for m in cxl_acpi cxl_pci cxl_mem cxl_pmem nd_pmem nd_btt dax_pmem \
		 device_dax kmem; do
		modprobe $m
	done
	# until cxl_mem has bound mem0 (its endpoint port is enumerated)
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		[ -e /sys/bus/cxl/devices/mem0/driver ] && break
		sleep 1
	done
	if [ ! -e /sys/bus/cxl/devices/mem0/driver ]; then
		ls /sys/bus/cxl/devices/
		dmesg | grep -i -E 'cxl|mem0|port' | tail -n 30
		echo "mem0 has no driver after 20 s"
		return 1
	fi
	# one memdev, one pmem region (its namespace labels live in the LSA)
	# (ndctl 76.1's cxl exits 0 when it created no region)
	cxl create-region -t pmem -d decoder0.0 -w 1 -m mem0
	if [ ! -e /sys/bus/nd/devices/region0 ]; then
		dmesg | grep -i cxl | tail -n 60
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
