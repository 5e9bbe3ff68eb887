#!/bin/bash
# famfsd_sigterm_inflight: SIGTERM while a request is being handled lets it
# finish (and commit) before famfsd exits.
source "$(dirname "$0")/lib.sh"
start_famfsd
# creating (and populating) a 1 GiB emul device takes a while
curl -s --unix-socket "$SOCK" -X POST -H 'Content-Type: application/json' \
	-d "{\"name\":\"big\",\"path\":\"/dev/shm/famfsd-test-$$-big\",\"size\":\"1GiB\"}" \
	-o "$T/out" -w '%{http_code}' http://famfsd/v1/devices >"$T/code" &
cpid=$!
wait_for 4 "the create of device big to start" test -e "/dev/shm/famfsd-test-$$-big"
kill -TERM $FAMFSD_PID
wait $cpid
stop_rc=0; wait $FAMFSD_PID || stop_rc=$?
FAMFSD_PID=
[ "$(cat "$T/code")" = 201 ] || { rm -f /dev/shm/famfsd-test-$$-big*; fail "in-flight request: $(cat "$T/code") $(cat "$T/out")"; }
[ $stop_rc = 0 ] || fail "famfsd exit $stop_rc"
start_famfsd
api GET /v1/devices/big; expect 200
api DELETE "/v1/devices/big?destroy=1"; expect 204
rm -f /dev/shm/famfsd-test-$$-big*
pass "in-flight request finished and committed across SIGTERM"
