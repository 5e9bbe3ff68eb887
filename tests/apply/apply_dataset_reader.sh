#!/bin/bash
# apply_dataset_reader: refreshes driven by `famfs-cli apply` while a
# reader on a client mount walks the dataset. The source on the local
# filesystem flips between two generations' trees (tests/fuse/gen_walk.py
# layouts); each apply makes the next generation and switches it in. The
# reader opens the dataset's path on the client in a loop and checks
# every walk against one generation's SHA-256 sums: never a mix, a
# missing file or a torn file. A watcher prints how long each switch took
# to show on the client after the master (p50, p99: a figure for the
# notes, not a check).
source "$(dirname "$0")/lib.sh"
have_fused || { echo "no famfs-fused or /dev/fuse: skipped"; exit 77; }
GW="python3 $(dirname "$0")/../fuse/gen_walk.py"
ROUNDS=${ROUNDS:-4}
start_host h0
F=$T/cluster.yaml
mkdir -p "$T/src"
$GW make "$T/src" 1 || fail "generation 1's source"
cat >"$F" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: reader}
hosts:
  - {name: h0, endpoint: $T/h0/sock, role: master}
devices:
  - {name: e0, emul: {path: $T/e0, size: 128MiB}}
  - {name: e1, emul: {path: $T/e1, size: 128MiB}}
sets:
  - {name: s0, devices: [e0, e1]}
filesystems:
  - {name: fs0, set: s0, master: h0, logSize: 4MiB}
mounts:
  - {filesystem: fs0, host: h0, path: $T/mnt, role: master, backend: fuse}
  - {filesystem: fs0, host: h0, path: $T/cli, role: client, backend: fuse}
datasets:
  - {name: ds, source: $T/src, filesystem: fs0, keep: 1}
EOT
run_cli 0 apply "$F"
[ "$(field h0 /v1/datasets/ds generation)" = 1 ] || fail "generation 1: $(get h0 /v1/datasets/ds)"
wait_for 30 "generation 1 on the client" test -e "$T/cli/ds/only-in-gen1"
[ "$(field h0 /v1/datasets/ds generations.0.path)" = /ds ] || fail "$(get h0 /v1/datasets/ds)"

$GW walk "$T/cli/ds" "$T/stop" "$T/walks" 2>"$T/walker.log" &
WPID=$!
$GW watch "$T/mnt/ds" "$T/cli/ds" "$T/stop" "$T/lat" 2>"$T/watch.log" &
LPID=$!
for i in $(seq 1 "$ROUNDS"); do
	g=$((i % 2 + 1))
	rm -rf "$T/src" && mkdir "$T/src" && $GW make "$T/src" $g || fail "round $i: the source"
	run_cli 0 apply "$F"
	grep -q "^  done:    update dataset ds on h0 (ingest job [0-9]*)$" <<<"$OUT" ||
		fail "round $i: apply did not refresh: $OUT"
	[ "$(field h0 /v1/datasets/ds generation)" = $((i + 1)) ] ||
		fail "round $i: generation: $(get h0 /v1/datasets/ds)"
	wait_for 30 "round $i: generation $((i + 1)) on the client" test -e "$T/cli/ds/only-in-gen$g"
	kill -0 "$WPID" 2>/dev/null || fail "round $i: the reader stopped: $(cat "$T/walker.log")"
done
touch "$T/stop"
wait "$WPID" || fail "a walk on the client read no single generation: $(cat "$T/walker.log")"
wait "$LPID" || fail "the watcher: $(cat "$T/watch.log")"
python3 - "$T/walks" "$ROUNDS" <<'PY' || fail "the reader did not see both generations: $(cat "$T/walks")"
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(0 if c["gen1"] and c["gen2"] and c["changes"] >= 1 else 1)
PY
echo "walks: $(cat "$T/walks"); switch seen on the client after the master: $(cat "$T/lat")"
pass "every client walk during $ROUNDS apply-driven refreshes read one generation whole"

run_cli 0 apply "$F"
grep -q "^No changes" <<<"$OUT" || fail "after the refreshes: $OUT"
[ "$(field h0 /v1/datasets/ds generations.1.state)" = kept ] || fail "kept: $(get h0 /v1/datasets/ds)"
"$FAMFS_CLI" fsck -q "$T/mnt" >"$T/fsck" 2>&1 || fail "fsck: $(cat "$T/fsck")"
pass "then No changes., one generation kept, fsck clean"
