#!/bin/sh
# famfs.guest=replay: bench/kmod/replay.sh's guest, in two boots on the
# same CXL memory and label files.
#  famfs.replay=prep  lay out one fsdax namespace over the whole first
#                     memdev and write a marker at its offset 0; the host
#                     finds the marker in the memory backing file and
#                     copies a log made there (bench_mount --make) to it
#  famfs.replay=run   lay out the same namespace again and time
#                     famfs.replay_rounds (default 3) client kernel mounts
#                     of it against a CRC pass of the log (famfs-vmcheck
#                     replay-bench)
. /tests/lib.sh

STEP=$(sed -n 's/.*famfs\.replay=\([a-z]*\).*/\1/p' /proc/cmdline)
ROUNDS=$(sed -n 's/.*famfs\.replay_rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
MARK=FAMFS-KREPLAY-MARK

# The namespace over all of region0; created again with the same
# arguments it lays out the same way (guest/client.sh). Its page structs
# in RAM (-M mem): in the device they would cost a write of 64 bytes per
# 4 KiB of it through the emulated CXL window at every boot.
replay_namespace() {
	if ! modprobe_cxl; then
		# where the window lies against the guest's RAM
		grep -v '^  ' /proc/iomem
		d=/sys/bus/cxl/devices/decoder0.0
		echo "window $(cat $d/start) size $(cat $d/size)"
		return 1
	fi
	if [ "$STEP" = run ]; then
		ndctl disable-region region0
		ndctl init-labels -f all
		ndctl enable-region region0
	fi
	ndctl create-namespace -r region0 -m fsdax -M mem
	[ -b $DEV ]
	echo "pmem0 bytes $(($(cat /sys/block/pmem0/size) * 512))"
}

replay_prep() {
	printf '%s' "$MARK" >/tmp/mark
	dd if=/tmp/mark of=$DEV conv=notrunc 2>&1
	sync
}

replay_run() {
	modprobe famfs
	mkdir -p $MNT
	grep -E 'MemTotal|MemAvailable|Slab' /proc/meminfo
	famfs-vmcheck replay-bench $MNT "${ROUNDS:-3}" $DEV
	grep -E 'MemAvailable|Slab' /proc/meminfo
}

check replay_namespace replay_namespace
case "$STEP" in
prep) check replay_prep replay_prep ;;
run) check replay_run replay_run ;;
*) echo "famfs.replay=prep|run missing"; failed=1 ;;
esac
check dmesg_clean dmesg_clean
exit $failed
