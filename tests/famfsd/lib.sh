#!/bin/bash
# Shared helpers for the famfsd integration tests: a real famfsd on a real
# Unix socket in a private temporary directory, driven with curl.
# Usage: source lib.sh; needs FAMFSD, PLUGINS (and FAMFS_CLI) from ctest.
set -u

T=$(mktemp -d /tmp/famfsd-test.XXXXXX)
SOCK=$T/famfsd.sock
STATE=$T/state
LOG=$T/famfsd.log
# A test's devices, mounts and ingest sources live in its own temporary
# tree: allow that tree (famfsd.yaml paths.*; the defaults are the
# product's, /dev/shm/famfs*, /mnt/famfs*, /srv...).
FAMFSD_TEST_PATHS=(--set "paths.devices=/dev/shm/famfs*:$T" --set "paths.mounts=$T"
		   --set "paths.sources=$T")
FAMFSD_PID=
HOLD_PID=
BG_PIDS=()      # helpers a test starts in the background: stopped by cleanup
trap cleanup EXIT

cleanup() {
	local rc=$?
	local p
	for p in "${BG_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	if [ -n "$HOLD_PID" ]; then
		kill -TERM "$HOLD_PID" 2>/dev/null; wait "$HOLD_PID" 2>/dev/null
	fi
	if [ -n "$FAMFSD_PID" ] && kill -0 "$FAMFSD_PID" 2>/dev/null; then
		kill -TERM "$FAMFSD_PID"; wait "$FAMFSD_PID" 2>/dev/null
		local st=$?
		# a clean stop exits 0 (an ASan/LSan build reports errors here)
		if [ $st -ne 0 ] && [ $rc -eq 0 ]; then
			echo "FAIL: famfsd exited with $st on SIGTERM"; rc=1
		fi
	fi
	# any FUSE server a test left behind
	for m in $(awk -v t="$T" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo); do
		fusermount3 -u -z "$m" 2>/dev/null
	done
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		echo "---- famfsd log ($LOG) ----"; cat "$LOG" 2>/dev/null | tail -50
	fi
	rm -rf "$T"
	exit $rc
}

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

source "$(dirname "${BASH_SOURCE[0]}")/../lib/wait_for.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../lib/famfsd_api.sh"

# start_famfsd [extra args...]: start and wait until /healthz answers.
# $FAMFSD_WRAP, if set, is a command famfsd runs under.
start_famfsd() {
	${FAMFSD_WRAP:-} "$FAMFSD" --config /dev/null --state-dir "$STATE" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
		--plugin-dir "$PLUGINS" --host-name testhost "$@" >>"$LOG" 2>&1 &
	FAMFSD_PID=$!
	for _ in $(seq 1 200); do
		curl -s --unix-socket "$SOCK" http://famfsd/healthz >/dev/null 2>&1 && return 0
		kill -0 "$FAMFSD_PID" 2>/dev/null || fail "famfsd exited at start"
		sleep 0.05
	done
	fail "famfsd did not answer on $SOCK"
}

stop_famfsd() {
	kill -TERM "$FAMFSD_PID"
	wait "$FAMFSD_PID"
	local rc=$?
	FAMFSD_PID=
	return $rc
}

kill9_famfsd() {
	kill -KILL "$FAMFSD_PID"
	wait "$FAMFSD_PID" 2>/dev/null
	FAMFSD_PID=
}

# famfsd_rchar: bytes famfsd (all its threads) has read so far, from
# /proc/PID/io, into $RCHAR; bash builtins only.
famfsd_rchar() {
	local k v
	RCHAR=
	while read -r k v; do
		[ "$k" = rchar: ] && { RCHAR=$v; return 0; }
	done <"/proc/$FAMFSD_PID/io"
	fail "no rchar for famfsd $FAMFSD_PID"
}

