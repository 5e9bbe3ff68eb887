#!/bin/sh
# famfs-cli ingest when a thread cannot be started (issue 13): the
# progress thread failing must not lead to a join of a thread that does
# not exist; the copy still completes, and says progress is not shown.
# Usage: thread_fail.sh FAMFS_CLI FAIL_THREAD_SO
set -u
CLI=$1 SHIM=$2
W=$(mktemp -d "${TMPDIR:-/dev/shm}/famfs-cli-thr.XXXXXX")
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL $*"; exit 1; }
$CLI mkemul --size 64MiB "$W/d0" >/dev/null || fail mkemul
$CLI mkfs --log-size 4MiB "$W/d0" >/dev/null || fail mkfs
mkdir "$W/src"
for i in 1 2 3; do head -c 100000 /dev/urandom > "$W/src/f$i"; done
# call 1 is the progress thread (the copy workers come after it)
LD_PRELOAD=$SHIM FAIL_PTHREAD_CREATE_AT=1 ASAN_OPTIONS=verify_asan_link_order=0 \
	$CLI ingest -d "$W/d0" "$W/src" /dst > "$W/out" 2> "$W/err"
rc=$?
[ $rc = 0 ] || fail "ingest with no progress thread: rc $rc: $(cat "$W/err")"
grep -q "progress" "$W/err" || fail "no word that progress is not shown: $(cat "$W/err")"
n=$($CLI ls -d "$W/d0" /dst | grep -c ' f[123]$')
[ "$n" = 3 ] || fail "expected 3 files ingested, found $n"
echo "ok   ingest completes without its progress thread"
