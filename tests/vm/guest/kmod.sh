#!/bin/sh
# The kmod checks, run inside the guest by /init (famfs.guest=kmod). Each
# check prints FAMFS-VM-RUN name ... FAMFS-VM-TEST name PASS|FAIL and the
# host turns each into one ctest (vm.kmod.name).
. /tests/lib.sh
. /tests/famfsd.sh

cxl_setup() {
	modprobe_cxl
	make_namespaces
}

insmod_famfs() {
	modprobe famfs
	grep -q famfs /proc/filesystems
	modinfo famfs | grep -E '^(filename|vermagic)'
}

do_mkfs() { famfs-vmcheck mkfs $DEV $DEV1; }
do_populate() { famfs-vmcheck populate $DEV $DEV1; }

do_mount() {
	mkdir -p $MNT
	famfs-cli mount --kernel $DEV $DEV1 $MNT
	mounted
	ls -laR $MNT
	[ -f $IL ] && [ -f $PLAIN ] && [ -f $SMALL ]
	[ -f $MNT/.meta/dev0 ] && [ -f $MNT/.meta/dev1 ]
}

write_patterns() {
	famfs-vmcheck write-mmap $IL 1
	famfs-vmcheck write-io $PLAIN 2
	famfs-vmcheck write-io $SMALL 3
}

verify_all() {
	famfs-vmcheck verify-read $IL 1
	famfs-vmcheck verify-mmap $IL 1
	famfs-vmcheck verify-read $PLAIN 2
	famfs-vmcheck verify-mmap $PLAIN 2
	famfs-vmcheck verify-read $SMALL 3
	famfs-vmcheck verify-mmap $SMALL 3
}

cross_chunks() {
	famfs-vmcheck rw-cross $IL 1
	famfs-vmcheck verify-read $IL 1
}
pmd_fault() { famfs-vmcheck pmd $IL; }
map_size() {
	famfs-vmcheck mapinfo $IL
	famfs-vmcheck mapinfo $PLAIN
}
bad_maps() { famfs-vmcheck badmaps $MNT; }

vfs_refuses() {
	refuse touch $MNT/newfile
	refuse mkdir $MNT/newdir
	refuse rm -f $PLAIN
	refuse truncate -s 0 $PLAIN
	refuse chmod 600 $PLAIN
	refuse chown 1:1 $PLAIN
	refuse mv $PLAIN $MNT/moved
	refuse ln $PLAIN $MNT/hardlink
	[ -f $PLAIN ]
	# a write past the end of a file is refused, the file does not grow
	size=$(stat -c %s $PLAIN)
	refuse sh -c "echo x >> $PLAIN"
	[ "$(stat -c %s $PLAIN)" = "$size" ]
}

live_create() {
	famfs-vmcheck live $MNT /live 4
	famfs-cli mount --replay $MNT
	famfs-vmcheck verify-read $LIVE 4
	famfs-vmcheck verify-mmap $LIVE 4
}

do_umount() {
	famfs-cli umount $MNT
	not mounted
	[ ! -e $PLAIN ]
}

remount_replay() {
	unmounted
	# devices in any order: famfs-cli orders them by their labels
	famfs-cli mount --kernel $DEV1 $DEV $MNT
	famfs-vmcheck verify-read $IL 1
	famfs-vmcheck verify-mmap $PLAIN 2
	famfs-vmcheck verify-read $SMALL 3
	famfs-vmcheck verify-mmap $LIVE 4
	famfs-cli umount $MNT
}

client_readonly() {
	unmounted
	famfs-cli mount --kernel --client $DEV $DEV1 $MNT
	grep " $MNT famfs ro" /proc/mounts
	famfs-vmcheck verify-mmap $IL 1
	famfs-vmcheck verify-read $PLAIN 2
	famfs-vmcheck expect-rofs $PLAIN
	famfs-cli umount $MNT
}

nondax_refused() {
	unmounted
	dd if=/dev/zero of=/tmp/loop.img bs=1M count=64 2>/dev/null
	modprobe loop
	losetup /dev/loop0 /tmp/loop.img
	refuse famfs-cli mount --kernel /dev/loop0 $MNT
	refuse mount -t famfs /dev/loop0 $MNT
	refuse mount -t famfs -o dev=/dev/loop0 $DEV $MNT
	not mounted
	dmesg | grep 'not a DAX device'
	losetup -d /dev/loop0
}

corrupt_sb_refused() {
	unmounted
	dd if=$DEV of=/tmp/sb.save bs=4096 skip=1 count=1 2>/dev/null
	# flip bytes inside the superblock (offset 4 KiB), past its magic
	printf 'garbage!' | dd of=$DEV bs=1 seek=4200 conv=notrunc 2>/dev/null
	sync
	refuse famfs-cli mount --kernel $DEV $MNT
	refuse mount -t famfs $DEV $MNT
	not mounted
	dmesg | grep 'superblock checksum mismatch'
	# the refusal is about the bytes, not sticky: restored, it mounts
	dd if=/tmp/sb.save of=$DEV bs=4096 seek=1 count=1 conv=notrunc \
		2>/dev/null
	sync
	famfs-cli mount --kernel --client $DEV $DEV1 $MNT
	famfs-cli umount $MNT
}

missing_device_refused() {
	unmounted
	refuse famfs-cli mount --kernel $DEV $MNT
	dmesg | grep 'the filesystem has 2 devices'
	# device 1 named as device 0: no superblock there
	refuse mount -t famfs -o dev=$DEV $DEV1 $MNT
	not mounted
}

rmmod_clean() {
	unmounted
	rmmod famfs
	not grep -q famfs /proc/modules
}

check cxl_fsdax cxl_setup
check insmod insmod_famfs
check mkfs do_mkfs
check populate do_populate
check mount do_mount
check write_patterns write_patterns
check readback verify_all
check cross_chunks cross_chunks
check pmd_fault pmd_fault
check map_size map_size
check bad_maps bad_maps
check vfs_refuses vfs_refuses
check live_create live_create
check umount do_umount
check remount_replay remount_replay
check client_readonly client_readonly
check nondax_refused nondax_refused
check missing_device_refused missing_device_refused
check corrupt_sb_refused corrupt_sb_refused
check rmmod rmmod_clean
check famfsd_discovery discovery_matches
check discovery_catches_wrong discovery_catches_wrong
check wrong_mode_sector wrong_mode_sector
check wrong_mode_system_ram wrong_mode_system_ram
check dmesg_clean dmesg_clean
dmesg | grep -i -E 'famfs|dax' | tail -n 30 | sed 's/^/dmesg: /'
exit $failed
