#!/bin/bash
# famfsd_socket_permissions: the socket gets the configured mode (here
# 0660) and group from its first moment; a user outside the group cannot
# connect. (The default mode is 0666: access.read and access.write decide,
# famfsd_access_scopes.)
source "$(dirname "$0")/lib.sh"
cat >"$T/famfsd.yaml" <<EOC
socket_group: daemon
socket_mode: "0660"
EOC
# the first stat that sees the socket must see its final mode and group:
# a socket bound first and chmod'ed after is briefly open to everyone
python3 "$(dirname "$0")/first_stat.py" "$SOCK" 20 >"$T/first" 2>"$T/watch" &
watcher=$!
wait_for 30 "the inotify watcher" test -s "$T/watch"
grep -q watching "$T/watch" || fail "the inotify watcher did not start: $(cat "$T/watch")"
"$FAMFSD" --config "$T/famfsd.yaml" --state-dir "$STATE" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
	--plugin-dir "$PLUGINS" >>"$LOG" 2>&1 &
FAMFSD_PID=$!
wait $watcher || fail "the socket did not appear"
[ "$(cat "$T/first")" = "660 daemon" ] || fail "socket born as $(cat "$T/first"), not 660 daemon"
[ "$(stat -c %a "$SOCK")" = 660 ] || fail "mode $(stat -c %a "$SOCK")"
[ "$(stat -c %G "$SOCK")" = daemon ] || fail "group $(stat -c %G "$SOCK")"
pass "socket is 0660 root:daemon from its first moment"
chmod 755 "$T"
if command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		curl -s --unix-socket "$SOCK" http://famfsd/v1/host 2>&1)
	rc=$?
	# curl's 7 is "could not connect" (EACCES here); an empty answer
	# alone would also pass if famfsd never answered anyone
	[ $rc = 7 ] && [ -z "$out" ] || fail "nobody could talk to famfsd: curl exit $rc: $out"
	out=$(setpriv --reuid=nobody --regid=daemon --clear-groups \
		curl -s --unix-socket "$SOCK" http://famfsd/healthz 2>&1)
	[ "$out" = '{"status":"ok"}' ] || fail "group member refused: $out"
	pass "outsider refused, group member served"
fi
stop_famfsd
# the group does not exist: mode still applies, no failure
cat >"$T/famfsd.yaml" <<EOC
socket_group: no-such-group-famfs-test
socket_mode: "0600"
EOC
"$FAMFSD" --config "$T/famfsd.yaml" --state-dir "$STATE" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
	--plugin-dir "$PLUGINS" >>"$LOG" 2>&1 &
FAMFSD_PID=$!
wait_for 60 "famfsd to answer on $SOCK" curl -s -o /dev/null --unix-socket "$SOCK" http://famfsd/healthz
[ "$(stat -c %a "$SOCK")" = 600 ] || fail "socket_mode 0600: $(stat -c %a "$SOCK")"
pass "socket_mode from the config file"
# a second famfsd on the same socket refuses instead of stealing it
"$FAMFSD" --config /dev/null --state-dir "$T/state2" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
	--plugin-dir "$PLUGINS" >"$T/second.log" 2>&1 && fail "second famfsd started"
grep -q "another famfsd is listening" "$T/second.log" || fail "second famfsd: $(cat "$T/second.log")"
curl -s --unix-socket "$SOCK" http://famfsd/healthz >/dev/null || fail "first famfsd lost its socket"
pass "a second famfsd on the same socket is refused"
