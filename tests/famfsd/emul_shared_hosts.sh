#!/bin/bash
# famfsd_emul_shared_hosts: two famfsd instances (two "hosts", own state
# dirs and sockets) share emul devices: host B adopts the devices A made
# (same UUIDs) and the filesystem A formatted, and sees A's files.
source "$(dirname "$0")/lib.sh"
start_famfsd
make_devices 2
api GET /v1/devices; devs_a=$BODY
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"shared","set":"set0","log_size":"4MiB"}'; expect 201
uuid=$(jq_get "$BODY" .uuid)
api POST /v1/files '{"filesystem":"shared","path":"/from-a.bin","size":"3MiB"}'; expect 201

A_SOCK=$SOCK
SOCK=$T/b.sock
"$FAMFSD" --config /dev/null --state-dir "$T/state-b" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
	--plugin-dir "$PLUGINS" --host-name hostb >>"$LOG" 2>&1 &
B_PID=$!
wait_for 60 "famfsd to answer on $SOCK" curl -s -o /dev/null --unix-socket "$SOCK" http://famfsd/healthz
for i in 0 1; do
	api POST /v1/devices "{\"name\":\"shm$i\",\"path\":\"$T/dev$i\"}"; expect 201
	[ "$(jq_get "$BODY" .uuid)" = "$(jq_get "$devs_a" .items.$i.uuid)" ] || fail "uuid differs on host B"
done
api POST /v1/interleave-sets '{"name":"set0","devices":["shm0","shm1"]}'; expect 201
api POST /v1/filesystems '{"name":"shared","set":"set0","adopt":true}'; expect 201
[ "$(jq_get "$BODY" .uuid)" = "$uuid" ] || fail "adopted uuid: $BODY"
[ "$(jq_get "$BODY" .master)" = testhost ] || fail "adopted master: $BODY"
api GET /v1/files/shared/from-a.bin; expect 200
pass "host B adopted A's devices and filesystem and sees A's file"

SOCK=$A_SOCK
api POST /v1/files '{"filesystem":"shared","path":"/second.bin","size":"1MiB"}'; expect 201
SOCK=$T/b.sock
api GET /v1/files/shared/second.bin; expect 200
pass "a later file on A is visible through B (read-only view replays)"
kill -TERM $B_PID; wait $B_PID
