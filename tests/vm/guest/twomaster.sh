#!/bin/sh
# Host 1 of the two-host run (famfs.guest=twomaster), at the same time as
# host 2 (twoclient.sh) on the same CXL memory: one famfs-cli apply over
# https makes this host the master and host 2 a client, both on kernel
# mounts, and ingests a dataset; host 2 reads it back byte for byte.
# Then host 2 publishes generations 2..LASTGEN of it (sources made here)
# while it keeps a generation-1 file mapped.
. /tests/twohost.sh
H2=https://$IP2:$PORT
DATA=/tmp/data

master_region() {
	modprobe_cxl
	shared_namespaces
}

# cluster_yaml OUT TOKENFILE: both hosts by address, over https.
cluster_yaml() {
	cat >"$1" <<EOY
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: twohost}
hosts:
  - {name: h1, endpoint: "https://$IP1:$PORT", role: master, tokenFile: $2}
  - {name: h2, endpoint: "https://$IP2:$PORT", role: client, tokenFile: $2}
devices:
  - {name: pmem0, cxl: {pmem: pmem0}}
  - {name: pmem0.1, cxl: {pmem: pmem0.1}}
sets:
  - {name: kset, devices: [pmem0, pmem0.1]}
filesystems:
  - {name: kfs, set: kset, master: h1, logSize: 2097152}
mounts:
  - {filesystem: kfs, host: h1, path: $KFS, role: master, backend: kernel}
  - {filesystem: kfs, host: h2, path: $KFS, role: client, backend: kernel}
datasets:
  - {name: data, source: $DATA, filesystem: kfs, keep: 1}
EOY
}

# A few files: empty, odd-sized, one larger than a stripe (2 MiB chunks
# on 2 devices) and not a multiple of a page, one in a subdirectory.
make_dataset() {
	mkdir -p $DATA/sub
	: >$DATA/empty
	echo "famfs two hosts" >$DATA/hello.txt
	dd if=/dev/urandom of=$DATA/odd.bin bs=4097 count=3 2>/dev/null
	dd if=/dev/urandom of=$DATA/big.bin bs=1M count=9 2>/dev/null
	dd if=/dev/urandom bs=12345 count=1 2>/dev/null >>$DATA/big.bin
	dd if=/dev/urandom of=$DATA/sub/mid.bin bs=1M count=3 2>/dev/null
	echo 1 >$DATA/gen.txt
	(cd $DATA && find . -type f | sort | xargs md5sum) >/tmp/sums
	cat /tmp/sums
	make_generations
}

# The sources of generations 2..LASTGEN, for host 2's applies: the same
# tree with gen.txt saying N, odd.bin rewritten, one file added; their
# checksums go to host 2 as sums.N.
make_generations() {
	mkdir -p $WWW
	g=2
	while [ $g -le $LASTGEN ]; do
		src=/tmp/gen$g
		rm -rf $src
		cp -a $DATA $src
		echo $g >$src/gen.txt
		dd if=/dev/urandom of=$src/odd.bin bs=4097 count=3 2>/dev/null
		dd if=/dev/urandom of=$src/sub/g$g.bin bs=64k count=5 2>/dev/null
		(cd $src && find . -type f | sort | xargs md5sum) >$WWW/sums.$g
		g=$((g + 1))
	done
}

# Host 2's famfsd, across the link, over TLS with the token.
peer_famfsd() {
	until_for 300 "host 2's famfsd at $H2" famfs-cli get devices --host $H2
	famfs-cli get devices --host $H2
}

devices_now() {
	famfs-cli get devices
	famfs-cli get devices --host $H2
}

# A wrong token: 401 from host 2's famfsd, and apply changes nothing.
bad_token_refused() {
	echo wrong-token-for-famfsd-tests >/tmp/bad.token
	chmod 600 /tmp/bad.token
	FAMFS_TOKEN_FILE=/tmp/bad.token refuse famfs-cli get devices \
		--host $H2 >/tmp/out
	cat /tmp/out
	grep -q unauthorized /tmp/out
	cluster_yaml /tmp/bad.yaml /tmp/bad.token
	devices_now >/tmp/before
	refuse famfs-cli apply /tmp/bad.yaml >/tmp/out
	cat /tmp/out
	grep -q "host h2: .*unauthorized" /tmp/out
	devices_now >/tmp/after
	cmp /tmp/before /tmp/after
}

