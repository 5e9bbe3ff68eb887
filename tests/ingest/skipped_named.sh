#!/bin/bash
# Nothing is dropped without a word: every path ingest skips (fifo, socket,
# device node) is named on stderr (the first 20, then a count) and in the
# famfsd job's result; --strict makes a skip fail the run before anything
# is copied; hard links copied as separate files are counted.
source "$(dirname "$0")/../famfsd/lib.sh"
CLI=$FAMFS_CLI
SRC=$T/src
mkdir -p "$SRC/fifos" "$SRC/dir with space"
echo data >"$SRC/a.txt"
ln "$SRC/a.txt" "$SRC/hard-a.txt"
echo more >"$SRC/dir with space/b.txt"
for i in $(seq -w 1 23); do mkfifo "$SRC/fifos/f$i"; done
mknod "$SRC/null-dev" c 1 3
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$SRC/a.sock"
nskip=25

# offline: names on stderr
$CLI mkemul --size 64MiB "$T/o0" >/dev/null
$CLI mkfs --log-size 4MiB "$T/o0" >/dev/null
entries() { $CLI log -o json "$T/o0" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))'; }
before=$(entries)
$CLI ingest -d "$T/o0" --strict "$SRC" /x >"$T/strict.out" 2>"$T/strict.err" &&
	fail "--strict ingest with $nskip special files succeeded"
grep -q -- "--strict: $nskip paths cannot be ingested" "$T/strict.err" ||
	fail "--strict refusal does not count the paths: $(cat "$T/strict.err")"
[ "$(entries)" = "$before" ] || fail "a --strict refusal wrote to the log"
pass "--strict refuses $nskip skipped paths, nothing written"

$CLI ingest -d "$T/o0" "$SRC" /x >"$T/off.out" 2>"$T/off.err" ||
	fail "offline ingest: $(cat "$T/off.err")"
named=$(grep -c '^skipped .*: \(fifo\|socket\|device node\)$' "$T/off.err")
[ "$named" = 20 ] || fail "stderr names $named skipped paths, not the first 20: $(cat "$T/off.err")"
grep -q "^skipped 5 more paths" "$T/off.err" || fail "no count of the rest: $(cat "$T/off.err")"
grep -q "skipped $nskip special files; 1 hard links copied as files" "$T/off.out" ||
	fail "summary: $(cat "$T/off.out")"
pass "offline: the first 20 skipped paths named, then a count of 5; 1 hard link counted"

# famfsd job: the result names every one; the CLI names them on stderr
start_famfsd
make_devices 1 64MiB
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0"],"chunk":"2MiB"}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"4MiB"}'; expect 201
run_job '{"kind":"ingest","params":{"source":"'"$SRC"'","dest":"/s","strict":true}}'
[ "$JOB_STATE" = failed ] || fail "strict job $JOB_STATE: $BODY"
jq_get "$BODY" .error | grep -q -- "--strict: $nskip paths" || fail "strict job error: $BODY"
[ "$(jq_get "$BODY" .result.files_copied)" = 0 ] || fail "strict job copied: $BODY"
api POST /v1/jobs '{"kind":"ingest","params":{"source":"'"$SRC"'","dest":"/s","strict":"yes"}}'
expect 400 invalid_value
pass "strict job fails naming the count, copies nothing; a non-boolean strict is refused"

FAMFS_HOST=$SOCK $CLI ingest --wait "$SRC" /j >"$T/job.out" 2>"$T/job.err" ||
	fail "job ingest: $(cat "$T/job.err")"
[ "$(grep -c '^skipped .*: \(fifo\|socket\|device node\)$' "$T/job.err")" = 20 ] &&
	grep -q "^skipped 5 more paths" "$T/job.err" || fail "job stderr: $(cat "$T/job.err")"
FAMFS_HOST=$SOCK $CLI get jobs -o yaml >"$T/jobs.yaml" || fail "get jobs -o yaml"
python3 - "$T/jobs.yaml" "$nskip" <<'PY' || fail "job result in get jobs -o yaml: $(cat "$T/jobs.yaml")"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
jobs = doc["items"] if isinstance(doc, dict) and "items" in doc else doc
r = [j for j in jobs if j["state"] == "succeeded"][-1]["result"]
names = {s["path"]: s["why"] for s in r["skipped"]}
assert r["skipped_count"] == int(sys.argv[2]) == len(names), r
assert names["fifos/f01"] == "fifo" and names["a.sock"] == "socket", names
assert names["null-dev"] == "device node", names
assert r["hardlinks_copied"] == 1 and r["files_copied"] == 3, r
PY
pass "job result (get jobs -o yaml) names all $nskip skipped paths and counts the hard link"
