#!/bin/bash
# famfsd_device_file_gone: a device file that disappeared or was replaced
# gives 422 device_unusable naming it, never 500, and changes nothing.
source "$(dirname "$0")/lib.sh"
# the store but the mkfs intent marker, which a failed mkfs leaves empty
# by design (api/filesystems.c: it is written before the devices)
state() { db_state | grep -v '^kv|mkfs_intent:'; }
start_famfsd
make_devices 4 256MiB
api POST /v1/interleave-sets '{"name":"s1","devices":["emul0","emul1"],"chunk":"2MiB"}'
expect 201
api POST /v1/interleave-sets '{"name":"s2","devices":["emul2","emul3"],"chunk":"2MiB"}'
expect 201
api POST /v1/filesystems '{"name":"fs2","set":"s2"}'
expect 201

# a filesystem on a set whose device file is gone
rm "$T/dev1"
before=$(state)
api POST /v1/filesystems '{"name":"fs1","set":"s1"}'
expect 422 device_unusable
echo "$BODY" | grep -q "$T/dev1" || fail "message does not name the device file: $BODY"
[ "$(state)" = "$before" ] || fail "a refused filesystem changed the state: $(diff <(echo "$before") <(state))"
pass "create on a set with a missing device file: 422 device_unusable naming it"

# a formatted filesystem whose device file was replaced by another file
stop_famfsd
rm "$T/dev3"
truncate -s 256M "$T/dev3"
start_famfsd
before=$(state)
api POST /v1/files '{"filesystem":"fs2","path":"/a","size":4096}'
expect 422 device_unusable
echo "$BODY" | grep -q "fs2" || fail "message does not name the filesystem: $BODY"
rm "$T/dev3"
api POST /v1/files '{"filesystem":"fs2","path":"/a","size":4096}'
expect 422 device_unusable
[ "$(state)" = "$before" ] || fail "a refused file create changed the state"
pass "a file in a filesystem whose device file was replaced or removed: 422"
