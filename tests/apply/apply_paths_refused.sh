#!/bin/bash
# apply_paths_refused: a device, mount or dataset path that the host's
# famfsd does not allow (famfsd.yaml paths.*, GET /v1/host .paths) is a
# conflict in the plan: apply lists each one, naming the setting, and
# changes nothing on the host.
source "$(dirname "$0")/lib.sh"
start_host h0
F=$T/cluster.yaml
mkdir -p "$T/src"
cat >"$F" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: refused}
hosts:
  - {name: h0, endpoint: $T/h0/sock, role: master}
devices:
  - {name: emul0, emul: {path: $T/dev0, size: 16MiB}}
  - {name: emul1, emul: {path: /etc/famfs-x, size: 16MiB}}
sets:
  - {name: set0, devices: [emul0], chunk: 2MiB, strips: 1}
filesystems:
  - {name: fs0, set: set0, master: h0, logSize: 4MiB}
mounts:
  - {filesystem: fs0, host: h0, path: /opt/famfs, role: master}
  - {filesystem: fs0, host: h0, path: $T/mnt/../../../etc, role: client}
datasets:
  - {name: ds0, source: /etc, filesystem: fs0}
EOT
before=$(snapshot h0)
run_cli 1 apply "$F"
for want in "device emul1: path /etc/famfs-x is outside paths.devices on host h0" \
	    "mount fs0-master: path /opt/famfs is outside paths.mounts" \
	    "path $T/mnt/../../../etc is outside paths.mounts" \
	    "dataset ds0: path /etc is outside paths.sources"; do
	grep -qF "$want" <<<"$OUT" || fail "no '$want' in: $OUT"
done
grep -q "Apply refused: 4 conflicts above; nothing was changed." <<<"$OUT" || fail "refused: $OUT"
[ "$before" = "$(snapshot h0)" ] || fail "a refused apply changed the host"
[ ! -e /etc/famfs-x ] && [ ! -e "$T/dev0" ] || fail "a device file was created"
pass "paths outside paths.devices, paths.mounts, paths.sources: 4 conflicts, nothing changed"
