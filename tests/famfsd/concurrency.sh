#!/bin/bash
# famfsd_concurrency: concurrent mutating requests are serialized: of ten
# sets racing for one device exactly one wins; twenty concurrent file
# creates all land; ten racing for one path: one wins.
source "$(dirname "$0")/lib.sh"
start_famfsd
make_devices 3
pids=
for i in $(seq 1 10); do
	curl -s --unix-socket "$SOCK" -X POST -H 'Content-Type: application/json' \
		-d "{\"name\":\"race$i\",\"devices\":[\"emul0\"]}" -o /dev/null \
		-w '%{http_code}\n' http://famfsd/v1/interleave-sets >"$T/race.$i" &
	pids="$pids $!"
done
wait $pids; pids=
won=$(cat "$T"/race.* | grep -c '^201$')
lost=$(cat "$T"/race.* | grep -c '^409$')
[ "$won" = 1 ] && [ "$lost" = 9 ] || fail "device race: $won won, $lost lost: $(cat "$T"/race.*)"
n=$(sqlite3 "$STATE/famfsd.db" "SELECT count(*) FROM set_devices WHERE device='emul0'")
[ "$n" = 1 ] || fail "emul0 is in $n sets"
pass "one of ten racing sets got the device"

api POST /v1/interleave-sets '{"name":"set1","devices":["emul1","emul2"]}'; expect 201
api POST /v1/filesystems '{"name":"fs1","set":"set1","log_size":"4MiB"}'; expect 201
for i in $(seq 1 20); do
	curl -s --unix-socket "$SOCK" -X POST -H 'Content-Type: application/json' \
		-d "{\"filesystem\":\"fs1\",\"path\":\"/f$i\",\"size\":\"1MiB\"}" -o /dev/null \
		-w '%{http_code}\n' http://famfsd/v1/files >"$T/file.$i" &
	pids="$pids $!"
done
wait $pids; pids=
[ "$(cat "$T"/file.* | grep -c '^201$')" = 20 ] || fail "file creates: $(cat "$T"/file.*)"
api GET /v1/filesystems/fs1
[ "$(jq_get "$BODY" .space.files)" = 20 ] || fail "files: $BODY"
[ "$(jq_get "$BODY" .log.entries)" = 20 ] || fail "log entries: $BODY"
pass "twenty concurrent creates, twenty files, twenty log entries"

for i in $(seq 1 10); do
	curl -s --unix-socket "$SOCK" -X POST -H 'Content-Type: application/json' \
		-d '{"filesystem":"fs1","path":"/same","size":"1MiB"}' -o /dev/null \
		-w '%{http_code}\n' http://famfsd/v1/files >"$T/same.$i" &
	pids="$pids $!"
done
wait $pids; pids=
[ "$(cat "$T"/same.* | grep -c '^201$')" = 1 ] || fail "same path: $(cat "$T"/same.*)"
[ "$(cat "$T"/same.* | grep -c '^409$')" = 9 ] || fail "same path: $(cat "$T"/same.*)"
pass "one of ten racing creates of one path won"