# A CA that did not sign the hosts' certificates: the connection fails
# naming the certificate, apply changes nothing.
wrong_ca_refused() {
	FAMFS_CACERT=$TLS/wrongca.pem refuse famfs-cli get devices \
		--host $H2 >/tmp/out
	cat /tmp/out
	grep -q -i "certificate" /tmp/out
	cluster_yaml /tmp/cluster.yaml $TLS/token
	FAMFS_CACERT=$TLS/wrongca.pem refuse famfs-cli apply \
		/tmp/cluster.yaml >/tmp/out
	cat /tmp/out
	grep -q "host h2: .*certificate" /tmp/out
	devices_now >/tmp/after
	cmp /tmp/before /tmp/after
}

# apply's exit status counts (a pipe into tee would hide it)
apply_file() {
	famfs-cli apply /tmp/cluster.yaml >/tmp/apply.out 2>&1 || {
		cat /tmp/apply.out
		return 1
	}
	cat /tmp/apply.out
}

apply_two_hosts() {
	apply_file
	grep -q "^Apply complete: 7 created" /tmp/apply.out
	famfs-cli get mounts | tee /tmp/mounts.out
	grep -w kfs-master /tmp/mounts.out | grep -w kernel | grep -w mounted
	famfs-cli get mounts --host $H2 | tee /tmp/mounts.out
	grep -w kfs-client /tmp/mounts.out | grep -w kernel | grep -w mounted
	grep " $KFS famfs rw" /proc/mounts
}

apply_again() {
	apply_file
	grep -q "^No changes" /tmp/apply.out
}

# The ingested files on this host's mount, through read() and mmap, are
# the source's; their checksums go to host 2.
master_files() {
	(cd $KFS/data && md5sum -c /tmp/sums)
	while read -r sum f; do
		got=$(famfs-vmcheck cat-mmap "$KFS/data/$f" | md5sum)
		[ "${got%% *}" = "$sum" ] || { echo "mmap $f: $got"; exit 1; }
	done </tmp/sums
	cp /tmp/sums $WWW/sums
	cp /tmp/cluster.yaml $WWW/cluster.yaml
}

# Host 2 powers off once it has heard "finished"; this guest stays up
# until then, or host 2 would wait for a peer that is gone (it timed out
# so once under load): host 2 said "bye", or it no longer answers three
# fetches in a row (it powered off right after saying bye).
peer_done() {
	misses=0
	end=$(($(cut -d. -f1 /proc/uptime) + 300))
	until heard $IP2 bye; do
		if heard $IP2 checked; then misses=0; else misses=$((misses + 1)); fi
		if [ $misses -ge 3 ]; then
			echo "$IP2 no longer answers: it has powered off"
			return 0
		fi
		if [ "$(cut -d. -f1 /proc/uptime)" -ge $end ]; then
			echo "timed out after 300s waiting for $IP2 to finish"
			return 1
		fi
		sleep 0.5
	done
	echo "$IP2 says bye"
}

fhttp() { famfs-vmcheck http $SOCK "$@"; }
# new_file NAME: a 3 MiB file through famfsd, written through this
# host's kernel mount once famfsd's follow added it there.
new_file() {
	fhttp POST /v1/files "{\"filesystem\": \"kfs\", \"path\": \"/$1\", \"size\": 3145728}"
	until_for 30 "$KFS/$1" test -e $KFS/$1
	famfs-vmcheck write-io $KFS/$1 7
}

# Host 2 keeps data/sub/mid.bin mapped: after its delete, new files of
# the same size must not get its memory, and host 2's slot stays before
# the delete.
held_while_mapped() {
	await $IP2 holding 600
	famfs-vmcheck map-save $KFS /data/sub/mid.bin /tmp/mid.map
	famfs-vmcheck map-save $KFS /data/big.bin /tmp/big.map
	fhttp DELETE /v1/files/kfs/data/sub/mid.bin
	log_last >/tmp/delete.seq
	for f in new1.bin new2.bin; do
		new_file $f
		rc=0
		famfs-vmcheck map-overlap $KFS /tmp/mid.map /$f || rc=$?
		[ $rc = 1 ]  # 0: on the mapped memory, 2: no map
	done
	slots
	pos=$(h2_position)
	echo "host 2's slot at $pos, the delete at $(cat /tmp/delete.seq)"
	[ -n "$pos" ] && [ "$pos" -lt "$(cat /tmp/delete.seq)" ]
}

