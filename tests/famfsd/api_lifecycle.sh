#!/bin/bash
# famfsd_api_lifecycle: devices, a set, a filesystem and files through the
# API (curl) and famfs-cli get/describe; a restart finds the state intact.
source "$(dirname "$0")/lib.sh"
start_famfsd

api GET /v1/host; expect 200
[ "$(jq_get "$BODY" .name)" = testhost ] || fail "host name: $BODY"
make_devices 4
api GET /v1/devices; expect 200
[ "$(jq_get "$BODY" .items.3.name)" = emul3 ] || fail "devices: $BODY"
uuid0=$(jq_get "$BODY" .items.0.uuid)
[ -f "$T/dev0.uuid" ] && grep -q "$uuid0" "$T/dev0.uuid" || fail "emul uuid sidecar"

api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1","emul2","emul3"],"chunk":"2MiB"}'
expect 201
[ "$(jq_get "$BODY" .strips)" = 4 ] || fail "strips default: $BODY"
[ "$(jq_get "$BODY" .size)" = $((4 * 64 * 1048576)) ] || fail "set size: $BODY"

api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"8MiB"}'
expect 201
[ "$(jq_get "$BODY" .space.files)" = 0 ] || fail "fresh fs has files: $BODY"
# four 64 MiB devices: dev0 holds the 8 MiB log, 27 free units; the
# others 31. A file striped over four takes at most 27 units on each.
[ "$(jq_get "$BODY" .space.devices_free.0)" = $((27 * 2097152)) ] || fail "dev0 free: $BODY"
[ "$(jq_get "$BODY" .space.devices_free.3)" = $((31 * 2097152)) ] || fail "dev3 free: $BODY"
[ "$(jq_get "$BODY" .space.largest_file)" = $((4 * 27 * 2097152)) ] || fail "largest file: $BODY"
[ "$(jq_get "$BODY" .space.striped)" = $((4 * 27 * 2097152)) ] || fail "striped: $BODY"
fsuuid=$(jq_get "$BODY" .uuid)

api POST /v1/files '{"filesystem":"fs0","path":"/data/big.bin","size":"20MiB"}'
expect 201
[ "$(jq_get "$BODY" .map.type)" = interleave ] || fail "big file not interleaved: $BODY"
[ "$(jq_get "$BODY" .map.strips)" = 4 ] || fail "strips: $BODY"
api POST /v1/files '{"filesystem":"fs0","path":"/small.txt","size":1000,"mode":384}'
expect 201
[ "$(jq_get "$BODY" .mode)" = 384 ] || fail "mode: $BODY"
api GET /v1/files/fs0/data/big.bin; expect 200
[ "$(jq_get "$BODY" .size)" = 20971520 ] || fail "stat size: $BODY"
api GET /v1/files/fs0; expect 200
[ "$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["items"]))' "$BODY")" = 3 ] \
	|| fail "list: $BODY"
api DELETE /v1/files/fs0/small.txt; expect 204
api GET /v1/files/fs0/small.txt; expect 404 not_found
api GET /v1/filesystems/fs0; expect 200
[ "$(jq_get "$BODY" .space.files)" = 1 ] || fail "files after delete: $BODY"

api PATCH /v1/host '{"policy":{"chunk":"4MiB","mount_options":"-o allow_other"}}'
expect 200
[ "$(jq_get "$BODY" .policy.chunk)" = 4194304 ] || fail "policy: $BODY"

api POST /v1/jobs '{"kind":"rescan"}'; expect 201
job=$(jq_get "$BODY" .id)
job_succeeded() { api GET /v1/jobs/$job; [ "$(jq_get "$BODY" .state)" = succeeded ]; }
wait_for 5 "rescan job $job to succeed" job_succeeded

api GET /v1/events; expect 200
api GET /v1/events/audit; expect 200
python3 -c '
import json, sys
a = json.loads(sys.argv[1])["items"]
assert len(a) >= 10, a
assert all(e["who"].startswith("uid:") for e in a), a
' "$BODY" || fail "audit log: $BODY"
pass "API lifecycle"

# famfs-cli get / describe, when famfs-cli is built
if [ -x "${FAMFS_CLI:-}" ]; then
	export FAMFS_HOST=$SOCK
	"$FAMFS_CLI" get devices | grep -q '^emul3 ' || fail "get devices table"
	"$FAMFS_CLI" get sets -o json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["items"][0]["name"]=="set0"' \
		|| fail "get sets -o json"
	"$FAMFS_CLI" get filesystems -o yaml | python3 -c 'import yaml,sys; d=yaml.safe_load(sys.stdin); assert d["items"][0]["uuid"]=="'"$fsuuid"'"' \
		|| fail "get filesystems -o yaml"
	"$FAMFS_CLI" get filesystems -o wide | head -1 | grep -q 'LARGEST_FILE *STRIPED' \
		|| fail "get filesystems -o wide: no LARGEST_FILE, STRIPED columns"
	"$FAMFS_CLI" get files fs0 | grep -q '/data/big.bin' || fail "get files"
	"$FAMFS_CLI" get jobs | grep -q rescan || fail "get jobs"
	"$FAMFS_CLI" get mounts >/dev/null || fail "get mounts"
	"$FAMFS_CLI" describe filesystem fs0 | grep -Eq "uuid: \"?$fsuuid" || fail "describe fs"
	"$FAMFS_CLI" describe file fs0 /data/big.bin -o json | grep -q '"size": 20971520' || fail "describe file"
	"$FAMFS_CLI" describe device nosuch --host "$SOCK" 2>$T/err && fail "describe of a missing device succeeded"
	grep -q "not_found" $T/err || fail "describe error message: $(cat $T/err)"
	FAMFS_HOST=$T/nonexistent.sock "$FAMFS_CLI" get devices 2>$T/err && fail "unreachable host"
	grep -q "cannot reach famfsd" $T/err || fail "unreachable message: $(cat $T/err)"
	pass "famfs-cli get/describe"
else
	echo "note: famfs-cli not built; its part of this test skipped"
fi

before=$(db_state)
api GET /v1/filesystems; fs_before=$BODY
stop_famfsd || fail "famfsd exit status on SIGTERM"
[ -e "$SOCK" ] && fail "socket left behind after a clean stop"
start_famfsd
after=$(db_state)
[ "$before" = "$after" ] || fail "state changed across restart"
api GET /v1/filesystems
[ "$BODY" = "$fs_before" ] || fail "filesystems differ after restart: $BODY vs $fs_before"
api GET /v1/files/fs0/data/big.bin; expect 200
pass "restart keeps the state"

api DELETE /v1/filesystems/fs0; expect 204
api DELETE /v1/interleave-sets/set0; expect 204
api DELETE "/v1/devices/emul3?destroy=1"; expect 204
[ -e "$T/dev3" ] && fail "destroy=1 left the device file"
pass "teardown"
