#!/bin/bash
# famfsd_ingest_with_requests: an ingest job commits through famfsd's
# master handle of the filesystem from its own threads while API requests
# use the same handle (creates whose parent directories are looked up
# there) and read views of it. Every request succeeds, the job copies
# every file, and the ThreadSanitizer build checks the locking on the way.
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
load() {  # one line per round: create, read, fs read, the job's state after
	local i=0
	while [ ! -e "$T/stop" ]; do
		i=$((i + 1))
		echo "$(req POST /v1/files '{"filesystem":"fs1","path":"/other/d'$i'/e/f","size":"4KiB"}')" \
			"$(req GET /v1/files/fs1/other/d$i/e/f)" \
			"$(req GET /v1/filesystems/fs1)" "$(job_state)"
	done >"$T/load.log"
}
load & loader=$!
api POST /v1/jobs '{"kind":"ingest","params":{"filesystem":"fs1","source":"'"$T/src"'","dest":"/in","threads":2,"verify":'$VERIFY'}}'
expect 201
[[ $BODY =~ \"id\":\ *([0-9]+) ]] && echo "${BASH_REMATCH[1]}" >"$T/job"
[ -s "$T/job" ] || fail "no job id: $BODY"
job_done() { case $(job_state) in succeeded|failed|cancelled) return 0;; esac; return 1; }
wait_for 300 "the ingest job to finish" job_done
touch "$T/stop"
wait $loader
api GET /v1/jobs/$(cat "$T/job")
[ "$(jq_get "$BODY" .state)" = succeeded ] || fail "job: $BODY"
n=$(wc -l <"$T/load.log")
[ "$n" -gt 0 ] || fail "no request rounds ran"
bad=$(grep -cv '^201 200 200 ' "$T/load.log")
[ "$bad" = 0 ] || fail "requests failed: $(grep -v '^201 200 200 ' "$T/load.log" | head -5)"
during=$(grep -c ' running$' "$T/load.log")
[ "$during" -gt 0 ] || fail "no request ran while the job was running: the test proves nothing"
pass "$n rounds of create (nested parents) and reads, $during of them during the ingest"
[ "$(jq_get "$BODY" .progress.files_done)" = $NSRC ] || fail "files copied: $BODY"
api GET /v1/filesystems/fs1
[ "$(jq_get "$BODY" .space.files)" = $((NSRC + n)) ] || fail "files in fs1: $BODY"
pass "the job copied all $NSRC files; fs1 holds them and the $n created"
