#!/bin/bash
# famfsd_review_defects: the API defects found by review (issue 13), each
# one a request that used to crash famfsd, act on the wrong object or
# grow a table without bound.
source "$(dirname "$0")/lib.sh"
start_famfsd
make_devices 2
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"4MiB"}'; expect 201

alive() { kill -0 "$FAMFSD_PID" 2>/dev/null || fail "famfsd died: $*"; }

# 1. A chunk so large that strips * chunk wraps to 0 (SIGFPE in placement).
api POST /v1/files '{"filesystem":"fs0","path":"/huge","size":"9223372036854775809","strips":2,"chunk":"8388608TiB"}'
alive "chunk 2^63, size 2^63+1"
expect 400 invalid_value
grep -q chunk <<<"$BODY" || fail "the refusal does not name the chunk: $BODY"
api POST /v1/files '{"filesystem":"fs0","path":"/c","size":"4MiB","chunk":"8388608TiB"}'
alive "chunk 2^63"
expect 400 invalid_value
api POST /v1/interleave-sets '{"name":"big","devices":["emul0"],"chunk":"2TiB"}'
expect 400 invalid_value
api PATCH /v1/host '{"policy":{"chunk":"2TiB"}}'
expect 400 invalid_value
pass "absurd chunks refused, famfsd alive"

# 2. An empty URL segment must not shift the path: the segments skipped it
#    but the path was cut from the raw URL, so DELETE /v1//files/fs0/x
#    deleted /fs0/x of fs0.
api POST /v1/files '{"filesystem":"fs0","path":"/x","size":"4KiB"}'; expect 201
api POST /v1/files '{"filesystem":"fs0","path":"/fs0/x","size":"4KiB"}'; expect 201
api DELETE /v1//files/fs0/x
[ "$STATUS" = 404 ] || fail "DELETE /v1//files/fs0/x: expected 404, got $STATUS $BODY"
api GET /v1/files/fs0/fs0/x; expect 200
api GET /v1/files/fs0/x; expect 200
api DELETE /v1/files/fs0//x
[ "$STATUS" = 404 ] || fail "DELETE /v1/files/fs0//x: expected 404, got $STATUS $BODY"
api GET /v1/files/fs0/x; expect 200
pass "empty URL segments are not found, nothing deleted"

# 3. A device may not be called like a route under /v1/devices.
before=$(db_state)
api POST /v1/devices "{\"name\":\"rescan\",\"path\":\"$T/rescan\",\"size\":\"8MiB\"}"
expect 400 invalid_value
grep -q rescan <<<"$BODY" || fail "refusal does not name 'rescan': $BODY"
[ "$before" = "$(db_state)" ] || fail "refused device changed the database"
[ -e "$T/rescan" ] && fail "refused device left its file"
pass "reserved device name refused"

# 4. The method label comes from the client: arbitrary methods must not
#    each get a counter.
for i in $(seq 1 40); do
	curl -s --unix-socket "$SOCK" -X "BREW$i" http://famfsd/v1/host -o /dev/null
done
alive "odd methods"
api GET /metrics; expect 200
n=$(grep -c '^famfsd_http_requests_total{' <<<"$BODY")
[ "$n" -gt 0 ] || fail "no request counters at all"
grep -q 'method="BREW' <<<"$BODY" && fail "client-chosen method became a label"
grep -q 'method="other"' <<<"$BODY" || fail "unknown methods not counted as other"
pass "method label bounded ($n counters)"

# 5. A failed UPDATE after re-mkfs is an error, not a 200 with the old
#    record (a real SQLite failure: a trigger that aborts the update).
sqlite3 "$STATE/famfsd.db" "CREATE TRIGGER no_update BEFORE UPDATE ON filesystems
	BEGIN SELECT RAISE(ABORT, 'injected failure'); END;" || fail "cannot add the trigger"
api POST /v1/filesystems/fs0/mkfs '{"force":true}'
expect 500 internal
grep -q "injected failure" <<<"$BODY" || fail "the error does not say why: $BODY"
sqlite3 "$STATE/famfsd.db" "DROP TRIGGER no_update;"
api POST /v1/filesystems/fs0/mkfs '{"force":true}'; expect 200
pass "a failed record update is a 500 naming the cause"
