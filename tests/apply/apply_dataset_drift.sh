#!/bin/bash
# apply_dataset_drift: famfsd keeps the source summary a dataset's ingest
# took (GET /v1/datasets). diff and apply compare the source now with it:
# a changed source is "~ update dataset ... (source changed: ...)", whose
# job makes generation 2 (files added, changed and removed follow); an
# unchanged one is "No changes.". A dataset's interleave goes to its job
# (through the FUSE master mount when famfs-fused is there).
# Bad requests to /v1/datasets and bad dataset params change nothing.
source "$(dirname "$0")/lib.sh"
start_host h0
F=$T/cluster.yaml
mkdir -p "$T/src/sub" "$T/src2"
for i in 1 2 3 4; do echo "file $i" >"$T/src/f$i.txt"; done
head -c 3000000 /dev/urandom >"$T/src/sub/b.bin"
head -c 9000000 /dev/urandom >"$T/src2/big.bin"

# with famfs-fused, ingest goes through a master mount (the mount sink:
# the interleave reaches famfs-fused as user.famfs.policy); without it
# famfsd writes as master itself (the lib sink)
MOUNTS=
have_fused && MOUNTS="mounts:
  - {filesystem: fs0, host: h0, path: $T/mnt, role: master}"
cat >"$F" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: drift}
hosts:
  - {name: h0, endpoint: $T/h0/sock, role: master}
devices:
  - {name: e0, emul: {path: $T/e0, size: 64MiB}}
  - {name: e1, emul: {path: $T/e1, size: 64MiB}}
sets:
  - {name: s0, devices: [e0, e1]}
filesystems:
  - {name: fs0, set: s0, master: h0, logSize: 4MiB}
$MOUNTS
datasets:
  - {name: ds, source: $T/src, filesystem: fs0}
  - {name: wide, source: $T/src2, filesystem: fs0, interleave: {chunk: 4MiB, strips: 2}}
EOT

run_cli 0 apply "$F"
grep -q "conflict" <<<"$OUT" && fail "interleave still a conflict: $OUT"
[ "$(field h0 /v1/datasets/ds generation)" = 1 ] || fail "generation 1: $(get h0 /v1/datasets/ds)"
[ "$(field h0 /v1/datasets/ds state)" = ready ] || fail "state: $(get h0 /v1/datasets/ds)"
[ "$(field h0 /v1/datasets/ds files)" = 5 ] || fail "files: $(get h0 /v1/datasets/ds)"
[ "$(field h0 /v1/datasets/ds bytes)" = 3000028 ] || fail "bytes: $(get h0 /v1/datasets/ds)"
[ "$(field h0 /v1/datasets/ds source_summary.dirs)" = 1 ] || fail "dirs: $(get h0 /v1/datasets/ds)"
job=$(field h0 /v1/datasets/ds job)
[ "$(field h0 /v1/jobs/$job state)" = succeeded ] || fail "the job that made it: $job"
[ "$(field h0 /v1/datasets/ds generations.0.state)" = serving ] || fail "generations: $(get h0 /v1/datasets/ds)"
digest1=$(field h0 /v1/datasets/ds source_summary.digest)
[[ $digest1 =~ ^[0-9a-f]{32}$ ]] || fail "digest: $digest1"
[ "$(count h0 /v1/datasets)" = 2 ] || fail "list: $(get h0 /v1/datasets)"
pass "an ingested dataset is recorded with its source summary, generation 1"

[ "$(field h0 /v1/files/fs0/wide/big.bin map.chunk)" = 4194304 ] || fail "wide's chunk: $(get h0 /v1/files/fs0/wide/big.bin)"
[ "$(field h0 /v1/files/fs0/wide/big.bin map.strips)" = 2 ] || fail "wide's strips: $(get h0 /v1/files/fs0/wide/big.bin)"
[ "$(field h0 /v1/files/fs0/ds/sub/b.bin map.chunk)" = 2097152 ] || fail "ds keeps the default chunk: $(get h0 /v1/files/fs0/ds/sub/b.bin)"
pass "a dataset's interleave {chunk, strips} is its ingest job's, no conflict${MOUNTS:+ (through the master mount)}"

