#!/bin/bash
# famfsd_ingest_with_requests: an ingest job commits through famfsd's
# master handle of the filesystem from its own threads while API requests
# use the same handle (creates whose parent directories are looked up
# there) and read views of it. Every request succeeds, the job copies
# every file, the log holds creates committed between the job's files
# (the proof that both ran at once; a job that ended first is repeated),
# and the ThreadSanitizer build checks the locking on the way.
source "$(dirname "$0")/lib.sh"
start_famfsd
make_devices 2 128MiB
api POST /v1/interleave-sets '{"name":"set1","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"fs1","set":"set1","log_size":"8MiB"}'; expect 201
# enough for the job to outlast a round of requests: sanitizer builds
# copy several times slower, without verify and a third of the files
if [ -n "${FAMFS_SANITIZED:-}" ]; then NSRC=3000 VERIFY=false
else NSRC=8000 VERIFY=true; fi
python3 - "$T/src" $NSRC <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%d" % (i % 40))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%d" % i), "w") as f:
        f.write("file %d\n" % i)
PY
job_state() {   # curl alone: a python per poll is too slow under load
	local j
	[ -s "$T/job" ] || { echo none; return; }
	j=$(curl -s --unix-socket "$SOCK" "http://famfsd/v1/jobs/$(cat "$T/job")")
	[[ $j =~ \"state\":\ *\"([a-z]+)\" ]] && echo "${BASH_REMATCH[1]}"
}
req() {   # req METHOD PATH [JSON]: the HTTP status alone
	curl -s --unix-socket "$SOCK" -o /dev/null -w '%{http_code}' -X "$1" \
		${3:+-H 'Content-Type: application/json' --data-binary "$3"} "http://famfsd$2"
}
load() {  # one line per round: create, read, fs read
	local i=0
	while [ ! -e "$T/stop" ]; do
		i=$((i + 1))
		echo "$(req POST /v1/files '{"filesystem":"fs1","path":"/other/d'$i'/e/f","size":"4KiB"}')" \
			"$(req GET /v1/files/fs1/other/d$i/e/f)" \
			"$(req GET /v1/filesystems/fs1)"
	done >"$T/load.log"
}
load & loader=$!
# interleaved: how many of the API's creates the log holds between the
# first and the last file of ingest job $1 (a file's ino is 1 + the seq
# of its log entry, docs/format.md, so this is what the log proves about
# commits through the shared handle, not what a poll happened to see)
interleaved() {
	curl -s --unix-socket "$SOCK" "http://famfsd/v1/files/fs1" | python3 -c '
import json, sys
items, job = json.load(sys.stdin)["items"], "/in%s/" % sys.argv[1]
mine = [f["ino"] for f in items if f["type"] == "file" and f["path"].startswith(job)]
other = [f["ino"] for f in items if f["type"] == "file" and f["path"].startswith("/other/")]
print(sum(min(mine) < o < max(mine) for o in other) if mine else 0)
' "$1"
}
job_done() { case $(job_state) in succeeded|failed|cancelled) return 0;; esac; return 1; }
# A job of small files can end within one round of requests on a fast
# run; then the same tree again into a new directory, at most 6 jobs.
jobs=0 during=0
while [ "$during" = 0 ] && [ $jobs -lt 6 ]; do
	jobs=$((jobs + 1))
	api POST /v1/jobs '{"kind":"ingest","params":{"filesystem":"fs1","source":"'"$T/src"'","dest":"/in'$jobs'","threads":2,"verify":'$VERIFY'}}'
	expect 201
	[[ $BODY =~ \"id\":\ *([0-9]+) ]] && echo "${BASH_REMATCH[1]}" >"$T/job"
	[ -s "$T/job" ] || fail "no job id: $BODY"
	wait_for 300 "the ingest job to finish" job_done
	api GET /v1/jobs/$(cat "$T/job")
	[ "$(jq_get "$BODY" .state)" = succeeded ] || fail "job $jobs: $BODY"
	[ "$(jq_get "$BODY" .progress.files_done)" = $NSRC ] || fail "files copied by job $jobs: $BODY"
	during=$(interleaved $jobs)
done
touch "$T/stop"
wait $loader
n=$(wc -l <"$T/load.log")
[ "$n" -gt 0 ] || fail "no request rounds ran"
bad=$(grep -cvx '201 200 200' "$T/load.log")
[ "$bad" = 0 ] || fail "requests failed: $(grep -vx '201 200 200' "$T/load.log" | head -5)"
[ "$during" -gt 0 ] || fail "in $jobs jobs no create committed between a job's files: the test proves nothing"
pass "$n rounds of create (nested parents) and reads; $during creates committed between the files of job $jobs of $jobs"
api GET /v1/filesystems/fs1
[ "$(jq_get "$BODY" .space.files)" = $((jobs * NSRC + n)) ] || fail "files in fs1: $BODY"
pass "each of the $jobs jobs copied all $NSRC files; fs1 holds them and the $n created"
