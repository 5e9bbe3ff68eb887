#!/bin/bash
# famfsd_sighup_reload: SIGHUP re-reads the config (a new token works over
# TCP at once), re-runs discovery (a removed device becomes missing), and a
# broken config is refused while famfsd keeps running on the old one.
source "$(dirname "$0")/lib.sh"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
echo "first-token-0123456789" >"$T/token"
cat >"$T/famfsd.yaml" <<EOC
token_file: $T/token
tcp:
  listen: 127.0.0.1:$port
  insecure: true
EOC
"$FAMFSD" --config "$T/famfsd.yaml" --state-dir "$STATE" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
	--plugin-dir "$PLUGINS" >>"$LOG" 2>&1 &
FAMFSD_PID=$!
U=http://127.0.0.1:$port/v1/host
wait_for 60 "famfsd to answer on TCP" curl -s -o /dev/null $U
code() { curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" $U; }
[ "$(code first-token-0123456789)" = 200 ] || fail "first token"
make_devices 2
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1"]}'; expect 201
echo "second-token-0123456789" >"$T/token"
kill -HUP $FAMFSD_PID
rm "$T/dev1"
wait_for 10 "the new token after SIGHUP" test "$(code second-token-0123456789)" = 200
[ "$(code first-token-0123456789)" = 401 ] || fail "old token still accepted"
kill -HUP $FAMFSD_PID   # the device is removed now; rediscover
emul1_missing() { api GET /v1/devices/emul1; [ "$(jq_get "$BODY" .state)" = missing ]; }
wait_for 5 "the removed device emul1 to be missing" emul1_missing
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"4MiB"}'
expect 422 device_unusable
pass "SIGHUP: new token, rediscovery; mkfs on a set with a missing device refused"
echo "tcp: [broken" >"$T/famfsd.yaml"
kill -HUP $FAMFSD_PID
wait_for 10 "the broken config to be reported" grep -q "keeping the running configuration" "$LOG"
[ "$(code second-token-0123456789)" = 200 ] || fail "famfsd lost its config"
pass "a broken config on SIGHUP is refused, famfsd keeps running"
