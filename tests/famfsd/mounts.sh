#!/bin/bash
# famfsd_mounts: master and client mounts through famfs-fused, supervised:
# files go through the master mount, mkfs/delete of a mounted filesystem
# are refused, a crashed server is restarted, a famfsd restart adopts the
# running servers, and after SIGKILL of everything the stale mount is
# cleaned and the desired mounts come back.
source "$(dirname "$0")/lib.sh"
[ -x "${FAMFS_FUSED:-}" ] || { echo "famfs-fused not built"; exit 77; }
[ -e /dev/fuse ] || { echo "no /dev/fuse"; exit 77; }
start_famfsd --fused "$FAMFS_FUSED"
make_devices 2
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"4MiB"}'; expect 201
api POST /v1/files '{"filesystem":"fs0","path":"/before.bin","size":"1MiB"}'; expect 201
# no space: the size asked for, the strips, each device's room
nospace_says_why() {
	api POST /v1/files '{"filesystem":"fs0","path":"/big.bin","size":"200MiB"}'
	expect 400 invalid_value
	grep -q "no space: a file of 209715200 bytes takes 2 strips of 104857600 bytes, each in one run; room on each device (free, largest run): dev0 [0-9]*, [0-9]*; dev1 [0-9]*, [0-9]*" <<<"$BODY" ||
		fail "$1: no size, strips and room in: $BODY"
	grep -q "bytes free" <<<"$BODY" && fail "$1: 'N needed, N free' in: $BODY"
	pass "$1: a file too large is refused naming its size, strips and each device's room"
}
nospace_says_why "without a mount"

mounted() { awk -v p="$1" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo; }
wait_state() {  # wait_state MOUNT STATE
	for _ in $(seq 1 200); do
		api GET /v1/mounts/$1
		[ "$(jq_get "$BODY" .state)" = "$2" ] && return 0
		sleep 0.05
	done
	fail "mount $1 never reached $2: $BODY"
}

api POST /v1/mounts "{\"name\":\"m\",\"filesystem\":\"fs0\",\"path\":\"$T/mnt-m\",\"role\":\"master\"}"
expect 201
wait_state m mounted
mounted "$T/mnt-m" || fail "master not in mountinfo"
[ -f "$T/mnt-m/before.bin" ] || fail "file made before the mount not visible in it"
pass "master mount up"

api POST /v1/files '{"filesystem":"fs0","path":"/dir/through-mount.bin","size":"3MiB"}'; expect 201
[ -f "$T/mnt-m/dir/through-mount.bin" ] || fail "file not created through the mount"
[ "$(stat -c %s "$T/mnt-m/dir/through-mount.bin")" = 3145728 ] || fail "size through the mount"
api POST /v1/files '{"filesystem":"fs0","path":"/x","size":"3MiB","strips":2}'
expect 409 mounted
pass "files go through the master mount"
nospace_says_why "through the master mount"
[ -e "$T/mnt-m/big.bin" ] && fail "the refused file is in the mount"
# an ingest through the mount that passes the plan (the committed log)
# but meets ENOSPC at the copy (the server reserved the room for a file
# still open): the job names the size, strips and each device's room
mkdir -p "$T/src-nospace"
truncate -s 40MiB "$T/src-nospace/forty.bin"
python3 -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)
os.ftruncate(fd, 100 << 20)
open(sys.argv[2], "w").close()
while os.path.exists(sys.argv[2]):
    time.sleep(0.05)
os.close(fd)' "$T/mnt-m/held.bin" "$T/holding" &
holder=$!
for _ in $(seq 1 200); do [ -e "$T/holding" ] && break; sleep 0.05; done
[ -e "$T/holding" ] || fail "no 100 MiB reserved through the mount"
run_job '{"kind":"ingest","params":{"filesystem":"fs0","source":"'"$T/src-nospace"'","dest":"/nospace","threads":1}}'
rm -f "$T/holding"
wait "$holder"
[ "$JOB_STATE" = failed ] || fail "the ingest did not fail: $BODY"
grep -q "allocate 41943040 bytes: no space (the mount's server holds space for files not committed yet): a file of 41943040 bytes takes 2 strips of 20971520 bytes, each in one run; room on each device (free, largest run): dev0 [0-9]*, [0-9]*; dev1 [0-9]*, [0-9]*" <<<"$BODY" ||
	fail "the ingest's ENOSPC does not say why: $BODY"
