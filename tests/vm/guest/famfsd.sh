#!/bin/sh
# Sourced by kmod.sh: famfsd with the cxl provider in the guest. Its
# discovery is compared field by field with ndctl's own tools
# (famfs-vmdiscover), and devices in a wrong mode are reported with what
# to run and never used.
SOCK=/run/famfsd.sock
export FAMFS_HOST=$SOCK
FDLOG=/tmp/famfsd.log
TOPO=/tmp/topo

# until CMD... succeeds, at most 20 s; fails (naming CMD) on the timeout
until_ok() {
	for i in $(seq 100); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "timed out waiting for: $*"
	return 1
}

# famfsd answers, at most 120 s after its start. Its socket appears once
# its first discovery is done (listen(), then rename() into place), so
# each try is a shell test, not a famfs-cli start (~0.5 s of CPU under
# TCG, taken from famfsd's own discovery); then famfsd must answer.
famfsd_ready() {
	pid=$(cat /tmp/famfsd.pid)
	for i in $(seq 600); do
		[ -S $SOCK ] && break
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "famfsd (pid $pid) exited before it listened"
			tail -n 20 $FDLOG
			return 1
		fi
		sleep 0.2
	done
	famfs-cli get devices >/dev/null
}

famfsd_start() {
	rm -rf /tmp/famfsd
	famfsd -f -s $SOCK -d /tmp/famfsd $FAMFSD_GUEST_PATHS -p /usr/lib/famfs/plugins \
		-n guest >$FDLOG 2>&1 &
	echo $! >/tmp/famfsd.pid
	famfsd_ready
	grep "loaded provider 'cxl'" $FDLOG
}

famfsd_stop() {
	kill "$(cat /tmp/famfsd.pid)"
	until_ok not kill -0 "$(cat /tmp/famfsd.pid)"
	sed 's/^/famfsd: /' $FDLOG | tail -n 20
}

# The reference listings and famfsd's view, taken back to back.
snapshot() {
	famfs-cli get topology -o json >$TOPO.famfsd.json
	cxl list -M -D -R -u >$TOPO.cxl.json
	daxctl list >$TOPO.daxctl.json
	ndctl list -N >$TOPO.ndctl.json
	for f in cxl daxctl ndctl; do
		[ -s $TOPO.$f.json ] || echo '[]' >$TOPO.$f.json
	done
}

compare() {
	famfs-vmdiscover $TOPO.famfsd.json $TOPO.cxl.json $TOPO.daxctl.json \
		$TOPO.ndctl.json
}

# A devdax namespace beside the two fsdax ones: the DAX device famfsd
# reports (and, in system-ram mode, refuses), and a sector-mode one (a
# namespace in a mode famfs cannot use).
make_dax_namespaces() {
	ndctl create-namespace -r region0 -m devdax -s 256M -a 2M
	ndctl create-namespace -r region0 -m sector -s 64M
	daxctl list
}

DAXDEV() { daxctl list | sed -n 's/.*"chardev":"\(dax[0-9.]*\)".*/\1/p' | head -n 1; }

discovery_matches() {
	make_dax_namespaces
	famfsd_start
	snapshot
	cat $TOPO.cxl.json $TOPO.daxctl.json $TOPO.ndctl.json
	famfs-cli get topology
	compare
}

# The comparison is not vacuous: one wrong field in famfsd's report (the
# memdev's pmem_size, the DAX device's mode, a namespace's size) fails
# it, naming the field.
discovery_catches_wrong() {
	cp $TOPO.famfsd.json $TOPO.good.json
	for edit in 's/"pmem_size": *\([0-9]*\)/"pmem_size": 1\1/' \
		    's/"mode": *"devdax"/"mode": "fsdax"/' \
		    's/"blockdev": *"pmem0"/"blockdev": "pmem9"/'; do
		sed "$edit" $TOPO.good.json >$TOPO.famfsd.json
		not cmp -s $TOPO.good.json $TOPO.famfsd.json
		refuse compare >/tmp/cmp.out
		grep MISMATCH /tmp/cmp.out
	done
	cp $TOPO.good.json $TOPO.famfsd.json
	compare >/dev/null
}

