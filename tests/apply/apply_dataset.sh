#!/bin/bash
# apply_dataset: datasets start real ingest jobs on the filesystem's
# master (famfsd's ingest runner). Apply starts the job and names it; once
# it succeeded the files are there and a second apply is a no-op; a new
# dataset plans only itself; a bad source fails that step with famfsd's
# reason; a tree larger than the filesystem is refused in the plan; a job
# that fails is reported (a dataset's interleave: apply_dataset_drift).
source "$(dirname "$0")/lib.sh"
start_host h0
api h0 POST /v1/jobs '{"kind":"ingest","params":{}}'
[ "$STATUS" = 501 ] && { echo "skip: famfsd has no ingest runner"; exit 77; }
F=$T/cluster.yaml
mkdir -p "$T/src/sub" "$T/src2"
echo hello >"$T/src/a.txt"
head -c 3000000 /dev/urandom >"$T/src/sub/b.bin"
echo two >"$T/src2/two.txt"

write_file() { # extra dataset lines...
	cat >"$F" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: data}
hosts:
  - {name: h0, endpoint: $T/h0/sock, role: master}
devices:
  - {name: e0, emul: {path: $T/e0, size: 32MiB}}
sets:
  - {name: s0, devices: [e0]}
filesystems:
  - {name: fs0, set: s0, master: h0, logSize: 4MiB}
datasets:
  - {name: ds, source: $T/src, filesystem: fs0, verify: true}
EOT
	for l in "$@"; do echo "  - $l" >>"$F"; done
}

# wait_jobs: until no job is queued or running (famfsd runs them).
jobs_idle() {
	get h0 /v1/jobs | python3 -c '
import json, sys
sys.exit(any(j["state"] in ("queued", "running") for j in json.load(sys.stdin)["items"]))'
}
wait_jobs() { wait_for 60 "the ingest jobs to finish" jobs_idle; }

write_file
run_cli 0 apply "$F"
grep -q "^  done:    create dataset ds on h0 (ingest job [0-9]*)$" <<<"$OUT" \
	|| fail "dataset step: $OUT"
grep -q "^Following ds (ingest job [0-9]* on h0):$" <<<"$OUT" || fail "apply did not follow the job: $OUT"
[ "$(field h0 /v1/jobs items.0.state)" = succeeded ] || fail "apply returned before its job ended: $(get h0 /v1/jobs)"
pass "apply follows the dataset's ingest job to its end"
wait_jobs
[ "$(field h0 /v1/jobs items.0.state)" = succeeded ] || fail "ingest job: $(get h0 /v1/jobs)"
[ "$(field h0 /v1/files/fs0/ds/sub/b.bin size)" = 3000000 ] || fail "ingested file: $(get h0 /v1/files/fs0)"
pass "apply starts the dataset's ingest job on the master; the files arrive"

before=$(snapshot h0)
run_cli 0 apply "$F"
grep -q "^No changes" <<<"$OUT" || fail "second apply: $OUT"
[ "$before" = "$(snapshot h0)" ] || fail "no-op apply changed the state"
pass "an ingested dataset is not ingested again"

write_file "{name: two, source: $T/src2, destination: /more/two, filesystem: fs0}"
run_cli 1 diff "$F"
[ "$(grep -c '^  [+~-] ' <<<"$OUT")" = 1 ] || fail "plan for a new dataset: $OUT"
grep -q "+ create dataset two on h0 (ingest $T/src2 -> fs0:/more/two)" <<<"$OUT" || fail "plan: $OUT"
run_cli 0 apply "$F"
wait_jobs
[ "$(field h0 /v1/files/fs0/more/two/two.txt size)" = 4 ] || fail "second dataset: $(get h0 /v1/files/fs0)"
pass "a new dataset plans and ingests only itself"

write_file "{name: two, source: $T/src2, destination: /more/two, filesystem: fs0}" \
	"{name: bad, source: $T/missing, filesystem: fs0}"
run_cli 1 apply "$F"
grep -q "^  FAILED   create dataset bad on h0: POST /v1/jobs: .*$T/missing" <<<"$OUT" || fail "bad source: $OUT"
pass "a dataset whose source is missing fails with famfsd's reason"

# More data than the filesystem holds: refused in the plan (famfsd places
# the tree on paper: apply_space_plan tests the rule), nothing changed.
mkdir -p "$T/huge" "$T/clash"
head -c 40000000 /dev/zero >"$T/huge/big.bin"
write_file "{name: two, source: $T/src2, destination: /more/two, filesystem: fs0}" \
	"{name: huge, source: $T/huge, filesystem: fs0}"
before=$(snapshot h0)
run_cli 1 apply "$F"
grep -q "conflict: host h0: dataset huge cannot be placed in fs0 (1 files, .*): big.bin does not fit" <<<"$OUT" ||
	fail "huge dataset: $OUT"
[ "$before" = "$(snapshot h0)" ] || fail "a refused apply changed the state"
pass "a dataset larger than the filesystem is refused in the plan"

# A job that fails (its destination holds another file of that name,
# which the plan does not read): apply says so and exits 1; it never
# reports "Apply complete".
echo hello >"$T/clash/c.txt"
api h0 POST /v1/files '{"filesystem":"fs0","path":"/clash/c.txt","size":6}'
[ "$STATUS" = 201 ] || fail "POST /v1/files: $STATUS $BODY"
write_file "{name: two, source: $T/src2, destination: /more/two, filesystem: fs0}" \
	"{name: clash, source: $T/clash, filesystem: fs0}"
run_cli 1 apply "$F"
grep -q "^job [0-9]* failed: destination /clash/c.txt exists with different content" <<<"$OUT" ||
	fail "clash job: $OUT"
grep -q "^Apply failed: all 1 steps done, but an ingest job above failed" <<<"$OUT" \
	|| fail "failed job report: $OUT"
grep -q "^Apply complete" <<<"$OUT" && fail "a failed job reported as complete: $OUT"
pass "an ingest job that fails: apply exits 1 and says the job failed"
