#!/bin/bash
# apply_drift_unlocked: GET /v1/datasets?drift=true walks the sources
# without the state lock. A dataset's source holds a famfs-fused client
# mount whose server is stopped (SIGSTOP), so the walk blocks inside it
# for as long as the test wants; meanwhile requests that take the lock
# (GET /v1/datasets, a POST) are answered. Resumed, the drift answer
# comes, with the rows as they were when it was asked.
source "$(dirname "$0")/lib.sh"
have_fused || { echo "no famfs-fused or /dev/fuse: skipped"; exit 77; }
start_host h0
F=$T/cluster.yaml
mkdir -p "$T/blk/m"
echo one >"$T/blk/a"
cat >"$F" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: nolock}
hosts:
  - {name: h0, endpoint: $T/h0/sock, role: master}
devices:
  - {name: e0, emul: {path: $T/e0, size: 16MiB}}
  - {name: e1, emul: {path: $T/e1, size: 16MiB}}
sets:
  - {name: s0, devices: [e0, e1]}
filesystems:
  - {name: fs0, set: s0, master: h0, logSize: 2MiB}
datasets:
  - {name: blk, source: $T/blk, filesystem: fs0}
EOT
run_cli 0 apply "$F"
[ "$(field h0 /v1/datasets/blk generation)" = 1 ] || fail "ingest: $(get h0 /v1/datasets/blk)"

# a client mount of fs0 in the source, its server stopped once ready
"$FAMFS_FUSED" --client --poll-ms 200 --host-name blk "$T/e0" "$T/e1" "$T/blk/m" \
	>"$T/fused.log" 2>&1 &
FPID=$!
# (cleanup reads the test's exit status from $?)
stopped_cleanup() { local rc=$?; kill -CONT "$FPID" 2>/dev/null; (exit $rc); cleanup; }
trap stopped_cleanup EXIT
wait_for 20 "the client mount" grep -q ready "$T/fused.log"
kill -STOP "$FPID"
curl -s --unix-socket "$T/h0/sock" -o "$T/drift.out" -w '%{http_code}' \
	'http://famfsd/v1/datasets/blk?drift=true' >"$T/drift.status" &
CPID=$!
# a famfsd thread waits for the stopped server: the walk is in the mount
in_fuse() { cat /proc/"${PIDS[h0]}"/task/*/wchan 2>/dev/null | grep -qE 'fuse|request_wait_answer'; }
wait_for 20 "the drift walk to reach the stopped mount" in_fuse
# (-m: with the lock held they would wait for as long as the server stops)
st=$(curl -s -m 30 --unix-socket "$T/h0/sock" -o /dev/null -w '%{http_code}' \
	http://famfsd/v1/datasets/blk)
[ "$st" = 200 ] || fail "GET during the walk: $st"
st=$(curl -s -m 30 --unix-socket "$T/h0/sock" -o /dev/null -w '%{http_code}' -X POST \
	-H 'Content-Type: application/json' \
	--data-binary '{"filesystem":"fs0","path":"/during","size":1000}' http://famfsd/v1/files)
[ "$st" = 201 ] || fail "POST during the walk: $st"
kill -0 "$CPID" 2>/dev/null || fail "the drift walk ended with its server stopped: $(cat "$T/drift.out")"
pass "requests that take the state lock are answered while a drift walk is blocked"

kill -CONT "$FPID"
wait "$CPID"
[ "$(cat "$T/drift.status")" = 200 ] || fail "drift: $(cat "$T/drift.status") $(cat "$T/drift.out")"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["name"] == "blk" and d["generation"] == 1, d
assert d["drift"]["changed"] is True and d["drift"]["added"] > 0, d["drift"]' "$T/drift.out" \
	|| fail "drift answer: $(cat "$T/drift.out")"
fusermount3 -u "$T/blk/m" || fail "unmount"
wait "$FPID" || fail "famfs-fused exited with $? after the unmount"
trap cleanup EXIT
pass "resumed, the drift answer comes: the mount's tree is a change"
run_cli 0 diff "$F"
grep -q "^No changes" <<<"$OUT" || fail "diff once the mount is gone: $OUT"
pass "unmounted, the source is as ingested: No changes."