# The file apply is given: one set on the device named $1.
set_yaml() {
	cat >/tmp/wrong.yaml <<EOF
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: guest}
hosts:
  - {name: guest, endpoint: $SOCK, role: master}
devices:
  - {name: $1, cxl: {$2: $1}}
sets:
  - {name: wrongset, devices: [$1]}
EOF
}

# A namespace in sector mode: unusable, the reason says what to run, and
# apply refuses to build a set on it; its bytes are not touched.
wrong_mode_sector() {
	bdev=$(ndctl list -N -m sector |
		sed -n 's/.*"blockdev":"\([a-z0-9.]*\)".*/\1/p')
	[ -n "$bdev" ]
	before=$(dd if=/dev/$bdev bs=1M count=4 2>/dev/null | md5sum)
	snapshot
	compare
	famfs-cli describe device $bdev
	famfs-cli describe device $bdev | grep "ndctl create-namespace -f -e"
	set_yaml $bdev pmem
	refuse famfs-cli apply /tmp/wrong.yaml >/tmp/apply.out
	cat /tmp/apply.out
	grep -q "device $bdev is unusable: .*run 'ndctl create-namespace" \
		/tmp/apply.out
	[ "$(dd if=/dev/$bdev bs=1M count=4 2>/dev/null | md5sum)" = "$before" ]
}

# A DAX device onlined as system RAM: unusable with the command that
# gives it back, apply refuses it, its memory stays online.
wrong_mode_system_ram() {
	dax=$(DAXDEV)
	[ -n "$dax" ]
	daxctl reconfigure-device --mode=system-ram "$dax"
	daxctl list -d "$dax" | grep '"mode":"system-ram"'
	online=$(daxctl list -d "$dax" | sed -n 's/.*"online_memblocks":\([0-9]*\).*/\1/p')
	[ "${online:-0}" -gt 0 ]
	snapshot
	compare
	famfs-cli describe device "$dax" | grep "daxctl reconfigure-device --mode=devdax"
	set_yaml "$dax" dax
	refuse famfs-cli apply /tmp/wrong.yaml >/tmp/apply.out
	cat /tmp/apply.out
	grep -q "device $dax is unusable: .*system-ram.*run 'daxctl" /tmp/apply.out
	daxctl list -d "$dax" | grep "\"online_memblocks\":$online"
	famfsd_stop
}

# famfsd's kernel mount backend on the two fresh namespaces many_devices
# made for it: apply makes the filesystem and mounts it as master, with
# the backend famfsd picks (kernel: the module is loaded and the devices
# are fsdax).
KM=/mnt/kmaster
http() { famfs-vmcheck http $SOCK "$@"; }
kfree() {
	http GET /v1/filesystems/kfs | sed -n 's/.*"free": *\([0-9]*\).*/\1/p'
}
kmount_id() { awk -v m=$KM '$5 == m { print $1 }' /proc/self/mountinfo; }

# k_yaml DEV...: the cluster with a set kset of DEV... (/dev/pmemN.M).
k_yaml() {
	{
		cat <<EOY
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: guest}
hosts:
  - {name: guest, endpoint: $SOCK, role: master}
devices:
EOY
		for d in "$@"; do
			echo "  - {name: ${d#/dev/}, cxl: {pmem: ${d#/dev/}}}"
		done
		names=$(for d in "$@"; do printf '%s, ' "${d#/dev/}"; done)
		cat <<EOY
sets:
  - {name: kset, devices: [${names%, }]}
filesystems:
  - {name: kfs, set: kset, master: guest, logSize: 2097152}
mounts:
  - {filesystem: kfs, host: guest, path: $KM, role: master}
EOY
	} >/tmp/k.yaml
}

famfsd_kernel_mount() {
	a=$(sed -n 1p /tmp/famfsd.devs)
	b=$(sed -n 2p /tmp/famfsd.devs)
	famfsd_start
	k_yaml $a $b
	famfs-cli apply /tmp/k.yaml
	famfs-cli get mounts | tee /tmp/mounts.out
	head -n 1 /tmp/mounts.out | grep -w BACKEND
	grep -w kfs-master /tmp/mounts.out | grep -w kernel | grep -w mounted
	grep " $KM famfs rw" /proc/mounts
	[ -f $KM/.meta/dev0 ] && [ -f $KM/.meta/dev1 ]
}