run_cli 0 diff "$F"
grep -q "^No changes" <<<"$OUT" || fail "unchanged source: $OUT"
[ "$(field h0 '/v1/datasets/ds?drift=true' drift.changed)" = False ] || fail "drift: $(get h0 '/v1/datasets/ds?drift=true')"
pass "an unchanged source: No changes."

echo "new a" >"$T/src/n1.txt"
echo "new b" >"$T/src/sub/n2.txt"
echo "file 2 changed" >"$T/src/f2.txt"
touch -d '2020-01-01' "$T/src/f2.txt"
rm "$T/src/f4.txt"
run_cli 1 diff "$F"
grep -q "^  ~ update dataset ds on h0 (source changed: +2 files, ~1 changed, -1 removed, +" <<<"$OUT" \
	|| fail "changed source: $OUT"
[ "$(grep -c '^  [+~-] ' <<<"$OUT")" = 1 ] || fail "only ds changes: $OUT"
run_cli 1 diff -o json "$F"
python3 -c '
import json, sys
p = json.loads(sys.argv[1])
s = [x for x in p["steps"] if x["kind"] == "dataset"]
assert len(s) == 1 and s[0]["op"] == "update" and "source changed" in s[0]["detail"], s' "$OUT" \
	|| fail "json plan: $OUT"
pass "a changed source is an update, counted: added, changed, removed, bytes"

run_cli 0 apply "$F"
grep -q "^  done:    update dataset ds on h0 (ingest job [0-9]*)$" <<<"$OUT" || fail "update step: $OUT"
[ "$(field h0 /v1/datasets/ds generation)" = 2 ] || fail "generation 2: $(get h0 /v1/datasets/ds)"
[ "$(field h0 /v1/files/fs0/ds/sub/n2.txt size)" = 6 ] || fail "added file: $(get h0 /v1/files/fs0/ds/sub)"
[ "$(field h0 /v1/files/fs0/ds/f2.txt size)" = 15 ] || fail "changed file: $(get h0 /v1/files/fs0/ds/f2.txt)"
api h0 GET /v1/files/fs0/ds/f4.txt
[ "$STATUS" = 404 ] || fail "removed file still there: $STATUS $BODY"
[ "$(field h0 /v1/datasets/ds source_summary.digest)" != "$digest1" ] || fail "digest unchanged"
run_cli 0 apply "$F"
grep -q "^No changes" <<<"$OUT" || fail "after the refresh: $OUT"
pass "apply makes generation 2 from the changed source; then No changes."

