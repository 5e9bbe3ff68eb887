#!/bin/bash
# famfsd_metrics_promtool: /metrics from a famfsd with devices, a
# filesystem with files and some API traffic passes `promtool check
# metrics` and carries every metric docs/metrics.md lists.
source "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || { echo "promtool not installed"; exit 77; }
start_famfsd
make_devices 2
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
	famfs_fs_free_bytes famfs_fs_files famfs_fs_log_entries famfs_fs_log_used_bytes \
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