# "free=N pending=N" from famfsd's /v1/filesystems/kfs
space() {
	fhttp GET /v1/filesystems/kfs >/tmp/fs.json
	sed -n 's/.*"free": *\([0-9]*\).*"pending": *\([0-9]*\).*/free=\1 pending=\2/p' /tmp/fs.json
}
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }

# While host 2 maps generation 1's big.bin, it published generations
# 2..LASTGEN (keep: 1 removed generation 1 at the switch to 3): no file
# of the serving generation, nor the two new files, is on its memory.
gens_not_on_held() {
	await $IP2 generations 900
	famfs-cli rollout history dataset data | tee /tmp/history
	grep -w $LASTGEN /tmp/history | grep -qw serving
	for f in $(cd $KFS/data && find . -type f | sed 's#^\.##') /new1.bin /new2.bin; do
		case $f in /new*) p=$f ;; *) p=/data$f ;; esac
		rc=0
		famfs-vmcheck map-overlap $KFS /tmp/big.map $p || rc=$?
		[ $rc = 1 ] || { echo "$p: overlap rc=$rc"; return 1; }
	done
	echo "no file of generation $LASTGEN is on generation 1's mapped big.bin"
	log_last >/tmp/delete.seq
	# what host 2 still maps waits: at least big.bin's 9 MiB + 12345 B
	space | tee /tmp/space.held
	[ "$(field pending /tmp/space.held)" -ge 9449017 ]
}

h2_past() {
	pos=$(h2_position)
	[ -n "$pos" ] && [ "$pos" -ge "$(cat /tmp/delete.seq)" ]
}

# Once host 2 unmapped both (mid.bin, and generation 1's big.bin), its
# slot moves past the delete and generation 1's removal, and the master's
# next open reclaims the memory and gives it to a new file. (The
# allocator is next-fit, so the open that resets it is waited for:
# famfsd closes a master handle idle for 30 s, which frees its lock.)
reusable_after_unmap() {
	await $IP2 unmapped 300
	until_for 60 "host 2's slot past the removals" h2_past
	slots
	until_for 90 "famfsd's idle master handle to close" famfs-vmcheck unlocked $DEV
	new_file new3.bin
	space | tee /tmp/space.after
	echo "while held: $(cat /tmp/space.held)"
	# nothing waits any more, and free space grew back past new3.bin
	[ "$(field pending /tmp/space.after)" = 0 ]
	[ "$(field free /tmp/space.after)" -gt "$(field free /tmp/space.held)" ]
	rc=0
	famfs-vmcheck map-overlap $KFS /tmp/mid.map /new3.bin || rc=$?
	famfs-vmcheck map-overlap $KFS /tmp/big.map /new3.bin && {
		echo "new3.bin is on generation 1's big.bin"
		rc=0
	}
	[ $rc = 0 ]
}

check master_net net_up $IP1
check master_region master_region
if [ $failed = 0 ]; then say namespaces PASS; else say namespaces FAIL; fi
check master_famfsd_tls famfsd_tls $IP1 h1
check peer_famfsd peer_famfsd
check make_dataset make_dataset
check bad_token_refused bad_token_refused
check wrong_ca_refused wrong_ca_refused
# what host 2 is told: did apply and the files here work
so_far=$failed failed=0
check apply_two_hosts apply_two_hosts
check master_files master_files
if [ $failed = 0 ]; then say applied PASS; else say applied FAIL; fi
failed=$((so_far | failed))
check apply_again apply_again
check held_while_mapped held_while_mapped
if [ $failed = 0 ]; then say held PASS; else say held FAIL; fi
check gens_not_on_held gens_not_on_held
if [ $failed = 0 ]; then say gens PASS; else say gens FAIL; fi
check reusable_after_unmap reusable_after_unmap
# host 2's verdict on what it read; then it may power off
check client_checks_passed await $IP2 checked 600
say finished PASS
check peer_done peer_done
check master_stop twohost_stop
check master_dmesg_clean dmesg_clean
exit $failed
