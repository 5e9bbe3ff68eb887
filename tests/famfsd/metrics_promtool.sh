#!/bin/bash
# famfsd_metrics_promtool: /metrics from a famfsd with devices, a
# filesystem with files and some API traffic passes `promtool check
# metrics` and carries every metric docs/metrics.md lists; then the values
# of the per-filesystem ingest counters, the jobs by kind and state and the
# follow lag of a real client slot are the real ones.
source "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || { echo "promtool not installed"; exit 77; }
start_famfsd
make_devices 3
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"4MiB"}'; expect 201
api POST /v1/files '{"filesystem":"fs0","path":"/a/b","size":"6MiB"}'; expect 201
api GET /v1/nosuch; expect 404
api POST /v1/devices '{"bad json'; expect 400
curl -s --unix-socket "$SOCK" -D "$T/headers" -o "$T/metrics" http://famfsd/metrics
grep -qi '^Content-Type: text/plain; version=0.0.4' "$T/headers" || fail "content type: $(cat "$T/headers")"
promtool check metrics <"$T/metrics" || fail "promtool check metrics"
for m in famfsd_build_info famfsd_http_requests_total famfsd_http_request_duration_seconds_bucket \
	famfs_device_capacity_bytes famfs_device_free_bytes famfs_fs_capacity_bytes \
	famfs_fs_free_bytes famfs_fs_largest_file_bytes famfs_fs_striped_free_bytes famfs_fs_files famfs_fs_log_entries famfs_fs_log_used_bytes \
	famfs_fs_log_capacity_bytes famfs_mount_state famfs_client_follow_lag_entries \
	famfs_ingest_bytes_total famfs_ingest_files_total famfsd_jobs; do
	grep -q "^# TYPE $m \|^$m" "$T/metrics" || fail "missing $m"
done
grep -q '^famfs_fs_files{fs="fs0"} 1$' "$T/metrics" || fail "file count"
grep -q 'famfsd_http_requests_total{route="unmatched",method="GET",code="404"} 1' "$T/metrics" \
	|| fail "404 counted"
grep -q 'famfsd_http_requests_total{route="/v1/files",method="POST",code="201"} 1' "$T/metrics" \
	|| fail "file create counted"
# the device holding the 6 MiB file has less free space than its size
cap=$(awk '/^famfs_device_capacity_bytes\{device="emul0"/ {print $2}' "$T/metrics")
free=$(awk '/^famfs_device_free_bytes\{device="emul0"/ {print $2}' "$T/metrics")
[ "$free" -lt "$cap" ] || fail "free $free not below capacity $cap"
pass "promtool check metrics passes on real output"

# metric VALUE-OF-SERIES: the value of one exact series in $T/metrics
metric() {
	awk -v s="$1" 'index($0, s " ") == 1 { print $2 }' "$T/metrics"
}
scrape() {
	curl -s --unix-socket "$SOCK" -o "$T/metrics" http://famfsd/metrics
	promtool check metrics <"$T/metrics" || fail "promtool check metrics"
}

# ingest 3 files into fs0; fs1 gets nothing
api POST /v1/interleave-sets '{"name":"set1","devices":["emul2"]}'; expect 201
api POST /v1/filesystems '{"name":"fs1","set":"set1","log_size":"4MiB"}'; expect 201
mkdir -p "$T/src/sub"
head -c 1048576 /dev/urandom >"$T/src/a"
head -c 3000 /dev/urandom >"$T/src/b"
printf 'hello' >"$T/src/sub/c"
bytes=$((1048576 + 3000 + 5))
run_job '{"kind":"ingest","params":{"filesystem":"fs0","source":"'"$T/src"'","dest":"/in"}}'
[ "$JOB_STATE" = succeeded ] || fail "ingest: $BODY"
scrape
[ "$(metric 'famfs_ingest_bytes_total{fs="fs0"}')" = "$bytes" ] ||
	fail "ingest bytes of fs0: $(grep ingest_bytes "$T/metrics"), ingested $bytes"
[ "$(metric 'famfs_ingest_files_total{fs="fs0"}')" = 3 ] || fail "ingest files of fs0"
[ "$(metric 'famfs_ingest_bytes_total{fs="fs1"}')" = 0 ] || fail "fs1 has no ingest series at 0"
[ "$(metric 'famfsd_jobs{kind="ingest",state="succeeded"}')" = 1 ] ||
	fail "the ingest job is not counted: $(grep '^famfsd_jobs' "$T/metrics")"
[ "$(metric 'famfsd_jobs{kind="rescan",state="succeeded"}')" = 0 ] || fail "no rescan job ran"
pass "ingest counters of fs0 = the $bytes bytes and 3 files ingested; fs1 at 0; the job counted by kind"

# the same tree again: every file is skipped, nothing is copied; a job
# into a filesystem that does not exist fails
run_job '{"kind":"ingest","params":{"filesystem":"fs0","source":"'"$T/src"'","dest":"/in"}}'
[ "$JOB_STATE" = succeeded ] || fail "second ingest: $BODY"
run_job '{"kind":"ingest","params":{"filesystem":"nosuch","source":"'"$T/src"'","dest":"/in"}}'
[ "$JOB_STATE" = failed ] || fail "ingest into a missing filesystem: $BODY"
scrape
[ "$(metric 'famfs_ingest_bytes_total{fs="fs0"}')" = "$bytes" ] || fail "skipped files counted as ingested"
[ "$(metric 'famfsd_jobs{kind="ingest",state="succeeded"}')" = 2 ] || fail "2 ingest jobs succeeded"
[ "$(metric 'famfsd_jobs{kind="ingest",state="failed"}')" = 1 ] || fail "1 ingest job failed"
pass "a re-ingest of unchanged files copies (and counts) nothing; the failed job counted"

# a client that stops replaying: caught up first, then behind by the
# entry the master appends, for as long as it has been there
hold_client_slot lagclient "$T/dev0" "$T/dev1"
scrape
series='{fs="fs0",slot="0",client="lagclient"}'
[ "$(metric "famfs_client_follow_lag_entries$series")" = 0 ] ||
	fail "a fresh client lags: $(grep follow_lag "$T/metrics")"
[ "$(metric "famfs_client_follow_lag_seconds$series")" = 0.000 ] || fail "a caught-up client has lag seconds"
t0=$(date +%s.%N)
api POST /v1/files '{"filesystem":"fs0","path":"/lagged","size":"4KiB"}'; expect 201
sleep 2
scrape
t1=$(date +%s.%N)
[ "$(metric "famfs_client_follow_lag_entries$series")" -ge 1 ] || fail "no entries lag"
lag=$(metric "famfs_client_follow_lag_seconds$series")
python3 -c 'import sys; lag, t0, t1 = map(float, sys.argv[1:]); sys.exit(not 1.9 <= lag <= t1 - t0 + 0.1)' \
	"$lag" "$t0" "$t1" || fail "lag $lag s; the entry was appended between $t0 and 2 s before $t1"
pass "follow lag of a client that stopped replaying: $lag s, the age of the entry it has not replayed"
