#!/bin/bash
# Helpers for the apply tests: several real famfsd instances, each with its
# own state dir and socket, sharing emulated devices under $T the way hosts
# share one memory appliance. Needs FAMFSD, PLUGINS, FAMFS_CLI (ctest sets
# them); FAMFS_FUSED when mounts are to work.
set -u

T=$(mktemp -d /tmp/famfs-apply-test.XXXXXX)
declare -A PIDS
trap cleanup EXIT

cleanup() {
	local rc=$?
	for h in "${!PIDS[@]}"; do
		kill -TERM "${PIDS[$h]}" 2>/dev/null && wait "${PIDS[$h]}" 2>/dev/null
	done
	for m in $(awk -v t="$T" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo); do
		fusermount3 -u -z "$m" 2>/dev/null
	done
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		for l in "$T"/*/famfsd.log; do
			[ -f "$l" ] && { echo "---- $l ----"; tail -30 "$l"; }
		done
	fi
	rm -rf "$T"
	exit $rc
}

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
source "$(dirname "${BASH_SOURCE[0]}")/../lib/wait_for.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../lib/famfsd_api.sh"

have_fused() { [ -n "${FAMFS_FUSED:-}" ] && [ -x "$FAMFS_FUSED" ] && [ -e /dev/fuse ]; }

# start_host NAME: a famfsd answering as host NAME on $T/NAME/sock.
start_host() {
	local h=$1 fused=()
	mkdir -p "$T/$h"
	have_fused && fused=(--fused "$FAMFS_FUSED")
	# paths.*: the test's own tree (the defaults are the product's)
	"$FAMFSD" --config /dev/null --state-dir "$T/$h/state" \
		--set "paths.devices=$T" --set "paths.mounts=$T" \
		--set "paths.sources=$T" \
		--socket "$T/$h/sock" --plugin-dir "$PLUGINS" --host-name "$h" \
		"${fused[@]}" >>"$T/$h/famfsd.log" 2>&1 &
	PIDS[$h]=$!
	for _ in $(seq 1 200); do
		curl -s --unix-socket "$T/$h/sock" http://famfsd/healthz >/dev/null 2>&1 && return 0
		kill -0 "${PIDS[$h]}" 2>/dev/null || fail "famfsd $h exited at start"
		sleep 0.05
	done
	fail "famfsd $h did not answer"
}

# get HOST PATH: the body of a GET.
get() { curl -s --unix-socket "$T/$1/sock" "http://famfsd$2"; }

# api HOST METHOD PATH [JSON]: sets STATUS and BODY.
api() { local host=$1; shift; api_at "$T/$host/sock" "$@"; }

# snapshot HOST...: everything apply may change, minus timestamps, uptime
# and live figures, for "nothing changed" comparisons. One curl per host
# and one python for all of them: the tests take many snapshots, and a
# python start costs ~0.1 CPU-s here (docs/testing.md).
SNAPSHOT_PATHS="/v1/host /v1/devices /v1/interleave-sets /v1/filesystems /v1/mounts /v1/jobs"
snapshot() {
	local h p urls=()
	for p in $SNAPSHOT_PATHS; do urls+=("http://famfsd$p"); done
	for h in "$@"; do
		curl -s --unix-socket "$T/$h/sock" -w '\n@@snapshot-end %{http_code}@@\n' "${urls[@]}"
	done | python3 -c '
import json, sys
drop = {"uptime_seconds", "started", "seen", "since", "pid", "restarts", "state", "space", "log", "progress"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in sorted(v.items()) if k not in drop}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
import re
parts = re.split(r"\n@@snapshot-end (\d+)@@\n", sys.stdin.read())
bodies, codes = parts[0::2], parts[1::2]
names = [h + p for h in sys.argv[2:] for p in sys.argv[1].split()]
try:
    assert len(bodies) == len(names) + 1 and bodies[-1] == "", "%d answers" % (len(bodies) - 1)
    bad = [n + " HTTP " + c for n, c in zip(names, codes) if c != "200"]
    assert not bad, ", ".join(bad)
    out = [name + " " + json.dumps(clean(json.loads(body)), sort_keys=True)
           for name, body in zip(names, bodies)]
except Exception as e:
    # never equal to another snapshot: the comparison fails
    import time
    sys.exit("snapshot of %s failed (%s) at %d" % (" ".join(sys.argv[2:]), e, time.time_ns()))
print("\n".join(out))' "$SNAPSHOT_PATHS" "$@" 2>&1
}

# count HOST PATH: number of items in a list.
count() { get "$1" "$2" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))'; }

# field HOST PATH KEY.PATH: one value of a GET body.
field() {
	get "$1" "$2" | python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v = v[int(k)] if isinstance(v, list) else v.get(k)
print(v)' "$3"
}

# run_cli RC CMD...: run famfs-cli, expect exit RC, output in $OUT.
run_cli() {
	local want=$1; shift
	OUT=$("$FAMFS_CLI" "$@" 2>&1); local rc=$?
	[ $rc -eq "$want" ] || fail "famfs-cli $* exited $rc, expected $want:
$OUT"
}
