#!/bin/bash
# famfsd_healthz_unblocked: /healthz does not wait for the state lock. A
# rescan holds it for 4 s (a provider whose discovery sleeps): /healthz
# answers while the discovery still sleeps, and a GET that needs the lock
# answers only after it, which shows the lock really was held.
source "$(dirname "$0")/lib.sh"
mkdir "$T/plugins"
cp "$PLUGINS"/emul.so "$T/plugins/"
cp "$SLOW_PLUGIN" "$T/plugins/slow.so"
export FAMFS_TEST_SLOW_DISCOVER=$T/slow_ms
PLUGINS=$T/plugins start_famfsd
make_devices 1

echo 4000 >"$T/slow_ms"
curl -s --unix-socket "$SOCK" -X POST -o "$T/rescan.out" -w '%{http_code}' \
	http://famfsd/v1/devices/rescan >"$T/rescan.code" &
rescan=$!
wait_for 10 "the slow discovery to start" test -e "$T/slow_ms.started"
api GET /healthz
expect 200
[ -e "$T/slow_ms.done" ] && fail "the discovery ended before /healthz answered: the test proves nothing"
pass "/healthz answered while a rescan held the state lock"
api GET /v1/devices
expect 200
[ -e "$T/slow_ms.done" ] || fail "GET /v1/devices answered while the rescan held the lock"
wait $rescan
[ "$(cat "$T/rescan.code")" = 200 ] || fail "rescan: $(cat "$T/rescan.code") $(cat "$T/rescan.out")"
pass "a GET that needs the lock waited for the rescan"
