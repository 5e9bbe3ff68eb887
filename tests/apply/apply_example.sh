#!/bin/bash
# apply_example: examples/cluster.yaml as it is, except that its socket,
# device files, mount points and dataset source move under a temporary
# directory: apply from nothing, the dataset's files show up on the client
# mount, and a second apply reports no changes (what `make demo` does).
source "$(dirname "$0")/lib.sh"
have_fused || { echo "skip: famfs-fused is needed for the example's mounts"; exit 77; }
start_host node0
F=$T/cluster.yaml
sed -e "s#/run/famfsd/famfsd.sock#$T/node0/sock#" \
    -e "s#/dev/shm/famfs-demo-#$T/#" \
    -e "s#/mnt/famfs#$T/mnt/famfs#" \
    -e "s#/srv/famfs-demo/dataset#$T/dataset#" \
    "$(dirname "$0")/../../examples/cluster.yaml" >"$F"
mkdir -p "$T/dataset/weights"
for i in 1 2 3; do head -c $((i * 1500000)) /dev/urandom >"$T/dataset/weights/shard$i.bin"; done
echo '{"model": "demo"}' >"$T/dataset/config.json"

run_cli 0 validate "$F"
run_cli 0 apply "$F"
grep -q "Apply complete: 9 created, 0 updated, 0 deleted." <<<"$OUT" || fail "apply: $OUT"
shard3_on_client() {
	[ "$(stat -c %s "$T/mnt/famfs-client/demo/weights/shard3.bin" 2>/dev/null)" = 4500000 ]
}
wait_for 60 "shard3.bin (4500000 bytes) on the client mount" shard3_on_client
cmp "$T/dataset/weights/shard3.bin" "$T/mnt/famfs-client/demo/weights/shard3.bin" \
	|| fail "the dataset is not on the client mount: $(ls -R "$T/mnt" 2>&1 | head)"
cmp "$T/dataset/config.json" "$T/mnt/famfs-client/demo/config.json" || fail "config.json"
pass "apply of examples/cluster.yaml: devices, set, filesystem, mounts, dataset on the client mount"

before=$(snapshot node0)
run_cli 0 apply "$F"
grep -q "^No changes. The cluster matches $F.$" <<<"$OUT" || fail "second apply: $OUT"
[ "$before" = "$(snapshot node0)" ] || fail "second apply changed the state"
pass "second apply of the example: No changes."
