#!/bin/bash
# famfsd_exact_parsing: a request reaches the object it names or none.
# A percent-encoded NUL, '/' or control byte in the URL, a duplicate JSON
# key and an unknown query parameter each get 400 before any handler
# runs, and leave the state and the filesystem as they were.
source "$(dirname "$0")/lib.sh"
start_famfsd
make_devices 2

# snapshot: the store, the devices list, the files under $T
snapshot() {
	{ db_state; api GET /v1/devices; echo "$BODY"
	  find "$T" -path "$STATE" -prune -o -print | grep -v '\.log$' | sort; }
}
before=$(snapshot)
unchanged() {
	[ "$(snapshot)" = "$before" ] || fail "$1 changed the state or the files"
}

# curl sends the URL as given (--path-as-is: no dot-segment squashing)
raw() { # METHOD URL [JSON]
	local out
	if [ $# -ge 3 ]; then
		out=$(curl -s --path-as-is --unix-socket "$SOCK" -X "$1" \
			-H 'Content-Type: application/json' --data-binary "$3" \
			-w '\n%{http_code}' "http://famfsd$2")
	else
		out=$(curl -s --path-as-is --unix-socket "$SOCK" -X "$1" \
			-w '\n%{http_code}' "http://famfsd$2")
	fi
	STATUS=${out##*$'\n'}
	BODY=${out%$'\n'*}
}

raw DELETE '/v1/devices/emul0%00zzz'
expect 400 malformed_url
echo "$BODY" | grep -q NUL || fail "message does not say NUL: $BODY"
unchanged "DELETE emul0%00zzz"
pass "a percent-encoded NUL in a name: 400 malformed_url, emul0 kept"

raw DELETE '/v1/devices/emul0%2Fx'
expect 400 malformed_url
unchanged "DELETE emul0%2Fx"
raw DELETE '/v1/devices/emul0%0A'
expect 400 malformed_url
raw DELETE '/v1/devices/emul0%zz'
expect 400 malformed_url
unchanged "DELETE emul0%0A / %zz"
pass "a percent-encoded '/' or control byte, a bad escape: 400"

raw GET '/v1/jobs?state=running%00'
expect 400 malformed_url
raw GET '/v1/devices/emul%30'          # %30 is '0': a plain escape is fine
expect 200
pass "a NUL in a query value: 400; an ordinary escape is decoded"

api POST /v1/devices "{\"name\":\"e6\",\"path\":\"$T/e6\",\"size\":\"64MiB\",\"name\":\"e7\"}"
expect 400 duplicate_key
echo "$BODY" | grep -q "'name'" || fail "message does not name the key: $BODY"
api POST /v1/devices "{\"name\":\"e6\",\"path\":\"$T/e6\",\"size\":\"64MiB\",\"n\\u0061me\":\"e7\"}"
expect 400 duplicate_key
unchanged "duplicate keys"
[ ! -e "$T/e6" ] && [ ! -e "$T/e7" ] || fail "a device file was created"
pass "a duplicate JSON key (also escaped): 400 duplicate_key, nothing created"

api DELETE '/v1/devices/emul1?destory=1'
expect 400 unknown_parameter
echo "$BODY" | grep -q destory || fail "message does not name the parameter: $BODY"
api GET '/v1/host?verbose=1'
expect 400 unknown_parameter
unchanged "unknown query parameters"
api GET '/v1/devices?topology=1'
expect 200
pass "an unknown query parameter: 400 unknown_parameter, naming it"

# every refusal is in the audit log with who asked
api GET '/v1/events/audit?limit=1000'
n=$(python3 -c '
import json, sys
print(sum(1 for e in json.loads(sys.argv[1])["items"] if e.get("status") == 400))
' "$BODY")
[ "$n" -ge 6 ] || fail "only $n refusals audited: $BODY"
pass "the refused mutations are audited"
