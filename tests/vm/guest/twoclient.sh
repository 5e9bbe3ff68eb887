#!/bin/sh
# Host 2 of the two-host run (famfs.guest=twoclient), at the same time as
# host 1 (twomaster.sh) on the same CXL memory: its famfsd is made a
# client by host 1's apply; the files host 1 ingested read the same here
# through read() and mmap.
. /tests/twohost.sh

# Host 1's namespace labels (in the shared label area) do not instantiate
# in this host's region, which has its own identity: once host 1 made
# them, re-initialize the labels and lay out the same namespaces. Host 1
# read its labels at region enable; neither step writes the data area.
client_region() {
	await $IP1 namespaces 300
	modprobe_cxl
	ndctl disable-region region0
	ndctl init-labels -f nmem0
	ndctl enable-region region0
	shared_namespaces
}

# Host 1's famfsd, across the link, over TLS with the token.
master_famfsd() {
	until_for 120 "host 1's famfsd" famfs-cli get devices \
		--host "https://$IP1:$PORT"
	famfs-cli get devices --host "https://$IP1:$PORT"
}

client_kernel_mount() {
	await $IP1 applied 600
	grep " $KFS famfs ro" /proc/mounts
	famfs-cli get mounts | tee /tmp/mounts.out
	grep -w kfs-client /tmp/mounts.out | grep -w kernel | grep -w mounted
	fetch $IP1 sums /tmp/sums
	cat /tmp/sums
}

# famfsd follows the log every tick: wait until the last file is here.
read_identical() {
	last=$(tail -n 1 /tmp/sums | cut -d' ' -f3)
	until_for 60 "$KFS/data/$last" test -e "$KFS/data/$last"
	(cd $KFS/data && md5sum -c /tmp/sums)
}

mmap_identical() {
	while read -r sum f; do
		got=$(famfs-vmcheck cat-mmap "$KFS/data/$f" | md5sum)
		[ "${got%% *}" = "$sum" ] || { echo "mmap $f: $got"; exit 1; }
		echo "$f: OK through mmap"
	done </tmp/sums
}

# A process keeps a file mapped while host 1 deletes it and makes new
# files; this host's famfsd holds its client slot before the delete.
client_holds() {
	famfs-vmcheck keep-mmap $KFS/data/sub/mid.bin /tmp/unmap \
		>/tmp/keep.out 2>&1 &
	until_for 30 "the mapping" test -e /tmp/unmap.ready
	slots | tee /tmp/slots
	grep -w h2 /tmp/slots | grep -qw live
}

# h2's live slots as "SLOT HEARTBEAT_NS" lines.
h2_slots() { slots -o wide | awk '$2 == "live" && $3 == "h2" { print $1, $5 }'; }
h2_beat_after() {
	awk -v now="$(h2_slots | cut -d' ' -f2)" -v was="$1" \
		'BEGIN { exit !(now > was) }'
}

# A restarted famfsd adopts the kernel mount's slot (the module remembers
# it), claims no second one, and publishes again.
restart_same_slot() {
	famfsd_stop
	h2_slots | tee /tmp/slot.before
	[ "$(wc -l </tmp/slot.before)" = 1 ]
	famfsd -f --config /tmp/famfsd.yaml -s $SOCK -d /tmp/famfsd $FAMFSD_GUEST_PATHS \
		-p /usr/lib/famfs/plugins -n h2 >>$FDLOG 2>&1 &
	echo $! >/tmp/famfsd.pid
	until_for 60 "host 2's slot published again" \
		h2_beat_after "$(cut -d' ' -f2 /tmp/slot.before)"
	h2_slots | tee /tmp/slot.after
	[ "$(wc -l </tmp/slot.after)" = 1 ]
	[ "$(cut -d' ' -f1 /tmp/slot.after)" = "$(cut -d' ' -f1 /tmp/slot.before)" ]
}

# Host 1 is done writing: the mapped bytes never changed; then unmap.
mapping_intact() {
	touch /tmp/unmap
	until_for 30 "keep-mmap" grep -q "kept mapped" /tmp/keep.out
	cat /tmp/keep.out
	grep -q "kept mapped, unchanged" /tmp/keep.out
}

# After the unmount: the module gave the follower's slot back (read from
# the devices, no mount left).
slot_freed() {
	famfs-cli clients -d $DEV -d $DEV1 >/tmp/slots.after
	cat /tmp/slots.after
	not grep -qw h2 /tmp/slots.after
}

check client_net net_up $IP2
check client_region client_region
check client_famfsd_tls famfsd_tls $IP2 h2
check master_famfsd master_famfsd
check client_kernel_mount client_kernel_mount
check read_identical read_identical
check mmap_identical mmap_identical
check client_holds client_holds
check restart_same_slot restart_same_slot
if [ $failed = 0 ]; then say holding PASS; else say holding FAIL; fi
check master_held await $IP1 held 600
check mapping_intact mapping_intact
say unmapped PASS
check client_dmesg_clean dmesg_clean
if [ $failed = 0 ]; then say checked PASS; else say checked FAIL; fi
# host 1 reads the verdict before this guest goes away
check master_finished await $IP1 finished 300
say bye PASS
check client_stop twohost_stop
check client_slot_freed slot_freed
exit $failed
