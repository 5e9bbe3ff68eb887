#!/bin/bash
# famfsd_mount_failed: a mount whose server cannot start is refused with
# 422 mount_failed naming why, and leaves nothing: the row POST /v1/mounts
# commits before spawning (its intent) is deleted again, also after a
# famfsd restart, and the path is not mounted.
source "$(dirname "$0")/lib.sh"
[ -e /dev/fuse ] || { echo "no /dev/fuse"; exit 77; }
start_famfsd --fused /bin/false
make_devices 2
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"4MiB"}'; expect 201
before=$(db_state)
api POST /v1/mounts "{\"name\":\"m\",\"filesystem\":\"fs0\",\"path\":\"$T/mnt-m\",\"role\":\"master\"}"
expect 422 mount_failed
api GET /v1/mounts/m
expect 404 not_found
[ "$(db_state)" = "$before" ] || fail "the failed mount changed the database"
stop_famfsd
start_famfsd --fused /bin/false
api GET /v1/mounts
[ "$(jq_get "$BODY" .items)" = "[]" ] || fail "a failed mount came back after a restart: $BODY"
awk -v p="$T/mnt-m" '$5 == p { exit 1 }' /proc/self/mountinfo || fail "$T/mnt-m is mounted"
pass "a mount that cannot start is refused (422) and leaves no row, also after a restart"
