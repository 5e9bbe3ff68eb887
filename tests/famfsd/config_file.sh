#!/bin/bash
# famfsd_config_file: the YAML config is read, unknown keys and bad values
# are refused with file:line, and command-line options win over the file.
source "$(dirname "$0")/lib.sh"
cat >"$T/bad.yaml" <<EOC
state_dir: $STATE
colour: blue
EOC
"$FAMFSD" --config "$T/bad.yaml" >"$T/out" 2>&1 && fail "unknown key accepted"
grep -q "bad.yaml:2: unknown key 'colour'" "$T/out" || fail "message: $(cat "$T/out")"
printf 'max_body: lots\n' >"$T/bad2.yaml"
"$FAMFSD" --config "$T/bad2.yaml" >"$T/out" 2>&1 && fail "bad size accepted"
grep -q "bad2.yaml:1: bad value 'lots' for 'max_body'" "$T/out" || fail "message: $(cat "$T/out")"
"$FAMFSD" --config "$T/nonexistent.yaml" >"$T/out" 2>&1 && fail "missing explicit config accepted"
grep -q "cannot read $T/nonexistent.yaml" "$T/out" || fail "message: $(cat "$T/out")"
pass "bad config files refused with file:line"

# list settings: a YAML sequence of strings, nothing else
printf 'paths:\n  mounts: [/mnt/a, "/mnt/b:c"]\n' >"$T/bad3.yaml"
"$FAMFSD" --check-config --config "$T/bad3.yaml" >"$T/out" 2>&1 && fail "':' in a list item accepted"
grep -q "bad3.yaml:2: 'paths.mounts' must be a list of non-empty strings without ':'" "$T/out" \
	|| fail "message: $(cat "$T/out")"
printf 'threads: [4]\n' >"$T/bad4.yaml"
"$FAMFSD" --check-config --config "$T/bad4.yaml" >"$T/out" 2>&1 && fail "a list for a scalar accepted"
grep -q "bad4.yaml:1: 'threads' is not a list setting" "$T/out" || fail "message: $(cat "$T/out")"
printf 'access:\n  read: []\n' >"$T/empty.yaml"
"$FAMFSD" --check-config --config "$T/empty.yaml" --plugin-dir "$PLUGINS" >"$T/out" 2>&1
grep -qx 'access.read: \[\]' "$T/out" || fail "empty list: $(cat "$T/out")"
pass "list settings: bad items refused with file:line, [] is the empty list"

cat >"$T/famfsd.yaml" <<EOC
# comments are fine
socket: $T/from-file.sock
state_dir: $T/state-from-file
host_name: from-file
max_body: 1KiB
EOC
"$FAMFSD" --config "$T/famfsd.yaml" --socket "$SOCK" --plugin-dir "$PLUGINS" >>"$LOG" 2>&1 &
FAMFSD_PID=$!
wait_for 60 "famfsd to answer on $SOCK" curl -s -o /dev/null --unix-socket "$SOCK" http://famfsd/healthz
[ -e "$T/from-file.sock" ] && fail "--socket did not win over the file"
STATE=$T/state-from-file
api GET /v1/host; expect 200
[ "$(jq_get "$BODY" .name)" = from-file ] || fail "host_name from the file: $BODY"
[ "$(jq_get "$BODY" .state_dir)" = "$T/state-from-file" ] || fail "state_dir: $BODY"
api POST /v1/devices "{\"name\":\"x\",\"path\":\"$T/$(head -c 1200 /dev/zero | tr '\0' a)\"}"
expect 413 body_too_large
pass "file values apply, --socket overrides, max_body from the file"
