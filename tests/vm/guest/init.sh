#!/bin/sh
# /init of the kmod test guest: mounts the pseudo filesystems, runs
# /tests/NAME.sh for famfs.guest=NAME on the kernel command line (kmod
# unless given), reports on the serial console and powers off.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
hostname famfs-guest

echo "FAMFS-VM-BEGIN kernel=$(uname -r) uptime=$(cut -d' ' -f1 /proc/uptime)"
guest=$(sed -n 's/.*famfs\.guest=\([a-z]*\).*/\1/p' /proc/cmdline)
sh /tests/${guest:-kmod}.sh
echo "FAMFS-VM-END rc=$? uptime=$(cut -d' ' -f1 /proc/uptime)"
sync
poweroff -f