# kill9_famfsd_reading BASE MIN SECONDS: SIGKILL famfsd as soon as it has
# read MIN bytes more than BASE (a famfsd_rchar taken before the job
# started: file data being copied, a job's other reads are small). The
# poll is bash alone every ~2 ms: a curl per poll was slow enough under
# load for a short job to end between two polls. Sets $READ_AT_KILL.
kill9_famfsd_reading() {
	local base=$1 min=$2 end fd
	end=$((${EPOCHREALTIME//[!0-9]/} + $3 * 1000000))
	exec {fd}<> <(:)
	while famfsd_rchar; [ $((RCHAR - base)) -lt "$min" ]; do
		[ "${EPOCHREALTIME//[!0-9]/}" -lt "$end" ] ||
			fail "famfsd did not read $min bytes of the source within $3 s"
		read -r -t 0.002 -u "$fd"
	done
	kill9_famfsd
	READ_AT_KILL=$((RCHAR - base))
	exec {fd}<&-
}

# api METHOD PATH [JSON]: sets $STATUS and $BODY.
api() { api_at "$SOCK" "$@"; }

# expect STATUS [CODE]: the last api call's status (and error code).
expect() {
	[ "$STATUS" = "$1" ] || fail "expected HTTP $1, got $STATUS: $BODY"
	if [ $# -ge 2 ]; then
		# one python run: the code must match and the message be non-empty
		python3 -c '
import json, sys
e = json.loads(sys.argv[1])["error"]
sys.exit(0 if e["code"] == sys.argv[2] and e["message"] else 1)
' "$BODY" "$2" 2>/dev/null || fail "expected error code $2 with a message: $BODY"
	fi
}

# jq_get JSON PATH: tiny extractor in python (jq is not installed).
jq_get() {
	python3 -c '
import json, sys
v = json.loads(sys.argv[1])
for k in sys.argv[2].strip(".").split("."):
    if k == "": continue
    if isinstance(v, list): v = v[int(k)]
    else: v = v.get(k) if isinstance(v, dict) else None
    if v is None: break
print("" if v is None else (json.dumps(v) if isinstance(v, (dict, list)) else v))
' "$1" "$2"
}

# db_state: every table but the logs, for "nothing changed" checks.
db_state() {
	sqlite3 "$STATE/famfsd.db" \
		"SELECT 'kv', * FROM kv; SELECT 'd', name, uuid, path, size, state FROM devices;
		 SELECT 's', * FROM interleave_sets; SELECT 'sd', * FROM set_devices;
		 SELECT 'f', * FROM filesystems; SELECT 'm', name, filesystem, path, role, desired FROM mounts;
		 SELECT 'j', id, kind, state FROM jobs;"
}

# make_devices N [SIZE]: emul0..N-1 under $T.
make_devices() {
	local n=$1 size=${2:-64MiB}
	for i in $(seq 0 $((n - 1))); do
		api POST /v1/devices "{\"name\":\"emul$i\",\"path\":\"$T/dev$i\",\"size\":\"$size\"}"
		expect 201
	done
}

# run_job JSON: submit a job, wait until it has finished; sets $JOB_ID,
# $JOB_STATE and $BODY (the finished job).
run_job() {
	api POST /v1/jobs "$1"; expect 201
	JOB_ID=$(jq_get "$BODY" .id)
	for _ in $(seq 1 600); do
		api GET "/v1/jobs/$JOB_ID"
		JOB_STATE=$(jq_get "$BODY" .state)
		case "$JOB_STATE" in succeeded|failed|cancelled) return 0 ;; esac
		sleep 0.1
	done
	fail "job $JOB_ID still $JOB_STATE after 60 s: $BODY"
}

# hold_client_slot NAME DEV...: a client (libfamfs FAMFS_OPEN_CLIENT) that
# replays once, then holds its slot without replaying; stopped by cleanup.
hold_client_slot() {
	[ -n "${HOLD_CLIENT_SLOT:-}" ] || fail "HOLD_CLIENT_SLOT not set"
	"$HOLD_CLIENT_SLOT" "$@" >"$T/hold.out" 2>&1 &
	HOLD_PID=$!
	for _ in $(seq 1 100); do
		grep -q '^held slot' "$T/hold.out" && return 0
		kill -0 "$HOLD_PID" 2>/dev/null || fail "client slot: $(cat "$T/hold.out")"
		sleep 0.05
	done
	fail "client did not take a slot: $(cat "$T/hold.out")"
}
