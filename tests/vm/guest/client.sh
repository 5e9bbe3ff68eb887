#!/bin/sh
# The second host (famfs.guest=client): booted on the same CXL memory and
# label backing files the first guest left behind, it mounts the
# filesystem as a client and reads the master's files.
. /tests/lib.sh

shared_region() {
	modprobe_cxl
	# This host's new region has its own identity, so the first host's
	# namespace labels (in the shared label area) do not instantiate on
	# it and still claim its capacity: re-initialize the labels and lay
	# out the same fsdax namespace again. Neither writes the namespace's
	# data area, where famfs lives.
	ndctl disable-region region0
	ndctl init-labels -f all
	ndctl enable-region region0
	make_namespaces
	[ -b $DEV ] && [ -b $DEV1 ]
}

shared_mount() {
	modprobe famfs
	mkdir -p $MNT
	famfs-cli mount --kernel --client $DEV $DEV1 $MNT
	ls -lR $MNT
}

shared_reads() {
	famfs-vmcheck verify-read $IL 1
	famfs-vmcheck verify-mmap $PLAIN 2
	famfs-vmcheck verify-read $SMALL 3
	famfs-vmcheck verify-mmap $LIVE 4
}

shared_umount() {
	famfs-cli umount $MNT
	rmmod famfs
}

check shared_region shared_region
check shared_mount shared_mount
check shared_reads shared_reads
check shared_umount shared_umount
check shared_dmesg_clean dmesg_clean
exit $failed
