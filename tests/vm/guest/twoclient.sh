#!/bin/sh
# Host 2 of the two-host run (famfs.guest=twoclient), at the same time as
# host 1 (twomaster.sh) on the same CXL memory: its famfsd is made a
# client by host 1's apply; the files host 1 ingested read the same here
# through read() and mmap. Then this host publishes new generations of
# the dataset (apply with changed sources host 1 made) and sees each
# switch on its kernel mount while it keeps a generation-1 file mapped.
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
	fetch $IP1 cluster.yaml /tmp/cluster.yaml
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
	famfs-vmcheck keep-mmap $KFS/data/big.bin /tmp/unmapbig \
		>/tmp/keepbig.out 2>&1 &
	until_for 30 "the mapping" test -e /tmp/unmap.ready
	until_for 30 "the mapping" test -e /tmp/unmapbig.ready
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

# Host 1 is done writing: the mapped bytes never changed; then unmap
# (mid.bin, deleted, and generation 1's big.bin, removed).
mapping_intact() {
	touch /tmp/unmap /tmp/unmapbig
	until_for 30 "keep-mmap" grep -q "kept mapped" /tmp/keep.out
	until_for 30 "keep-mmap" grep -q "kept mapped" /tmp/keepbig.out
	cat /tmp/keep.out /tmp/keepbig.out
	grep -q "kept mapped, unchanged" /tmp/keep.out
	grep -q "kept mapped, unchanged" /tmp/keepbig.out
}

# The mapping of generation 1's big.bin, compared now (keep-mmap's
# FLAG.check): its bytes are the ones copied when it was mapped.
big_intact() {
	touch /tmp/unmapbig.check
	until_for 30 "keep-mmap's check" not test -e /tmp/unmapbig.check
	tail -n 1 /tmp/keepbig.out
	tail -n 1 /tmp/keepbig.out | grep -q ": unchanged$"
}

now() { read -r up _ </proc/uptime; echo $up; }
# seen G: the dataset's path on this kernel mount shows generation G
# (gen.txt read through the path, so after the EXCHANGE is replayed).
seen() { read -r got <$KFS/data/gen.txt 2>/dev/null && [ "$got" = "$1" ]; }

# publish G: apply host 1's cluster.yaml with the dataset's source at
# generation G's tree. The switch latency is the time from the EXCHANGE
# being in the log to this mount showing G (famfs-vmcheck
# switch-latency, polling both every millisecond on this host's clock);
# whether the mount showed G before apply returned is printed too. Then
# the whole tree is G's, and the generation-1 mapping is intact.
publish() {
	fetch $IP1 sums.$1 /tmp/sums.$1
	sed "s#source: /tmp/data,#source: /tmp/gen$1,#" /tmp/cluster.yaml >/tmp/gen$1.yaml
	grep -q "source: /tmp/gen$1," /tmp/gen$1.yaml
	rm -f /tmp/sw.ready
	famfs-vmcheck switch-latency $KFS $KFS/data/gen.txt $1 /tmp/sw.ready \
		>/tmp/sw.out 2>&1 &
	sw=$!
	until_for 30 "switch-latency" test -e /tmp/sw.ready
	t0=$(now)
	famfs-cli apply /tmp/gen$1.yaml >/tmp/apply.out 2>&1 || {
		cat /tmp/apply.out
		kill $sw
		return 1
	}
	t1=$(now)
	before=no
	seen $1 && before=yes
	cat /tmp/apply.out
	grep -q "update dataset data" /tmp/apply.out
	wait $sw || { cat /tmp/sw.out; return 1; }
	cat /tmp/sw.out
	lat=$(sed -n 's/.*switch_latency_ms=\([0-9.]*\).*/\1/p' /tmp/sw.out)
	[ -n "$lat" ]
	echo "FAMFS-VM-LATENCY gen=$1 apply=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')s shown_before_apply_returned=$before switch_ms=$lat"
	echo "$lat" >>/tmp/latencies
	(cd $KFS/data && md5sum -c /tmp/sums.$1) >/tmp/md5.out || {
		cat /tmp/md5.out
		return 1
	}
	[ "$(cd $KFS/data && find . -type f | wc -l)" = "$(wc -l </tmp/sums.$1)" ]
	ls -a $KFS/.famfs-retired
	famfs-vmcheck held $KFS
	big_intact
}

# Generation 3's switch removed generation 1 (keep: 1, one BATCH of
# deletes): its files are gone from this mount, and the module holds the
# big.bin this host maps (removed from the mount when generation 2's
# switch moved its tree to /.famfs-retired, held from then on), beside
# the deleted mid.bin: 2 removed files held; the slot stays before the
# lowest of their seqs.
old_gen_held() {
	not test -e $KFS/.famfs-retired/data.1
	test -d $KFS/.famfs-retired/data.2
	famfs-vmcheck held $KFS | tee /tmp/held
	grep -q "^count=2 " /tmp/held
	min=$(sed -n 's/.*min_seq=\([0-9]*\).*/\1/p' /tmp/held)
	famfs-cli log --no-headers -o table $META >/tmp/log.out
	x=$(awk '$2 == "exchange" && /data\.3/ { print $1 }' /tmp/log.out | tail -n 1)
	awk -v x="$x" '$1 >= x' /tmp/log.out
	slots
	pos=$(h2_position)
	echo "host 2's slot at $pos; lowest held removal $min; generation 3's switch at $x"
	[ -n "$pos" ] && [ "$pos" -lt "$min" ]
	big_intact
}

h2_at_least() {
	pos=$(h2_position)
	[ -n "$pos" ] && [ "$pos" -ge "$1" ]
}

# With mid.bin unmapped, generation 1's big.bin alone holds the slot:
# once the follower published past mid.bin's delete, it stays before
# the BATCH that removed generation 1 (after generation 3's EXCHANGE).
old_gen_holds_alone() {
	touch /tmp/unmap
	until_for 30 "keep-mmap" grep -q "kept mapped" /tmp/keep.out
	famfs-vmcheck held $KFS | tee /tmp/held
	grep -q "^count=1 " /tmp/held
	min=$(sed -n 's/.*min_seq=\([0-9]*\).*/\1/p' /tmp/held)
	b=$(awk '$2 == "exchange" && /data\.3/ { x = $1 }
		x && $2 == "batch" && $1 > x { print $1; exit }' /tmp/log.out)
	[ -n "$b" ]
	until_for 60 "host 2's slot up to the hold" h2_at_least $((min - 1))
	slots
	pos=$(h2_position)
	echo "host 2's slot at $pos; big.bin held from $min; generation 1 removed by the batch at $b"
	[ "$pos" -lt "$b" ]
	big_intact
}

# The remaining generations: more latency samples; then their p99 (the
# highest of so few).
more_generations() {
	g=4
	while [ $g -le $LASTGEN ]; do
		publish $g
		g=$((g + 1))
	done
	sort -n /tmp/latencies | awk '{ v[NR] = $1 } END {
		i = int(NR * 0.99 + 0.999); if (i > NR) i = NR
		printf "FAMFS-VM-LATENCY samples=%d p99_ms=%s max_ms=%s\n", NR, v[i], v[NR] }'
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
check switch_gen2 publish 2
check switch_gen3 publish 3
check old_gen_held old_gen_held
check switch_latency more_generations
if [ $failed = 0 ]; then say generations PASS; else say generations FAIL; fi
# host 1 looks at its memory while generation 1 is still mapped here
check master_gens_checked await $IP1 gens 600
check old_gen_holds_alone old_gen_holds_alone
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
