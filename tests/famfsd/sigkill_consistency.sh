#!/bin/bash
# famfsd_sigkill_consistency: SIGKILL while mutations are running leaves a
# consistent database (each call is one transaction): integrity and
# foreign keys check out, every set has all its devices, and famfsd
# starts again on it.
source "$(dirname "$0")/lib.sh"
start_famfsd
make_devices 8 8MiB
(
	for i in $(seq 1 100000); do
		a=$((i % 4 * 2)); b=$((a + 1))
		curl -s --unix-socket "$SOCK" -X POST -H 'Content-Type: application/json' \
			-d "{\"name\":\"s$i\",\"devices\":[\"emul$a\",\"emul$b\"]}" -o /dev/null http://famfsd/v1/interleave-sets || break
		curl -s --unix-socket "$SOCK" -X DELETE -o /dev/null http://famfsd/v1/interleave-sets/s$i || break
	done
) &
loop=$!
# let it run until it has done a good number of calls
audited() {
	n=$(sqlite3 "$STATE/famfsd.db" "SELECT count(*) FROM audit" 2>/dev/null)
	[ "${n:-0}" -ge 200 ]
}
wait_for 120 "200 audited calls before the kill" audited
kill9_famfsd
wait $loop 2>/dev/null
[ "$(sqlite3 "$STATE/famfsd.db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
[ -z "$(sqlite3 "$STATE/famfsd.db" 'PRAGMA foreign_key_check')" ] || fail "foreign_key_check"
bad=$(sqlite3 "$STATE/famfsd.db" "SELECT s.name FROM interleave_sets s WHERE
	(SELECT count(*) FROM set_devices d WHERE d.set_name = s.name) <> s.strips")
[ -z "$bad" ] || fail "sets with missing devices: $bad"
sets=$(sqlite3 "$STATE/famfsd.db" "SELECT count(*) FROM interleave_sets")
[ "$sets" -le 1 ] || fail "$sets sets left: a create and its delete are serialized, at most one can be half way"
start_famfsd
api GET /v1/interleave-sets; expect 200
api GET /v1/devices; expect 200
pass "consistent after SIGKILL ($n audited calls before the kill, $sets set left)"
