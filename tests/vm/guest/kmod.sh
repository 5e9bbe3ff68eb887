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

# P1c (bench/results/kmod.md): mmap read of a file interleaved over
# both devices vs the same bytes in a devdax namespace of the same region,
# removed afterwards (the later checks need the space). Asserts matching
# bytes and PMD faults, never a time. `make check` runs one round of a
# 16 MiB file (8 chunks: every strip on both devices, PMD faults; the
# assertions hold in each round and at any size, and each MiB costs ~0.3
# s of guest time under TCG); famfs.bench_rounds=5 famfs.bench_mib=64 on
# the kernel command line (FAMFS_VM_KARGS) for the figure in
# bench/results/kmod.md.
BENCH_ROUNDS=$(sed -n 's/.*famfs\.bench_rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
BENCH_MIB=$(sed -n 's/.*famfs\.bench_mib=\([0-9]*\).*/\1/p' /proc/cmdline)
BENCH_MIB=${BENCH_MIB:-16}
bench_mmap() {
	famfs-vmcheck grow $MNT /bench 10 4 $BENCH_MIB
	famfs-cli mount --replay $MNT
	# the devdax namespace: the file and the region's 16 MiB alignment
	ndctl create-namespace -r region0 -m devdax -M mem -a 2M \
		-s $((BENCH_MIB + 16))M >/tmp/bench-ns.json
	ns=$(sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p' /tmp/bench-ns.json)
	dax=$(sed -n 's/.*"chardev":"\(dax[0-9.]*\)".*/\1/p' /tmp/bench-ns.json)
	rc=0
	famfs-vmcheck bench $MNT/bench /dev/$dax ${BENCH_ROUNDS:-1} || rc=$?
	ndctl destroy-namespace -f "$ns"
	return $rc
}
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

# Until FILE exists; no deadline of its own (the guest's timeout is one).
# wait_file FILE PID: until FILE exists; fails after 60 s or when the
# process PID that is to create it has gone.
wait_file() {
	i=0
	while [ ! -e "$1" ]; do
		if ! kill -0 "$2" 2>/dev/null; then
			echo "process $2 ended before it made $1"
			return 1
		fi
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			echo "timed out after 60 s waiting for $1"
			return 1
		fi
		sleep 0.1
	done
}

# A file deleted while a process maps it, its memory then given to a new
# file (docs/kmod.md, "Deletes"): the name goes at once; the process's
# mapping stays valid and on the same memory (it reads what the master
# writes there); the mount adds the new file only once the process is
# gone.
delete_reuse() {
	famfs-vmcheck grow $MNT /victim 5 2 4
	famfs-cli mount --replay $MNT
	famfs-vmcheck verify-read $MNT/victim 5
	rm -f /tmp/hold /tmp/hold.ready
	famfs-vmcheck hold $MNT/victim 5 /tmp/hold 9 &
	holder=$!
	wait_file /tmp/hold.ready $holder
	famfs-vmcheck reuse $MNT /victim /reuse 9
	famfs-cli mount --replay $MNT | tee /tmp/replay.out
	grep -q ' 1 removed,' /tmp/replay.out
	grep -q ' 1 waiting' /tmp/replay.out
	not test -e $MNT/victim
	not test -e $MNT/reuse
	# still waiting: the memory is the removed file's while it is mapped
	famfs-cli mount --replay $MNT | grep ' 1 waiting'
	touch /tmp/hold
	wait $holder
	famfs-cli mount --replay $MNT | tee /tmp/replay.out
	grep -q ' 1 new files,' /tmp/replay.out
	famfs-vmcheck verify-mmap $MNT/reuse 9
	famfs-vmcheck write-mmap $MNT/reuse 6
	famfs-vmcheck verify-read $MNT/reuse 6
}

# A RENAME entry (format 1.2) on a kernel mount (docs/kmod.md): the module
# has no rename, so the follower removes the old name and adds the same
# inode, map and attributes at the new one.
rename_follow() {
	famfs-vmcheck grow $MNT /mv_src 7 2 4
	famfs-cli mount --replay $MNT
	ino=$(stat -c %i $MNT/mv_src)
	famfs-vmcheck rename $MNT /mv_src /dir/mv_dst
	famfs-cli mount --replay $MNT
	not test -e $MNT/mv_src
	[ "$(stat -c %i $MNT/dir/mv_dst)" = "$ino" ]
	famfs-vmcheck verify-read $MNT/dir/mv_dst 7
	famfs-vmcheck verify-mmap $MNT/dir/mv_dst 7
}

# SYMLINK entries (format 1.3) on a kernel mount (docs/kmod.md): the
# follower makes symlink inodes (get_link, the target in memory); a file
# reads through an HF-hub snapshots/main/... link with read() and mmap(),
# readlink gives the target verbatim, a rename and a delete of a link are
# followed, and the VFS may not change a link.
symlink_follow() {
	famfs-vmcheck symlink $MNT /hf/snapshots/main/weights.bin \
		../../../dir/mv_dst
	famfs-vmcheck symlink $MNT /hf/latest snapshots/main
	famfs-vmcheck symlink $MNT /hf/dangling /no/such/../x
	famfs-cli mount --replay $MNT | tee /tmp/replay.out
	grep -q ' 3 new symlinks,' /tmp/replay.out
	[ -L $MNT/hf/snapshots/main/weights.bin ]
	[ "$(readlink $MNT/hf/snapshots/main/weights.bin)" = \
	  "../../../dir/mv_dst" ]
	[ "$(readlink $MNT/hf/dangling)" = "/no/such/../x" ]
	[ "$(stat -c '%s %a' $MNT/hf/dangling)" = "13 777" ]
	famfs-vmcheck verify-read $MNT/hf/snapshots/main/weights.bin 7
	famfs-vmcheck verify-mmap $MNT/hf/latest/weights.bin 7
	not test -e $MNT/hf/dangling
	not ln -s x $MNT/hf/vfs-link
	not rm $MNT/hf/dangling
	ino=$(stat -c %i $MNT/hf/latest)
	famfs-vmcheck rename $MNT /hf/latest /hf/current
	famfs-cli mount --replay $MNT
	not test -L $MNT/hf/latest
	[ "$(stat -c %i $MNT/hf/current)" = "$ino" ]
	famfs-vmcheck verify-read $MNT/hf/current/weights.bin 7
}

# An EXCHANGE entry (format 1.5) on a kernel mount (docs/kmod.md): the
# follower syncs up to the entry, then swaps the two names in the module
# in one step (FAMFS_IOC_EXCHANGE, under the VFS's rename locks): nothing
# is removed and added again, a directory opened before the switch is the
# same one after it (under the other name), a file and a directory swap
# too, and a directory cannot swap with its own descendant.
exchange_follow() {
	famfs-vmcheck symlink $MNT /gen1/d/l one
	famfs-vmcheck symlink $MNT /gen2/d/l two
	famfs-vmcheck grow $MNT /gen1/d/f 5 1 2
	famfs-vmcheck grow $MNT /gen2/d/f 6 1 2
	famfs-cli mount --replay $MNT
	i1=$(stat -c %i $MNT/gen1)
	i2=$(stat -c %i $MNT/gen2)
	famfs-vmcheck verify-read $MNT/gen1/d/f 5
	exec 3<$MNT/gen1/d
	famfs-vmcheck exchange $MNT /gen2 /gen1
	famfs-cli mount --replay $MNT | tee /tmp/replay.out
	grep -q ' 1 exchanged' /tmp/replay.out
	grep -q ' 0 removed,' /tmp/replay.out
	[ "$(stat -c %i $MNT/gen1)" = "$i2" ]
	[ "$(stat -c %i $MNT/gen2)" = "$i1" ]
	famfs-vmcheck verify-read $MNT/gen1/d/f 6
	famfs-vmcheck verify-mmap $MNT/gen2/d/f 5
	[ "$(readlink $MNT/gen1/d/l)" = two ]
	# the directory opened before the switch: the same, now under gen2
	[ "$(readlink /proc/self/fd/3)" = "$MNT/gen2/d" ]
	exec 3<&-
	famfs-vmcheck exchange $MNT /gen1/d/f /gen2
	famfs-cli mount --replay $MNT | tee /tmp/replay.out
	grep -q ' 1 exchanged' /tmp/replay.out
	[ -d $MNT/gen1/d/f ] && [ -f $MNT/gen2 ]
	famfs-vmcheck verify-read $MNT/gen2 6
	[ "$(readlink $MNT/gen1/d/f/d/l)" = one ]
	refuse famfs-vmcheck exchange $MNT /gen1 /gen1/d/f/d
}

# A SETATTR of a file the mount has already: the follower applies it.
setattr_follow() {
	famfs-vmcheck chmod $MNT /dir/mv_dst 0640
	famfs-cli mount --replay $MNT
	stat -c '%a %u %Y' $MNT/dir/mv_dst
	[ "$(stat -c '%a %u %Y' $MNT/dir/mv_dst)" = "640 1234 1000000000" ]
	famfs-vmcheck verify-read $MNT/dir/mv_dst 7
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

# bench/kmod/replay.sh's replay-bench on this small filesystem: a client
# kernel mount, its CRC baseline and the unmount, once; its numbers mean
# nothing here (bench/results/kmod.md has the large logs').
replay_bench() {
	unmounted
	famfs-vmcheck replay-bench $MNT 1 $DEV $DEV1 | tee /tmp/replay-bench.out
	grep -q '^BENCH kmod_replay' /tmp/replay-bench.out
	not mounted
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

# A byte flipped in the last committed entry (docs/format.md "The
# committed tail"): the replay into the module applies the same rule as
# every reader (it is libfamfs's): fsck says corrupt (exit 4), a kernel
# mount is refused naming what is lost, --force mounts the files before it.
corrupt_log_refused() {
	unmounted
	off=$(famfs-cli log -o table --no-headers $DEV $DEV1 | tail -n 1 |
	      awk '{print $3}')
	[ -n "$off" ]
	at=$((2097152 + off + 39))  # the top byte of the entry's logged_ns
	dd if=$DEV of=/tmp/entry.save bs=1 skip=$at count=1 2>/dev/null
	printf '\377' | dd of=$DEV bs=1 seek=$at conv=notrunc 2>/dev/null
	sync
	rc=0
	famfs-cli fsck $DEV $DEV1 >/tmp/fsck.out 2>&1 || rc=$?
	cat /tmp/fsck.out
	[ $rc -eq 4 ]
	grep -q 'error: log: committed seq' /tmp/fsck.out
	refuse famfs-cli mount --kernel --client $DEV $DEV1 $MNT >/tmp/mnt.out
	cat /tmp/mnt.out
	grep -q 'refused: the metadata log is corrupt' /tmp/mnt.out
	not mounted
	famfs-cli mount --kernel --client --force $DEV $DEV1 $MNT
	[ -f $IL ] && [ -f $PLAIN ]
	famfs-cli umount $MNT
	dd if=/tmp/entry.save of=$DEV bs=1 seek=$at conv=notrunc 2>/dev/null
	sync
	famfs-cli fsck $DEV $DEV1
}

missing_device_refused() {
	unmounted
	refuse famfs-cli mount --kernel $DEV $MNT
	dmesg | grep 'the filesystem has 2 devices'
	# device 1 named as device 0: no superblock there
	refuse mount -t famfs -o dev=$DEV $DEV1 $MNT
	not mounted
}

# Nine 16 MiB (the region's alignment) fsdax namespaces of the region as
# one filesystem (more than the module's old limit of 8), then a tenth
# added while it is mounted.
MANY=/mnt/many
many_devices() {
	modprobe famfs
	: >/tmp/many.devs
	# three more for famfsd's kernel backend checks (guest/famfsd.sh:
	# two for the set, one it grows by); struct pages in RAM (-M mem):
	# nothing to write on the device
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do
		ndctl create-namespace -r region0 -m fsdax -M mem -s 16M \
			>/tmp/ns.json
		sed -n 's/.*"blockdev":"\([^"]*\)".*/\/dev\/\1/p' \
			/tmp/ns.json >>/tmp/many.devs
	done
	cat /tmp/many.devs
	[ "$(wc -l </tmp/many.devs)" = 13 ]
	sed -n '11,13p' /tmp/many.devs >/tmp/famfsd.devs
	sed -i '11,13d' /tmp/many.devs
	nine=$(head -n 9 /tmp/many.devs | tr '\n' ' ')
	famfs-vmcheck mkfs $nine
	mkdir -p $MANY
	famfs-cli mount --kernel $nine $MANY
	[ -f $MANY/.meta/dev8 ]
	famfs-vmcheck grow $MANY /wide 7 9 18 | tee /tmp/grow.out
	grep -q ': dev 8 ' /tmp/grow.out
	famfs-cli mount --replay $MANY
	famfs-vmcheck verify-mmap $MANY/wide 7
}

device_add() {
	new=$(tail -n 1 /tmp/many.devs)
	meta=""
	for i in 0 1 2 3 4 5 6 7 8; do meta="$meta -d $MANY/.meta/dev$i"; done
	famfs-cli adddev $meta $new
	# the log names the new device by its label only: give candidates
	famfs-cli mount --replay $MANY $new | tee /tmp/replay.out
	grep -q ' 1 added devices' /tmp/replay.out
	[ -f $MANY/.meta/dev9 ]
	famfs-vmcheck grow $MANY /onnew 8 10 20 | tee /tmp/grow.out
	grep -q ': dev 9 ' /tmp/grow.out
	famfs-cli mount --replay $MANY
	famfs-vmcheck verify-mmap $MANY/onnew 8
	famfs-cli umount $MANY
	# a new mount takes all ten; the tenth again from the log
	famfs-cli mount --kernel --client $(cat /tmp/many.devs) $MANY |
		tee /tmp/mount.out
	grep -q '1 added devices' /tmp/mount.out
	famfs-vmcheck verify-read $MANY/onnew 8
	famfs-cli umount $MANY
}

rmmod_clean() {
	unmounted
	rmmod famfs
	not grep -q famfs /proc/modules
}

# famfsd's regions first, while both memdevs are free (guest/regions.sh)
. /tests/regions.sh
check cxl_fsdax cxl_setup
check insmod insmod_famfs
check mkfs do_mkfs
check populate do_populate
check mount do_mount
check write_patterns write_patterns
check readback verify_all
check cross_chunks cross_chunks
check pmd_fault pmd_fault
check bench_mmap bench_mmap
check map_size map_size
check bad_maps bad_maps
check vfs_refuses vfs_refuses
check live_create live_create
check delete_reuse delete_reuse
check rename_follow rename_follow
check setattr_follow setattr_follow
check symlink_follow symlink_follow
check exchange_follow exchange_follow
check umount do_umount
check remount_replay remount_replay
check replay_bench replay_bench
check client_readonly client_readonly
check nondax_refused nondax_refused
check missing_device_refused missing_device_refused
check corrupt_sb_refused corrupt_sb_refused
check corrupt_log_refused corrupt_log_refused
check rmmod rmmod_clean
check famfsd_discovery discovery_matches
check discovery_catches_wrong discovery_catches_wrong
check wrong_mode_sector wrong_mode_sector
check wrong_mode_system_ram wrong_mode_system_ram
check many_devices many_devices
check device_add device_add
check famfsd_kernel_mount famfsd_kernel_mount
check famfsd_kernel_files famfsd_kernel_files
check famfsd_kernel_grow famfsd_kernel_grow
check famfsd_kernel_second_refused famfsd_kernel_second_refused
check famfsd_kernel_adopt famfsd_kernel_adopt
check dmesg_clean dmesg_clean
dmesg | grep -i -E 'famfs|dax' | tail -n 30 | sed 's/^/dmesg: /'
exit $failed