# With libfamfs's directory exchange, generation 2 was made in the staging
# directory and switched with /ds: generation 1 is kept (keep 1) under
# /.famfs-retired, whole (f4.txt still in it); a third generation removes
# it. Without it, /ds was updated in place: one generation listed.
gens=$(field h0 /v1/datasets/ds generations | python3 -c 'import ast,sys; print(len(ast.literal_eval(sys.stdin.read())))')
if [ "$gens" = 2 ]; then
	[ "$(field h0 /v1/datasets/ds generations.1.path)" = /.famfs-retired/ds.1 ] || fail "kept: $(get h0 /v1/datasets/ds)"
	[ "$(field h0 /v1/datasets/ds generations.1.state)" = kept ] || fail "kept state: $(get h0 /v1/datasets/ds)"
	[ "$(field h0 /v1/files/fs0/.famfs-retired/ds.1/f4.txt size)" = 7 ] || fail "generation 1 not whole"
	echo "third" >"$T/src/n3.txt"
	run_cli 0 apply "$F"
	[ "$(field h0 /v1/datasets/ds generation)" = 3 ] || fail "generation 3: $(get h0 /v1/datasets/ds)"
	[ "$(field h0 /v1/datasets/ds generations.1.path)" = /.famfs-retired/ds.2 ] || fail "kept 2: $(get h0 /v1/datasets/ds)"
	api h0 GET /v1/files/fs0/.famfs-retired/ds.1
	[ "$STATUS" = 404 ] || fail "generation 1 not removed: $STATUS $BODY"
	api h0 GET /v1/files/fs0/.famfs-staging/ds.3
	[ "$STATUS" = 404 ] || fail "staging left: $STATUS $BODY"
	pass "generations switched: the previous one kept (keep 1), older ones removed"
	run_cli 0 rollout history dataset ds --host "$T/h0/sock"
	grep -q "^3  *serving  " <<<"$OUT" && grep -q "^2  *kept  " <<<"$OUT" || fail "history: $OUT"
	run_cli 0 rollout undo dataset ds --host "$T/h0/sock"
	[ "$(field h0 /v1/datasets/ds generation)" = 2 ] || fail "undo: $(get h0 /v1/datasets/ds)"
	api h0 GET /v1/files/fs0/ds/n3.txt
	[ "$STATUS" = 404 ] || fail "generation 3's file after undo: $STATUS"
	[ "$(field h0 /v1/files/fs0/ds/sub/n2.txt size)" = 6 ] || fail "generation 2 not whole after undo"
	[ "$(field h0 /v1/datasets/ds generations.0.path)" = /.famfs-retired/ds.3 ] || fail "3 kept: $(get h0 /v1/datasets/ds)"
	run_cli 0 diff "$F"
	grep -q "^No changes" <<<"$OUT" || fail "after undo (the source did not change): $OUT"
	run_cli 0 rollout history dataset ds -o json --host "$T/h0/sock"
	python3 -c 'import json,sys; g=json.loads(sys.argv[1])["items"]; assert [(x["generation"], x["state"]) for x in g] == [(3, "kept"), (2, "serving")], g' "$OUT" \
		|| fail "history json: $OUT"
	pass "rollout history lists the generations; rollout undo switches back to the kept one"
	# a refresh after the undo makes generation 4: 3 is still recorded
	echo "fourth" >"$T/src/n3.txt"
	run_cli 0 apply "$F"
	[ "$(field h0 /v1/datasets/ds generation)" = 4 ] || fail "generation 4 after the undo: $(get h0 /v1/datasets/ds)"
	[ "$(field h0 /v1/files/fs0/ds/n3.txt size)" = 7 ] || fail "generation 4's file: $(get h0 /v1/files/fs0/ds/n3.txt)"
	[ "$(field h0 /v1/datasets/ds state)" = ready ] || fail "state after the refresh: $(get h0 /v1/datasets/ds)"
	run_cli 0 apply "$F"
	grep -q "^No changes" <<<"$OUT" || fail "after generation 4: $OUT"
	GEN=4
	pass "a refresh after an undo makes the next unused generation (4), not one that is kept"
else
	[ "$gens" = 1 ] || fail "generations: $(get h0 /v1/datasets/ds)"
	GEN=2
	run_cli 1 rollout undo dataset ds --host "$T/h0/sock"
	grep -q "cannot switch generations" <<<"$OUT" || fail "undo without exchange: $OUT"
	echo "no directory exchange in this build: refreshed in place, no undo"
fi

metrics=$(get h0 /metrics)
grep -q "^famfs_dataset_generation{dataset=\"ds\",fs=\"fs0\"} $GEN\$" <<<"$metrics" || fail "metrics: $(grep dataset <<<"$metrics")"
grep -q '^famfs_dataset_refresh_failures_total{dataset="ds",fs="fs0"} 0$' <<<"$metrics" || fail "failures metric"
grep -q '^famfs_dataset_bytes{dataset="wide",fs="fs0"} 9000000$' <<<"$metrics" || fail "bytes metric"
pass "/metrics has each dataset's generation, bytes and failures"

H=(--host "$T/h0/sock")
run_cli 0 get datasets "${H[@]}"
grep -q "^NAME  *FILESYSTEM  *GENERATION  *STATE  *FILES  *BYTES  *REFRESHED" <<<"$OUT" || fail "table header: $OUT"
grep -q "^ds  *fs0  *$GEN  *ready  *[67]  " <<<"$OUT" || fail "table row: $OUT"
run_cli 0 get datasets -o wide "${H[@]}"
grep -q "$(field h0 /v1/datasets/ds source_summary.digest)" <<<"$OUT" || fail "wide has the digest: $OUT"
run_cli 0 get dataset ds -o json "${H[@]}"
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["generation"] == int(sys.argv[2]) and d["name"] == "ds"' "$OUT" "$GEN" || fail "json: $OUT"
run_cli 0 get datasets -o yaml "${H[@]}"
grep -q "generation: $GEN" <<<"$OUT" || fail "yaml: $OUT"
run_cli 0 describe dataset ds "${H[@]}"
grep -q "^drift:" <<<"$OUT" && grep -q "^  changed: false" <<<"$OUT" || fail "describe shows the drift: $OUT"
run_cli 1 get dataset nope "${H[@]}"
grep -q "nope" <<<"$OUT" || fail "unknown dataset not named: $OUT"
run_cli 2 describe dataset "${H[@]}"
pass "get datasets (table, wide, json, yaml) and describe dataset (with its drift)"