# Files famfsd creates and deletes (its libfamfs master handle writes the
# log) show up in the kernel mount at once: famfsd follows the log.
famfsd_kernel_files() {
	http POST /v1/files '{"filesystem": "kfs", "path": "/d/one", "size": 4194304}'
	[ -f $KM/d/one ]
	http DELETE /v1/files/kfs/d/one
	not test -e $KM/d/one
	# a file larger than half the free space, twice: the second one
	# fits only on the memory the deleted first one gave back
	free=$(kfree)
	size=$(( (free / 2 / 4194304 + 1) * 4194304 ))
	echo "free $free, two files of $size"
	http POST /v1/files "{\"filesystem\": \"kfs\", \"path\": \"/big1\", \"size\": $size}"
	[ -f $KM/big1 ]
	http DELETE /v1/files/kfs/big1
	not test -e $KM/big1
	http POST /v1/files "{\"filesystem\": \"kfs\", \"path\": \"/big2\", \"size\": $size}"
	famfs-vmcheck write-mmap $KM/big2 13
	famfs-vmcheck verify-read $KM/big2 13
}

# Growth reaches the kernel mount: the set gains a third namespace in
# the file, apply grows the filesystem (famfsd, the log writer, appends
# DEVICE_ADD) and famfsd's follow hands the mount the new device; a file
# larger than all the space there was before fits and reads back.
famfsd_kernel_grow() {
	a=$(sed -n 1p /tmp/famfsd.devs)
	b=$(sed -n 2p /tmp/famfsd.devs)
	c=$(sed -n 3p /tmp/famfsd.devs)
	[ -n "$c" ]
	before=$(kfree)
	k_yaml $a $b $c
	famfs-cli diff /tmp/k.yaml | tee /tmp/diff.out || true
	grep "grow by ${c#/dev/}" /tmp/diff.out
	famfs-cli apply /tmp/k.yaml
	until_ok test -f $KM/.meta/dev2
	after=$(kfree)
	echo "free before $before, after $after"
	[ "$after" -gt "$before" ]
	size=$(( (before / 2097152 + 1) * 2097152 ))
	http POST /v1/files "{\"filesystem\": \"kfs\", \"path\": \"/grown\", \"size\": $size}"
	until_ok test -f $KM/grown
	famfs-vmcheck write-mmap $KM/grown 17
	famfs-vmcheck verify-read $KM/grown 17
	famfs-cli apply /tmp/k.yaml | grep "^No changes"
}

# A second kernel mount of the filesystem on this host is refused with
# the reason (one superblock per device); the client side of the same
# code (famfs_kmount_sync) is what follows famfsd's writes above.
famfsd_kernel_second_refused() {
	refuse http POST /v1/mounts "{\"name\": \"kfs-client\", \"filesystem\": \"kfs\", \"path\": \"/mnt/kclient\", \"role\": \"client\", \"backend\": \"kernel\"}" >/tmp/http.out
	cat /tmp/http.out
	grep -q -- '-> 409' /tmp/http.out
	grep -q 'once per host' /tmp/http.out
	not grep -q " /mnt/kclient " /proc/mounts
}

# famfsd stops: the kernel mount stays; famfsd starts again: it adopts
# the same mount (same mount id, not mounted again) and follows again.
famfsd_kernel_adopt() {
	id=$(kmount_id)
	[ -n "$id" ]
	famfsd_stop
	grep " $KM famfs " /proc/mounts
	famfsd -f -s $SOCK -d /tmp/famfsd $FAMFSD_GUEST_PATHS -p /usr/lib/famfs/plugins \
		-n guest >>$FDLOG 2>&1 &
	echo $! >/tmp/famfsd.pid
	famfsd_ready
	famfs-cli get mounts | grep -w kfs-master | grep -w mounted
	[ "$(kmount_id)" = "$id" ]
	http POST /v1/files '{"filesystem": "kfs", "path": "/after", "size": 2097152}'
	[ -f $KM/after ]
	famfs-vmcheck verify-read $KM/big2 13
	http DELETE /v1/mounts/kfs-master
	not grep -q " $KM famfs " /proc/mounts
	famfsd_stop
}
