#!/bin/bash
# famfsd_sd_notify: with NOTIFY_SOCKET (our own listener, PID 1 is not
# systemd here) famfsd sends READY=1, STATUS=, WATCHDOG=1 when
# WATCHDOG_USEC is set, STOPPING=1 on SIGTERM; with a socket passed the
# systemd way (LISTEN_FDS) it serves on that socket.
source "$(dirname "$0")/lib.sh"
python3 "$NOTIFY_HELPER" "$T/notify.sock" "$T/notify.log" &
lpid=$!
BG_PIDS+=("$lpid")   # a failed check must not leave it holding ctest's pipe
wait_for 60 "the notify listener" test -S "$T/notify.sock"
NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=300000 start_famfsd
two_watchdogs() { [ "$(grep -c '^WATCHDOG=1$' "$T/notify.log")" -ge 2 ]; }
wait_for 10 "two WATCHDOG=1 in $T/notify.log" two_watchdogs
grep -q '^READY=1$' "$T/notify.log" || fail "no READY=1: $(cat "$T/notify.log")"
grep -q '^STATUS=serving on ' "$T/notify.log" || fail "no STATUS=: $(cat "$T/notify.log")"
[ "$(grep -c '^WATCHDOG=1$' "$T/notify.log")" -ge 2 ] || fail "no WATCHDOG=1: $(cat "$T/notify.log")"
stop_famfsd
wait_for 10 "STOPPING=1 in $T/notify.log" grep -q '^STOPPING=1' "$T/notify.log"
# READY before STOPPING
[ "$(grep -n '^READY=1$' "$T/notify.log" | head -1 | cut -d: -f1)" -lt \
  "$(grep -n '^STOPPING=1' "$T/notify.log" | cut -d: -f1)" ] || fail "order"
pass "READY=1, STATUS=, WATCHDOG=1, STOPPING=1"
kill $lpid
# priority prefixes on stderr for the journal
grep -q '^<6>famfsd: ' "$LOG" || fail "no <N> prefixes on stderr"
pass "stderr lines carry <N> priority prefixes"

# socket activation
python3 "$NOTIFY_HELPER" --activate "$T/act.sock" -- "$FAMFSD" --config /dev/null \
	--state-dir "$STATE" "${FAMFSD_TEST_PATHS[@]}" --socket "$T/act.sock" --plugin-dir "$PLUGINS" >>"$LOG" 2>&1 &
FAMFSD_PID=$!
wait_for 60 "famfsd on the activated socket" curl -s -o /dev/null --unix-socket "$T/act.sock" http://famfsd/healthz
api_out=$(curl -s --unix-socket "$T/act.sock" http://famfsd/v1/host)
echo "$api_out" | grep -q '"name"' || fail "activated socket not served: $api_out"
grep -q 'using the socket passed by systemd' "$LOG" || fail "did not use the passed socket"
stop_famfsd
[ -S "$T/act.sock" ] || fail "famfsd removed a socket it did not create"
pass "socket activation (LISTEN_FDS)"