# a refresh that fails (the source is not a directory): counted, with
# its reason; the generation that serves is kept
printf '#!/bin/sh\n' >"$T/notadir"; chmod 755 "$T/notadir"
api h0 POST /v1/jobs "{\"kind\":\"ingest\",\"params\":{\"dataset\":\"ds\",\"filesystem\":\"fs0\",\"source\":\"$T/notadir\",\"dest\":\"/ds\"}}"
[ "$STATUS" = 201 ] || [ "$STATUS" = 202 ] || fail "refresh job: $STATUS $BODY"
jobs_idle() {
	get h0 /v1/jobs | python3 -c '
import json, sys
sys.exit(any(j["state"] in ("queued", "running") for j in json.load(sys.stdin)["items"]))'
}
wait_for 60 "the ingest jobs to finish" jobs_idle
[ "$(field h0 /v1/datasets/ds generation)" = $GEN ] || fail "generation lost: $(get h0 /v1/datasets/ds)"
[ "$(field h0 /v1/datasets/ds state)" = ready ] || fail "state after a failure: $(get h0 /v1/datasets/ds)"
[ "$(field h0 /v1/datasets/ds failures)" = 1 ] || fail "failures: $(get h0 /v1/datasets/ds)"
field h0 /v1/datasets/ds last_error | grep -q "source unreadable: $T/notadir: Not a directory" \
	|| fail "last_error: $(get h0 /v1/datasets/ds)"
[ "$(field h0 /v1/files/fs0/ds/sub/n2.txt size)" = 6 ] || fail "serving tree touched"
get h0 /metrics | grep -q '^famfs_dataset_refresh_failures_total{dataset="ds",fs="fs0"} 1$' \
	|| fail "failures metric: $(get h0 /metrics | grep failures)"
pass "a refresh that fails is counted with its reason; generation $GEN still serves"

before=$(get h0 /v1/datasets)
for bad in '"dataset":"no good"' '"dataset":7' '"chunk":3145728' '"chunk":"2MiB"' '"strips":65' '"strips":-1'; do
	api h0 POST /v1/jobs "{\"kind\":\"ingest\",\"params\":{\"filesystem\":\"fs0\",\"source\":\"$T/src\",\"dest\":\"/x\",$bad}}"
	[ "$STATUS" = 400 ] || fail "bad params $bad: $STATUS $BODY"
done
grep -q 'params.strips' <<<"$BODY" || fail "the error names the field: $BODY"
api h0 GET /v1/datasets/nope
[ "$STATUS" = 404 ] && grep -q "no dataset 'nope'" <<<"$BODY" || fail "unknown dataset: $STATUS $BODY"
api h0 GET '/v1/datasets?drift=maybe'
[ "$STATUS" = 400 ] && grep -q "drift" <<<"$BODY" || fail "bad drift: $STATUS $BODY"
api h0 GET '/v1/datasets?since=1'
[ "$STATUS" = 400 ] || fail "unknown parameter: $STATUS $BODY"
api h0 POST /v1/datasets '{}'
[ "$STATUS" = 405 ] || fail "POST: $STATUS $BODY"
run_cli 2 rollout undo dataset --host "$T/h0/sock"
run_cli 1 rollout history dataset nope --host "$T/h0/sock"
grep -q "nope" <<<"$OUT" || fail "history of an unknown dataset: $OUT"
api h0 POST /v1/jobs '{"kind":"dataset_undo","params":{"dataset":"nope"}}'
[ "$STATUS" = 400 ] || fail "undo of an unknown dataset: $STATUS $BODY"
api h0 POST /v1/jobs '{"kind":"dataset_undo","params":{"dataset":"ds","x":1}}'
[ "$STATUS" = 400 ] || fail "undo with an unknown field: $STATUS $BODY"
api h0 DELETE /v1/datasets/ds
[ "$STATUS" = 405 ] || fail "DELETE: $STATUS $BODY"
[ "$before" = "$(get h0 /v1/datasets)" ] || fail "bad requests changed the datasets"
pass "bad dataset params and requests: 400/404/405, nothing changes"

