#!/bin/bash
# famfsd_provider_health: famfsd never says ready without its providers.
# Healthy plugins: /healthz 200 "ok", GET /v1/host health ok. A missing or
# empty plugin directory: serving but degraded (/healthz 503, the reason
# in GET /v1/host and `famfs-cli get host`), and creating an emul device
# fails with 422 provider_not_loaded. Started without --plugin-dir, the
# build tree's famfsd loads the build tree's providers (README's
# `famfsd --foreground`).
source "$(dirname "$0")/lib.sh"
[ -n "${FAMFS_CLI:-}" ] || { echo "no famfs-cli"; exit 77; }

start_famfsd
api GET /healthz; expect 200
[ "$(jq_get "$BODY" .status)" = ok ] || fail "healthz: $BODY"
api GET /v1/host; expect 200
[ "$(jq_get "$BODY" .health.status)" = ok ] || fail "health: $BODY"
[ "$(jq_get "$BODY" .health.problems)" = "[]" ] || fail "problems: $BODY"
grep -q "ready (host testhost" "$LOG" || fail "no ready line"
stop_famfsd || fail "stop"
pass "all providers loaded: ok, 200"

# degraded_with DIR WHAT: famfsd with --plugin-dir DIR is degraded for WHAT
degraded_with() {
	: >"$LOG"
	PLUGINS=$1 start_famfsd
	api GET /healthz; expect 503
	[ "$(jq_get "$BODY" .status)" = degraded ] || fail "$2: healthz: $BODY"
	api GET /v1/host; expect 200
	[ "$(jq_get "$BODY" .health.status)" = degraded ] || fail "$2: health: $BODY"
	jq_get "$BODY" .health.problems | grep -q "$2" || fail "$2: problems: $BODY"
	grep -q "serving DEGRADED" "$LOG" || fail "$2: no DEGRADED log line"
	grep -q " ready (host" "$LOG" && fail "$2: logged ready"
	"$FAMFS_CLI" get host --host "$SOCK" >"$T/out" 2>&1 || fail "get host: $(cat "$T/out")"
	grep -q "degraded" "$T/out" || fail "get host does not say degraded: $(cat "$T/out")"
	grep -q "$2" "$T/out" || fail "get host does not say why: $(cat "$T/out")"
	api POST /v1/devices "{\"name\":\"e0\",\"path\":\"$T/e0\",\"size\":\"8MiB\"}"
	expect 422 provider_not_loaded
	[ -e "$T/e0" ] && fail "$2: a device file was made"
	stop_famfsd || fail "stop"
}
degraded_with "$T/no-such-dir" "no-such-dir: No such file or directory"
mkdir "$T/empty"
degraded_with "$T/empty" "holds no provider"
pass "missing or empty plugin directory: degraded 503, named in host and get host; 422 provider_not_loaded"

# The build tree's famfsd, no --plugin-dir and no config: the build
# tree's providers (the test runs the binary cmake built).
: >"$LOG"
"$FAMFSD" --config /dev/null --state-dir "$STATE" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
	--host-name testhost >>"$LOG" 2>&1 &
FAMFSD_PID=$!
answers() {
	kill -0 "$FAMFSD_PID" 2>/dev/null || fail "famfsd exited at start"
	curl -s --unix-socket "$SOCK" http://famfsd/healthz >/dev/null 2>&1
}
wait_for 10 "famfsd to answer /healthz" answers
api GET /healthz; expect 200
api GET /v1/host
names=$(python3 -c 'import json,sys; print(",".join(p["name"] for p in json.loads(sys.argv[1])["providers"]))' "$BODY")
[ "$names" = "cxl,emul" ] || fail "build tree famfsd without --plugin-dir: providers '$names': $(cat "$LOG")"
grep -q "loaded provider 'emul' from $PLUGINS/emul.so" "$LOG" || fail "not loaded from $PLUGINS: $(cat "$LOG")"
pass "build-tree famfsd without --plugin-dir loads $PLUGINS"
