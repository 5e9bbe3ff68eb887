#!/bin/bash
# apply_hf_dataset: a Hugging Face hub cache goes through `famfs-cli apply`
# as a dataset (issue 25, points 6 and 8). Two real famfsd (m0 master with
# a famfs-fused master mount, c1 a client mount). The ingest keeps every
# symlink (snapshots/<rev>/model.safetensors -> ../../blobs/<sha>);
# GET /v1/files shows type and target; on the client the weights read
# byte-identical through the snapshot path with read() and mmap(); a
# second apply says "No changes."
source "$(dirname "$0")/lib.sh"
have_fused || { echo "skip: needs famfs-fused and /dev/fuse"; exit 77; }
start_host m0
start_host c1
F=$T/cluster.yaml
H=$T/hub/models--org--name
sha=0123456789abcdef0123456789abcdef01234567
mkdir -p "$H/blobs" "$H/snapshots/main-rev" "$H/refs"
head -c 5000000 /dev/urandom >"$H/blobs/$sha"
echo '{"model_type": "x"}' >"$H/blobs/cfg0"
ln -s "../../blobs/$sha" "$H/snapshots/main-rev/model.safetensors"
ln -s ../../blobs/cfg0 "$H/snapshots/main-rev/config.json"
echo main-rev >"$H/refs/main"
cat >"$F" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: hub}
hosts:
  - {name: m0, endpoint: $T/m0/sock, role: master}
  - {name: c1, endpoint: $T/c1/sock, role: client}
devices:
  - {name: shm0, emul: {path: $T/shm0, size: 64MiB}}
sets:
  - {name: pool, devices: [shm0]}
filesystems:
  - {name: shared, set: pool, master: m0, logSize: 4MiB}
mounts:
  - {filesystem: shared, host: m0, path: $T/mnt/m0, role: master}
  - {filesystem: shared, host: c1, path: $T/mnt/c1, role: client}
datasets:
  - {name: hub, source: $T/hub, filesystem: shared, verify: true}
EOT
run_cli 0 apply "$F"
[ "$(field m0 /v1/jobs items.0.state)" = succeeded ] || fail "ingest job: $(get m0 /v1/jobs)"
snap=/v1/files/shared/hub/models--org--name/snapshots/main-rev/model.safetensors
[ "$(field m0 "$snap" type)" = symlink ] && [ "$(field m0 "$snap" target)" = "../../blobs/$sha" ] ||
	fail "GET $snap: $(get m0 "$snap")"
[ "$(field m0 /v1/files/shared/hub/models--org--name/blobs/$sha type)" = file ] || fail "blob type"
pass "apply ingests the hub cache; GET /v1/files shows type symlink and its target"

C=$T/mnt/c1/hub/models--org--name/snapshots/main-rev
wait_for 15 "the client to see the snapshot" test -e "$C/model.safetensors"
python3 - "$H/blobs/$sha" "$C/model.safetensors" "$C/config.json" "$H/blobs/cfg0" <<'PY' || fail "client read"
import mmap, os, sys
want, path, cfg, cfg_want = sys.argv[1:5]
w = open(want, "rb").read()
assert os.readlink(path) == "../../blobs/" + os.path.basename(want), os.readlink(path)
assert open(path, "rb").read() == w, "read() through the snapshot path differs"
with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
    assert m[:] == w, "mmap() through the snapshot path differs"
assert open(cfg, "rb").read() == open(cfg_want, "rb").read()
PY
pass "the client reads the weights byte-identical through snapshots/main-rev with read() and mmap()"

before=$(snapshot m0)
run_cli 0 apply "$F"
grep -q "^No changes" <<<"$OUT" || fail "second apply: $OUT"
[ "$before" = "$(snapshot m0)" ] || fail "the no-op apply changed the state"
pass "a second apply says No changes."
