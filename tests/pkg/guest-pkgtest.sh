#!/bin/bash
# Runs in the QEMU guest booted from the clean Debian 12 root the famfs
# .debs were installed into with apt (famfs-pkgtest.service, systemd is
# PID 1). Every check prints "PKGTEST ok|FAIL ..." on the serial console,
# the last line is "PKGTEST result=PASS|FAIL"; then the guest powers off.
set -u
say() { echo "PKGTEST $*"; }
finish() {
	say "result=$1"
	systemctl poweroff --no-block
	exit 0
}
fail() {
	say "FAIL $*"
	journalctl -u famfsd.service -u famfsd.socket --no-pager -n 40 | sed 's/^/PKGTEST journal: /'
	finish FAIL
}
# each result with the guest's uptime: where the guest's time goes
ok() { say "ok $* (uptime $(cut -d' ' -f1 /proc/uptime))"; }

say "info started at uptime $(cut -d' ' -f1 /proc/uptime)"
# 1. installed from the archive + local .debs; socket listening
for p in libfamfs0 famfs famfsd; do
	v=$(dpkg-query -W -f '${Status} ${Version}' "$p" 2>/dev/null)
	[ "$v" = "install ok installed 0.1.0" ] || fail "package $p: '$v'"
done
[ "$(systemctl is-active famfsd.socket)" = active ] || fail "famfsd.socket is $(systemctl is-active famfsd.socket)"
[ -S /run/famfsd/famfsd.sock ] || fail "no /run/famfsd/famfsd.sock"
getent group famfs >/dev/null || fail "no famfs group (sysusers)"
getent group famfs-read >/dev/null || fail "no famfs-read group (sysusers)"
# 0666: famfsd checks every peer against access.write/access.read
[ "$(stat -c %G:%a /run/famfsd/famfsd.sock)" = famfs:666 ] || fail "socket $(stat -c %G:%a /run/famfsd/famfsd.sock)"
ok "packages installed, famfsd.socket listening (group famfs, 0666), groups famfs and famfs-read"

# 2. socket activation: with the service stopped, a request starts it
systemctl stop famfsd.service
[ "$(systemctl is-active famfsd.service)" != active ] || fail "famfsd.service still active after stop"
[ "$(systemctl is-active famfsd.socket)" = active ] || fail "socket stopped with the service"
out=$(famfs-cli get devices 2>&1) || fail "famfs-cli get devices: $out"
[ "$(systemctl is-active famfsd.service)" = active ] || fail "famfsd.service not activated by the socket"
ok "famfsd.socket activated famfsd; famfs-cli get devices answered: $(echo "$out" | head -1)"
[ -n "$(systemctl show -p NRestarts --value famfsd.service)" ] || fail "no service state"

# 3. the example cluster.yaml (devices made smaller for the guest's memory)
F=/root/cluster.yaml
sed 's/size: 256MiB/size: 64MiB/' /usr/share/doc/famfs/examples/cluster.yaml >"$F"
mkdir -p /srv/famfs-demo/dataset/weights
for i in 1 2 3; do head -c $((i * 700000)) /dev/urandom >/srv/famfs-demo/dataset/weights/shard$i.bin; done
out=$(famfs-cli apply "$F" 2>&1) || fail "apply: $(echo "$out" | tr '\n' '|')"
grep -q "Apply complete: 9 created" <<<"$out" || fail "apply: $(echo "$out" | tr '\n' '|')"
for i in $(seq 1 300); do
	cmp -s /srv/famfs-demo/dataset/weights/shard3.bin /mnt/famfs-client/demo/weights/shard3.bin && break
	[ "$i" = 300 ] && fail "dataset not on the client mount"
	sleep 0.2
done
out=$(famfs-cli apply "$F" 2>&1) || fail "second apply: $out"
grep -q "^No changes." <<<"$out" || fail "second apply: $(echo "$out" | tr '\n' '|')"
ok "examples/cluster.yaml applied (9 created), dataset read back on the client mount, second apply: No changes."

# 4. the FUSE servers famfsd started: clean signal mask, own cgroup
for pid in $(pgrep -x famfs-fused); do
	blk=$(awk '/^SigBlk:/ { print $2 }' /proc/$pid/status)
	[ "$blk" = 0000000000000000 ] || fail "famfs-fused $pid SigBlk=$blk"
	cg=$(cat /proc/$pid/cgroup)
	case "$cg" in *famfsd.service*) fail "famfs-fused $pid in famfsd's cgroup: $cg" ;; esac
	say "info famfs-fused $pid SigBlk=$blk cgroup=$cg"
done
[ "$(pgrep -cx famfs-fused)" = 2 ] || fail "famfs-fused servers: $(pgrep -cx famfs-fused)"
ok "famfs-fused servers: SigBlk 0, outside famfsd.service's cgroup"

# 5. systemctl stop is clean
systemctl stop famfsd.socket famfsd.service
res=$(systemctl show -p Result --value famfsd.service)
st=$(systemctl show -p ExecMainStatus --value famfsd.service)
[ "$res" = success ] && [ "$st" = 0 ] || fail "stop: Result=$res ExecMainStatus=$st"
[ ! -e /run/famfsd/famfsd.sock ] || fail "socket left after stop"
journalctl -u famfsd.service --no-pager | grep -q "famfsd: stopped\|stopped$" || fail "no clean stop in the journal"
ok "systemctl stop: Result=success, exit status 0, socket removed"

# 6. purge leaves only the documented state (docs/install.md)
for m in /mnt/famfs-client /mnt/famfs; do fusermount3 -u "$m" || fail "unmount $m"; done
for i in $(seq 1 100); do pgrep -x famfs-fused >/dev/null || break; sleep 0.1; done
pgrep -x famfs-fused >/dev/null && fail "famfs-fused still running after unmount"
out=$(apt-get purge -y famfsd famfs libfamfs0 2>&1) || fail "purge: $out"
left=$(find / -xdev \( -path /proc -o -path /sys -o -path /srv/famfs-demo -o -path '/root/*' \
	-o -name 'famfs-pkgtest*' \) -prune -o \( -iname '*famfs*' -print \) 2>/dev/null |
	grep -vx -e /mnt/famfs -e /mnt/famfs-client -e '/var/lib/dpkg/info/.*' | sort)
ls /var/lib/dpkg/info | grep -q famfs && fail "dpkg still has famfs package files: $(ls /var/lib/dpkg/info | grep famfs | tr '\n' ' ')"
[ -z "$left" ] || fail "left after purge: $(echo "$left" | tr '\n' ' ')"
for d in /etc/famfs /var/lib/famfsd /run/famfsd; do [ ! -e "$d" ] || fail "$d left after purge"; done
getent group famfs >/dev/null || fail "the famfs group was removed (docs say it is kept)"
getent group famfs-read >/dev/null || fail "the famfs-read group was removed (docs say it is kept)"
ls /dev/shm/famfs-demo-emul0 >/dev/null || fail "the emulated device files (operator data) are gone"
ok "purge: nothing left but the famfs groups, the mount point dirs and the emulated device files"
finish PASS
