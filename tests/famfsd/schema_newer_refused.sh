#!/bin/bash
# famfsd_schema_newer_refused: a database written by a newer famfsd
# (user_version beyond the migrations this binary has) is refused with a
# clear message and left untouched.
source "$(dirname "$0")/lib.sh"
start_famfsd
stop_famfsd
[ "$(sqlite3 "$STATE/famfsd.db" 'PRAGMA user_version')" -ge 1 ] || fail "migrations not applied"
[ "$(sqlite3 "$STATE/famfsd.db" 'PRAGMA journal_mode')" = wal ] || fail "not WAL"
sqlite3 "$STATE/famfsd.db" 'PRAGMA user_version=99'
sum=$(sqlite3 "$STATE/famfsd.db" .dump | md5sum)
"$FAMFSD" --config /dev/null --state-dir "$STATE" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
	--plugin-dir "$PLUGINS" >"$T/newer.log" 2>&1 && fail "famfsd accepted a newer database"
grep -q "schema version 99 but this famfsd knows only up to" "$T/newer.log" \
	|| fail "message: $(cat "$T/newer.log")"
[ "$sum" = "$(sqlite3 "$STATE/famfsd.db" .dump | md5sum)" ] || fail "database changed"
[ -e "$SOCK" ] && fail "socket created although start was refused"
pass "newer database refused: $(grep -o 'schema version 99.*' "$T/newer.log" | head -c 100)"