rm -f "$T/mnt-m/held.bin"
pass "an ingest meeting ENOSPC at the copy names the size, strips and room"

before=$(db_state)
api POST /v1/filesystems/fs0/mkfs '{}'; expect 409 mounted
api DELETE /v1/filesystems/fs0; expect 409 in_use
api POST /v1/mounts "{\"name\":\"m2\",\"filesystem\":\"fs0\",\"path\":\"$T/mnt-m2\",\"role\":\"master\"}"
expect 409 conflict
[ "$before" = "$(db_state)" ] || fail "refusals changed the db"
pass "mkfs/delete of a mounted filesystem and a second master refused"

api POST /v1/mounts "{\"name\":\"c\",\"filesystem\":\"fs0\",\"path\":\"$T/mnt-c\",\"role\":\"client\"}"
expect 201
wait_state c mounted
wait_for 5 "the client to see the master's file" test -f "$T/mnt-c/dir/through-mount.bin"
curl -s --unix-socket "$SOCK" http://famfsd/metrics >"$T/metrics"
grep -q '^famfs_client_follow_lag_entries{fs="fs0",slot="[0-9]*",client="[^"]*"} [0-9]*$' "$T/metrics" \
	|| fail "no follow lag series for the client: $(grep follow_lag "$T/metrics")"
promtool check metrics <"$T/metrics" || fail "promtool with mounts"
pass "client mount sees the master's files; follow lag exported"

# crash the client's server: famfsd restarts it
api GET /v1/mounts/c; pid=$(jq_get "$BODY" .pid)
kill -KILL "$pid"
restarted() {
	api GET /v1/mounts/c
	[ "$(jq_get "$BODY" .restarts)" -ge 1 ] && [ "$(jq_get "$BODY" .state)" = mounted ]
}
wait_for 10 "famfsd to restart the client's crashed server" restarted
newpid=$(jq_get "$BODY" .pid)
[ "$newpid" != "$pid" ] || fail "same pid after restart"
api GET /v1/events
echo "$BODY" | grep -q "restarting in" || fail "no restart event"
pass "crashed FUSE server restarted (pid $pid -> $newpid)"

curl -s --unix-socket "$SOCK" http://famfsd/metrics | grep -q 'famfs_mount_state{mount="c",fs="fs0",role="client",state="mounted"} 1' \
	|| fail "mount state metric"

# famfsd restart: the servers keep running and are adopted
api GET /v1/mounts/m; mpid=$(jq_get "$BODY" .pid)
stop_famfsd
mounted "$T/mnt-m" || fail "a famfsd stop took the mount down"
start_famfsd --fused "$FAMFS_FUSED"
api GET /v1/mounts/m
[ "$(jq_get "$BODY" .pid)" = "$mpid" ] && [ "$(jq_get "$BODY" .state)" = mounted ] || fail "not adopted: $BODY"
pass "famfsd restart adopts running servers"

# SIGKILL famfsd and the servers: stale mounts; a new famfsd cleans them
# and brings the desired mounts back
kill9_famfsd
api_pids=$(pgrep -f "$FAMFS_FUSED.*$T")
[ -n "$api_pids" ] || fail "no FUSE server to kill: the stale-mount case would prove nothing"
for p in $api_pids; do kill -KILL "$p"; done
# gone, or a zombie (its FUSE fd is closed) if nobody has reaped it yet
gone() { [ ! -e "/proc/$1" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }
for p in $api_pids; do wait_for 10 "killed FUSE server $p to exit" gone "$p"; done
start_famfsd --fused "$FAMFS_FUSED"
wait_state m mounted
wait_state c mounted
[ -f "$T/mnt-c/before.bin" ] || fail "client mount not serving after reconcile"
api GET /v1/events
echo "$BODY" | grep -q "cleaned a stale mount" || fail "no stale cleanup event"
pass "reconcile after SIGKILL: stale mounts cleaned, desired mounts back"

api DELETE /v1/mounts/c; expect 204
api DELETE /v1/mounts/m; expect 204
mounted "$T/mnt-m" && fail "master still mounted"
mounted "$T/mnt-c" && fail "client still mounted"
api POST /v1/filesystems/fs0/mkfs '{}'; expect 200
pass "unmount; mkfs once unmounted"
