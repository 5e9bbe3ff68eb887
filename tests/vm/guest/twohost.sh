#!/bin/sh
# Sourced by twomaster.sh and twoclient.sh, the two guests vm-twohost.sh
# runs at the same time on one CXL memory: a virtio-net link between
# them, a famfsd on each answering https with a bearer token (the
# certificates and token vm-twohost.sh made are in $TLS), and events each
# guest publishes for the other (files under $WWW, served on port 8080).
CXL_SERIALS=4096  # one memdev (vm-twohost.sh)
. /tests/lib.sh
. /tests/famfsd.sh
TLS=/etc/famfs-test
IP1=10.9.0.1   # host 1, twomaster: the filesystem's master
IP2=10.9.0.2   # host 2, twoclient
PORT=8443
KFS=/mnt/kfs
WWW=/tmp/www
# host 2 publishes generations 2..LASTGEN of the dataset (keep: 1): one
# switch latency sample each, generation 1 removed at the switch to 3
LASTGEN=6
export FAMFS_CACERT=$TLS/ca.pem FAMFS_TOKEN_FILE=$TLS/token

# until_for SECS WHAT CMD...: until CMD succeeds; fails naming WHAT
# after SECS seconds (the other guest may boot a minute later under TCG).
until_for() {
	secs=$1 what=$2
	shift 2
	end=$(($(cut -d. -f1 /proc/uptime) + secs))
	until "$@" >/dev/null 2>&1; do
		if [ "$(cut -d. -f1 /proc/uptime)" -ge $end ]; then
			echo "timed out after ${secs}s waiting for $what"
			return 1
		fi
		sleep 0.5
	done
}

# net_up ADDRESS: eth0 on the link, this guest's events served.
net_up() {
	modprobe virtio_pci
	modprobe virtio_net
	until_for 20 eth0 test -e /sys/class/net/eth0
	ip link set lo up
	ip addr add "$1/24" dev eth0
	ip link set eth0 up
	mkdir -p $WWW
	httpd -p 8080 -h $WWW
	ip addr show eth0 | grep "inet $1/"
}

# say EVENT PASS|FAIL: tell the other guest EVENT happened, and how.
say() {
	echo "$2" >$WWW/$1.tmp
	mv $WWW/$1.tmp $WWW/$1
}
# fetch ADDRESS NAME OUT: the other guest's file NAME. (nc: busybox's
# static wget crashes looking up the "http" service without NSS.)
fetch() {
	printf 'GET /%s HTTP/1.0\r\n\r\n' "$2" | nc -w 5 "$1" 8080 >"$3.http" &&
		head -n 1 "$3.http" | grep -q ' 200 ' &&
		sed '1,/^\r$/d' "$3.http" >"$3"
}
heard() { fetch "$1" "$2" "/tmp/heard.$2"; }
# await ADDRESS EVENT SECS: until the guest at ADDRESS said EVENT; fails
# on the timeout or when it says EVENT went wrong.
await() {
	until_for "$3" "$1 to say $2" heard "$1" "$2"
	echo "$1 says $2: $(cat /tmp/heard.$2)"
	[ "$(cat /tmp/heard.$2)" = PASS ]
}

# The two fsdax namespaces the filesystem lives on. Struct pages in RAM
# (-M mem): with -M dev each kernel would keep its page structs on the
# device, the other host's memory too.
shared_namespaces() {
	ndctl create-namespace -r region0 -m fsdax -M mem -s 240M
	ndctl create-namespace -r region0 -m fsdax -M mem -s 240M
	[ -b $DEV ] && [ -b $DEV1 ]
}

# famfsd_tls ADDRESS NAME: famfsd as host NAME on its Unix socket and on
# https://ADDRESS:PORT, which needs the token.
famfsd_tls() {
	modprobe famfs
	cat >/tmp/famfsd.yaml <<EOC
token_file: $TLS/token
tcp:
  listen: $1:$PORT
  tls_cert: $TLS/$2.pem
  tls_key: $TLS/$2.key
EOC
	rm -rf /tmp/famfsd
	famfsd -f --config /tmp/famfsd.yaml -s $SOCK -d /tmp/famfsd $FAMFSD_GUEST_PATHS \
		-p /usr/lib/famfs/plugins -n "$2" >$FDLOG 2>&1 &
	echo $! >/tmp/famfsd.pid
	until_for 60 "famfsd on $SOCK" famfs-cli get devices
	famfs-cli get devices --host "https://$1:$PORT"
}

# The client slots and the log's last seq, as host 1 reads them.
META="$KFS/.meta/dev0 $KFS/.meta/dev1"
slots() { famfs-cli clients -d $KFS/.meta/dev0 -d $KFS/.meta/dev1 "$@"; }
h2_position() { slots | awk '$2 == "live" && $3 == "h2" { print $4 }'; }
log_last() { famfs-cli log --no-headers -o table $META | tail -n 1 | awk '{ print $1 }'; }

# Stop famfsd; its kernel mount stays until unmounted here.
twohost_stop() {
	famfsd_stop
	umount $KFS
	not grep -q " $KFS famfs " /proc/mounts
}
