#!/bin/bash
# apply_prune_roundtrip: --prune and apply are inverse, for every kind apply
# deletes. Two real famfsd (m0 master, c1 client): apply makes emulated
# devices (created by m0, adopted by c1), a set, a filesystem, a dataset
# (ingest job) and, with famfs-fused, a master and a client mount; a file
# naming only the hosts first reports each of them by name (kept), then
# with --prune deletes them all (the device files and the superblock go
# too); the first file applied again recreates everything as it was
# (the dataset ingested anew into the new filesystem), and a third apply
# is "No changes.".
source "$(dirname "$0")/lib.sh"
start_host m0
start_host c1
api m0 POST /v1/jobs '{"kind":"ingest","params":{}}'
[ "$STATUS" = 501 ] && { echo "skip: famfsd has no ingest runner"; exit 77; }
F=$T/cluster.yaml
EMPTY=$T/empty.yaml
mkdir -p "$T/src"
head -c 1000000 /dev/urandom >"$T/src/w.bin"

cat >"$EMPTY" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: rt}
hosts:
  - {name: m0, endpoint: $T/m0/sock, role: master}
  - {name: c1, endpoint: $T/c1/sock, role: client}
EOT
cp "$EMPTY" "$F"
cat >>"$F" <<EOT
devices:
  - {name: shm0, emul: {path: $T/shm0, size: 16MiB}}
  - {name: shm1, emul: {path: $T/shm1, size: 16MiB}}
sets:
  - {name: pool, devices: [shm0, shm1]}
filesystems:
  - {name: shared, set: pool, master: m0, logSize: 4MiB}
datasets:
  - {name: ds, source: $T/src, filesystem: shared}
EOT
nmounts=0
if have_fused; then
	nmounts=2
	cat >>"$F" <<EOT
mounts:
  - {filesystem: shared, host: m0, path: $T/mnt/m0, role: master}
  - {filesystem: shared, host: c1, path: $T/mnt/c1, role: client}
EOT
fi

# summary: what each host has, without ids, uuids and times.
summary() {
	for h in m0 c1; do
		for p in /v1/devices /v1/interleave-sets /v1/filesystems /v1/mounts; do
			get "$h" "$p" | python3 -c '
import json, sys
keep = {"name", "path", "size", "set", "provider", "devices", "chunk", "strips",
        "filesystem", "master", "log_size", "role", "options"}
items = json.load(sys.stdin)["items"]
print(sys.argv[1], json.dumps([{k: v for k, v in sorted(i.items()) if k in keep} for i in items], sort_keys=True))' "$h$p"
		done
	done
}

run_cli 0 apply "$F"
first=$(summary)
[ "$(count m0 /v1/devices)" = 2 ] && [ "$(count c1 /v1/devices)" = 2 ] || fail "devices: $first"
[ "$(count c1 /v1/filesystems)" = 1 ] || fail "client did not adopt: $first"
[ "$(count m0 /v1/mounts)$(count c1 /v1/mounts)" = "$([ $nmounts = 2 ] && echo 11 || echo 00)" ] || fail "mounts: $first"
[ "$(field m0 /v1/files/shared/ds/w.bin size)" = 1000000 ] || fail "dataset: $(get m0 /v1/files/shared)"
pass "first apply: devices, set, filesystem, dataset$([ $nmounts = 2 ] && echo ', mounts') on m0 and c1"

# Without --prune: kept, and each one named.
run_cli 0 apply "$EMPTY"
for r in "device shm0 on m0" "device shm1 on c1" "set pool on m0" "set pool on c1" \
	 "filesystem shared on m0" "filesystem shared on c1"; do
	grep -q "^  $r$" <<<"$OUT" || fail "the note does not name '$r': $OUT"
done
[ $nmounts = 2 ] && { grep -q "^  mount shared-client on c1$" <<<"$OUT" || fail "mount not named: $OUT"; }
n=$((6 + 2 + nmounts))
grep -q "^Note: $n resources on these hosts are not in the file; kept (--prune deletes them):$" <<<"$OUT" \
	|| fail "note: $OUT"
[ "$first" = "$(summary)" ] || fail "apply without --prune changed something"
pass "without --prune: the $n resources not in the file are named and kept"

run_cli 0 apply --prune --force-delete-data "$EMPTY"
grep -q "delete device shm0 on m0 (emul $T/shm0: file removed)" <<<"$OUT" || fail "device prune: $OUT"
grep -q "delete filesystem shared on m0 (on set pool, .*: superblock wiped)" <<<"$OUT" || fail "fs prune: $OUT"
grep -q "delete filesystem shared on c1 (on set pool, .*: forgotten)" <<<"$OUT" || fail "client fs prune: $OUT"
for h in m0 c1; do
	for p in /v1/devices /v1/interleave-sets /v1/filesystems /v1/mounts; do
		[ "$(count $h $p)" = 0 ] || fail "--prune left $h$p: $(get $h $p)"
	done
done
for f in shm0 shm0.uuid shm1 shm1.uuid; do
	[ -e "$T/$f" ] && fail "--prune left $T/$f"
done
run_cli 0 diff "$EMPTY"
pass "--prune deletes every kind on both hosts, the device files with them"

run_cli 0 apply "$F"
grep -q "already_exists" <<<"$OUT" && fail "re-create: $OUT"
[ "$first" = "$(summary)" ] || fail "re-created state differs:
$first
---
$(summary)"
grep -q "^  done:    create dataset ds on m0 (ingest job [0-9]*)$" <<<"$OUT" || fail "dataset not ingested again: $OUT"
[ "$(field m0 /v1/files/shared/ds/w.bin size)" = 1000000 ] || fail "dataset after re-create: $(get m0 /v1/files/shared)"
run_cli 0 apply "$F"
grep -q "^No changes. The cluster matches $F.$" <<<"$OUT" || fail "third apply: $OUT"
pass "create -> prune -> create: the same devices, set, filesystem, mounts and dataset again; then No changes."
