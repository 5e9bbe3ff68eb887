#!/bin/bash
# famfsd_holds_client: a hold on a host whose only mount of the dataset's
# filesystem is a client mount (famfsd writes the log with its own master
# handle). The hold waits (timeout_seconds) until the client mount shows
# the generation that serves, and its pin shows that generation's bytes,
# also right after a refresh (the client has replayed the switch); a
# dataset whose filesystem has no mount here: 409.
source "$(dirname "$0")/lib.sh"
[ -x "${FAMFS_FUSED:-}" ] || { echo "famfs-fused not built"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "pins are bind mounts: needs root"; exit 77; }

PINS=$T/pins
start_famfsd --fused "$FAMFS_FUSED" --set "holds.pin_dir=$PINS"
make_devices 2 64MiB
api POST /v1/interleave-sets '{"name":"s0","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"s0","log_size":"8MiB"}'; expect 201
mkdir -p "$T/src" "$T/cmnt"
gen_source() {
	head -c 2097152 /dev/urandom >"$T/src/data.bin"
	cp "$T/src/data.bin" "$T/gen$1.bin"
}
ingest() {
	run_job "{\"kind\":\"ingest\",\"params\":{\"dataset\":\"cl\",\"filesystem\":\"fs0\",\"source\":\"$T/src\",\"dest\":\"/cl\",\"keep\":1}}"
	[ "$JOB_STATE" = succeeded ] || fail "ingest: $BODY"
}
gen_source 1
ingest
api POST /v1/datasets/cl/holds '{"owner":"o1"}'; expect 409 conflict
api POST /v1/mounts "{\"name\":\"c0\",\"filesystem\":\"fs0\",\"path\":\"$T/cmnt\",\"role\":\"client\"}"
expect 201

api POST /v1/datasets/cl/holds '{"owner":"o1","timeout_seconds":60}'; expect 201
[ "$(jq_get "$BODY" mount)" = c0 ] || fail "the client mount: $BODY"
[ "$(jq_get "$BODY" generation)" = 1 ] || fail "generation: $BODY"
cmp -s "$PINS/cl/1/data.bin" "$T/gen1.bin" || fail "pin of generation 1 on the client mount"
pass "a hold through a client mount pins generation 1"

gen_source 2
ingest
api POST /v1/datasets/cl/holds '{"owner":"o2","timeout_seconds":60}'; expect 201
[ "$(jq_get "$BODY" generation)" = 2 ] || fail "generation: $BODY"
cmp -s "$PINS/cl/2/data.bin" "$T/gen2.bin" || fail "pin of generation 2 right after the refresh"
cmp -s "$PINS/cl/1/data.bin" "$T/gen1.bin" || fail "pin of generation 1 after the refresh"
pass "right after a refresh, a hold waits for the client to replay the switch: its pin shows generation 2; 1's still shows 1"

api DELETE '/v1/holds?owner=o1'; expect 200
api DELETE '/v1/holds?owner=o2'; expect 200
api DELETE /v1/mounts/c0; expect 204