# Prune: a dataset the file no longer names. Without --prune it is named
# in the note and kept; with it, a dataset_delete job removes its tree,
# its kept generations and a staging tree, and famfsd forgets it. The
# other dataset and the filesystem stay.
F2=$T/cluster-no-ds.yaml
python3 - "$F" "$F2" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines(True)
open(sys.argv[2], "w").writelines(l for l in lines if "{name: ds," not in l)
PY
grep -q "name: wide" "$F2" && ! grep -q "name: ds," "$F2" || fail "F2: $(cat "$F2")"
api h0 POST /v1/jobs '{"kind":"dataset_delete","params":{"dataset":"nope"}}'
[ "$STATUS" = 400 ] && grep -q "no dataset 'nope'" <<<"$BODY" || fail "delete of an unknown dataset: $STATUS $BODY"
api h0 POST /v1/jobs '{"kind":"dataset_delete","params":{"dataset":"ds","x":1}}'
[ "$STATUS" = 400 ] && grep -q "params.x" <<<"$BODY" || fail "delete with an unknown field: $STATUS $BODY"
api h0 POST /v1/jobs '{"kind":"dataset_delete","params":{}}'
[ "$STATUS" = 400 ] || fail "delete without a dataset: $STATUS $BODY"
[ "$before" = "$(get h0 /v1/datasets)" ] || fail "bad delete requests changed the datasets"
run_cli 0 apply "$F2"
grep -q "^  dataset ds on h0$" <<<"$OUT" || fail "the note does not name the dataset: $OUT"
grep -q "delete dataset" <<<"$OUT" && fail "deleted without --prune: $OUT"
[ "$before" = "$(get h0 /v1/datasets)" ] || fail "apply without --prune changed the datasets"
pass "without --prune a dataset not in the file is named and kept; bad dataset_delete params: 400"

retired=$(field h0 /v1/datasets/ds generations | python3 -c '
import ast, sys
print(" ".join(g["path"] for g in ast.literal_eval(sys.stdin.read()) if g["state"] == "kept"))')
[ "$gens" = 1 ] || [ -n "$retired" ] || fail "no kept generation before the prune: $(get h0 /v1/datasets/ds)"
run_cli 1 diff --prune "$F2"
grep -q "^  - delete dataset ds on h0 (fs0:/ds, generation $GEN and the kept ones: trees removed)$" <<<"$OUT" \
	|| fail "prune plan: $OUT"
[ "$(grep -c '^  [+~-] ' <<<"$OUT")" = 1 ] || fail "only ds goes: $OUT"
run_cli 0 apply --prune "$F2"
grep -q "^  done:    delete dataset ds on h0 (delete job [0-9]*)$" <<<"$OUT" || fail "prune step: $OUT"
api h0 GET /v1/datasets/ds
[ "$STATUS" = 404 ] || fail "ds still recorded: $STATUS $BODY"
for p in /ds $retired; do
	api h0 GET "/v1/files/fs0$p"
	[ "$STATUS" = 404 ] || fail "$p left by the prune: $STATUS $BODY"
done
api h0 GET /v1/files/fs0/.famfs-staging/ds.$((GEN + 1))
[ "$STATUS" = 404 ] || fail "staging left by the prune: $STATUS $BODY"
[ "$(count h0 /v1/datasets)" = 1 ] || fail "wide went too: $(get h0 /v1/datasets)"
[ "$(field h0 /v1/files/fs0/wide/big.bin size)" = 9000000 ] || fail "wide's file after the prune"
run_cli 0 diff --prune "$F2"
grep -q "^No changes" <<<"$OUT" || fail "after the prune: $OUT"
run_cli 0 apply "$F"
[ "$(field h0 /v1/datasets/ds generation)" = 1 ] || fail "ds again: $(get h0 /v1/datasets/ds)"
[ "$(field h0 /v1/files/fs0/ds/sub/n2.txt size)" = 6 ] || fail "ds again not whole"
run_cli 0 apply "$F"
grep -q "^No changes" <<<"$OUT" || fail "after ds came back: $OUT"
pass "apply --prune deletes the dataset's tree and kept generations and forgets it; applied again it is ingested anew"
