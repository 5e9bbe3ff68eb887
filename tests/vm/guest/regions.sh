#!/bin/sh
# Sourced by kmod.sh, first, while both memdevs are free: famfsd creates
# CXL pmem regions and their fsdax namespaces through libcxl/libndctl
# (famfs-cli apply -> POST /v1/regions) over one memdev and over two
# (2-way interleave), undoes a region whose namespace the kernel refuses,
# refuses a busy memdev, and removes regions with apply --prune. Nothing
# is left at the end, so the kmod checks start from clean memdevs.
M0=4096    # the memdevs' serials (vm-boot.sh: cxl-type3 sn=)
M1=4097
RY=/tmp/regions.yaml

# The cluster file: both memdevs, then the regions: lines given.
region_yaml() {
	cat >$RY <<EOF
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: vm}
hosts: [{name: guest, endpoint: $SOCK, role: master}]
devices:
  - {name: m0, cxl: {serial: $M0}}
  - {name: m1, cxl: {serial: $M1}}
EOF
	printf '%s\n' "$@" >>$RY
	cat $RY
}

# cxl/ndctl's own view, without blanks, for grep.
cxl_regions() { cxl list -R 2>/dev/null | tr -d ' \n'; }
cxl_decoders() { cxl list -D -d endpoint 2>/dev/null | tr -d ' \n'; }
nd_namespaces() { ndctl list -N 2>/dev/null | tr -d ' \n'; }

# run_to FILE CMD...: CMD's output in FILE and on the console; CMD's status.
run_to() {
	out=$1
	shift
	rc=0
	"$@" >"$out" 2>&1 || rc=$?
	cat "$out"
	return $rc
}

# No region, no endpoint capacity taken, no namespace, nothing in famfsd.
nothing_left() {
	echo "regions: $(cxl_regions)"
	echo "namespaces: $(nd_namespaces)"
	not grep -q '"region"' <<EOF
$(cxl_regions)
EOF
	not grep -q -E '"dpa_size":[1-9]' <<EOF
$(cxl_decoders)
EOF
	not grep -q '"dev"' <<EOF
$(nd_namespaces)
EOF
	famfs-cli get regions --no-headers >/tmp/regions.out
	cat /tmp/regions.out
	[ ! -s /tmp/regions.out ]
}

# famfsd's device NAME: its path, checked to be an online fsdax block device.
region_device() {
	famfs-cli get devices "$1" -o wide >/tmp/dev.out
	cat /tmp/dev.out >&2
	grep -q ' online ' /tmp/dev.out
	p=$(famfs-cli get devices "$1" -o json |
		sed -n 's/.*"path": *"\([^"]*\)".*/\1/p' | head -n 1)
	[ -b "$p" ]
	echo "$p"
}

region_start() {
	cxl_modules
	famfsd_start
	nothing_left
}

region_one_memdev() {
	region_yaml "regions:" "  - {name: r1, memdevs: [m1], ways: 1}"
	famfs-cli apply $RY
	cxl_regions
	grep -q '"interleave_ways":1' <<EOF
$(cxl_regions)
EOF
	grep -q '"mode":"fsdax"' <<EOF
$(nd_namespaces)
EOF
	region_device r1
	famfs-cli get regions
}

region_apply_idempotent() {
	run_to /tmp/apply.out famfs-cli apply $RY
	grep -q '^No changes' /tmp/apply.out
}

# m1 is r1's: a region over m0 and m1 is refused, naming m1 by what the
# request called it, and nothing is created.
region_memdev_busy() {
	before=$(cxl_regions)
	# validate refuses m1 in two regions before asking famfsd
	region_yaml "regions:" "  - {name: r1, memdevs: [m1]}" \
		"  - {name: r2, memdevs: [m0, m1]}"
	run_to /tmp/validate.out refuse famfs-cli validate $RY
	grep -q "memdev 'm1' is already in region 'r1'" /tmp/validate.out
	# famfsd refuses it too: a file that drops r1 but keeps it on the
	# host (no --prune) asks famfsd for r2 over a busy m1
	region_yaml "regions:" "  - {name: r2, memdevs: [m0, m1], ways: 2}"
	run_to /tmp/apply.out refuse famfs-cli apply $RY
	grep -q "memdev '$M1' (mem[0-9]*) is already in region region[0-9]*" \
		/tmp/apply.out
	[ "$(cxl_regions)" = "$before" ]
	not famfs-cli get regions r2
}

# famfsd's last lines and the kernel's, for a failed check; fails.
famfsd_tail() {
	sed 's/^/famfsd: /' $FDLOG | tail -n 15
	dmesg | tail -n 20
	return 1
}

region_prune() {
	region_yaml
	run_to /tmp/apply.out famfs-cli apply --prune $RY || famfsd_tail
	grep -q 'delete region r1' /tmp/apply.out
	nothing_left
}

# The region is made, then the kernel refuses the namespace's alignment
# (16 MiB is not among the fsdax alignments): the region is undone.
region_rollback() {
	region_yaml "regions:" \
		"  - {name: r2, memdevs: [m0, m1], ways: 2, align: 16MiB}"
	run_to /tmp/apply.out refuse famfs-cli apply $RY
	grep -q 'setting the alignment' /tmp/apply.out
	grep -q 'was removed again' /tmp/apply.out
	nothing_left
}

region_two_memdevs() {
	region_yaml "regions:" \
		"  - {name: r2, memdevs: [m0, m1], ways: 2, granularity: 4KiB}" \
		"sets:" "  - {name: s2, devices: [r2]}"
	famfs-cli apply $RY
	cxl_regions
	grep -q '"interleave_ways":2,"interleave_granularity":4096' <<EOF
$(cxl_regions)
EOF
	region_device r2
	famfs-cli get sets s2
	run_to /tmp/apply.out famfs-cli apply $RY
	grep -q '^No changes' /tmp/apply.out
}

region_cleanup() {
	region_yaml
	run_to /tmp/apply.out famfs-cli apply --prune $RY
	grep -q 'delete set s2' /tmp/apply.out
	grep -q 'delete region r2' /tmp/apply.out
	nothing_left
	famfsd_stop
}

check region_start region_start
check region_one_memdev region_one_memdev
check region_apply_idempotent region_apply_idempotent
check region_memdev_busy region_memdev_busy
check region_prune region_prune
check region_rollback region_rollback
check region_two_memdevs region_two_memdevs
check region_cleanup region_cleanup
