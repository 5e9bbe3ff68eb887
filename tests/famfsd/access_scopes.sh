#!/bin/bash
# famfsd_access_scopes: read and write access. On the Unix socket a user
# whose group is in access.read may read (GET, /metrics) and gets 403
# forbidden for a write; a user in access.write may write; a user in
# neither gets 403 for everything but /healthz. Over TCP the token of
# read_token_file reads and the token of token_file writes. Every refused
# write leaves the state as it was and is audited with who asked.
source "$(dirname "$0")/lib.sh"
command -v setpriv >/dev/null || { echo "no setpriv: skipped"; exit 77; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
echo "write-token-for-famfsd-tests-0123" >"$T/token"
echo "read-token-for-famfsd-tests-4567" >"$T/read-token"
chmod 600 "$T/token" "$T/read-token"
chmod 755 "$T"
# groups that exist on every Debian/Fedora host stand in for famfs and
# famfs-read: the test must not add groups to the machine
cat >"$T/famfsd.yaml" <<EOC
access:
  write: [daemon]
  read: [users]
token_file: $T/token
read_token_file: $T/read-token
tcp:
  listen: 127.0.0.1:$port
  insecure: true
EOC
"$FAMFSD" --config "$T/famfsd.yaml" --state-dir "$STATE" --socket "$SOCK" \
	--plugin-dir "$PLUGINS" --set "paths.devices=$T" >>"$LOG" 2>&1 &
FAMFSD_PID=$!
wait_for 60 "famfsd to answer" curl -s -o /dev/null --unix-socket "$SOCK" http://famfsd/healthz
[ "$(stat -c %a "$SOCK")" = 666 ] || fail "default socket mode $(stat -c %a "$SOCK")"
make_devices 1
before=$(db_state)

as() { # UID GID METHOD PATH [JSON]: api as that user, no other groups
	local u=$1 g=$2; shift 2
	local out
	out=$(setpriv --reuid="$u" --regid="$g" --clear-groups \
		curl -s --unix-socket "$SOCK" -X "$1" ${3:+-H 'Content-Type: application/json' --data-binary "$3"} \
		-w '\n%{http_code}' "http://famfsd$2")
	STATUS=${out##*$'\n'}
	BODY=${out%$'\n'*}
}
users=$(getent group users | cut -d: -f3)
daemon=$(getent group daemon | cut -d: -f3)

# a reader: GET and /metrics served, writes refused
as 65534 "$users" GET /v1/devices
expect 200
as 65534 "$users" GET /metrics
[ "$STATUS" = 200 ] || fail "a reader's scrape: HTTP $STATUS"
grep -q '^famfsd_' <<<"$BODY" || fail "a reader's scrape has no famfsd_ metrics"
as 65534 "$users" DELETE /v1/devices/emul0
expect 403 forbidden
echo "$BODY" | grep -q "read access only" || fail "message: $BODY"
as 65534 "$users" POST /v1/devices "{\"name\":\"e9\",\"path\":\"$T/e9\",\"size\":\"64MiB\"}"
expect 403 forbidden
[ "$(db_state)" = "$before" ] && [ ! -e "$T/e9" ] || fail "a reader's write changed something"
pass "access.read: GET and /metrics served, a write 403 forbidden, nothing changed"

# outside both groups: nothing but /healthz
as 65534 65534 GET /v1/devices
expect 403 forbidden
as 65534 65534 GET /metrics
expect 403 forbidden
as 65534 65534 DELETE /v1/devices/emul0
expect 403 forbidden
as 65534 65534 GET /healthz
[ "$STATUS" = 200 ] || fail "/healthz for an outsider: HTTP $STATUS"
[ "$(db_state)" = "$before" ] || fail "an outsider changed something"
pass "neither group: 403 forbidden for reads and writes, /healthz answered"

# a writer in access.write
as 65534 "$daemon" POST /v1/devices "{\"name\":\"e9\",\"path\":\"$T/e9\",\"size\":\"64MiB\"}"
expect 201
as 65534 "$daemon" DELETE /v1/devices/e9
expect 204
pass "access.write: a write served"

# TCP: the read token reads, the write token writes
URL=http://127.0.0.1:$port
rt=$(cat "$T/read-token") wt=$(cat "$T/token")
tcp() { # TOKEN METHOD PATH
	STATUS=$(curl -s -o "$T/out" -w '%{http_code}' -H "Authorization: Bearer $1" -X "$2" "$URL$3")
	BODY=$(cat "$T/out")
}
wait_for 30 "the TCP listener" curl -s -o /dev/null $URL/healthz
tcp "$rt" GET /v1/devices
expect 200
tcp "$rt" GET /metrics
[ "$STATUS" = 200 ] || fail "a read-token scrape: HTTP $STATUS"
tcp "$rt" DELETE /v1/devices/emul0
expect 403 forbidden
[ "$(db_state)" = "$before" ] || fail "a read token's write changed something"
tcp "$wt" GET /v1/devices
expect 200
tcp wrong-token-wrong-token GET /v1/devices
expect 401 unauthorized
pass "TCP: the read token reads and gets 403 for a write; the write token is served"

# the audit log says who asked, with which access
api GET '/v1/events/audit?limit=1000'
python3 - "$BODY" <<'PY' || fail "audit log: $BODY"
import json, sys
items = json.loads(sys.argv[1])["items"]
refused = [e for e in items if e.get("status") == 403]
whos = " ".join(e["who"] for e in refused)
assert "uid:65534" in whos and "(read)" in whos and "(none)" in whos, whos
assert "token@127.0.0.1 (read)" in whos, whos
PY
pass "refused writes are audited with the caller and its access"
