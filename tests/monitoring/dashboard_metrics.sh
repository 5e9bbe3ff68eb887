#!/bin/bash
# monitoring_dashboard_metrics DIR: a real famfsd with a filesystem, a
# finished ingest job, a mount and a client slot that lags; its /metrics
# must carry a sample of every metric (and every label selected on) that
# the expressions of DIR/famfs-dashboard.json and DIR/famfs-alerts.yml
# use, so renaming a metric or a label in famfsd breaks this test. The
# checker itself must reject a dashboard naming a metric famfsd lacks.
DIR=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../famfsd/lib.sh"

# Without FUSE no mount can exist: the mount metrics must then still be
# declared, but cannot have a sample.
UNSAMPLED=
if [ -x "${FAMFS_FUSED:-}" ] && [ -e /dev/fuse ]; then
	start_famfsd --fused "$FAMFS_FUSED"
else
	echo "no famfs-fused or /dev/fuse: the mount metrics are checked by name only"
	UNSAMPLED="--unsampled-ok famfs_mount_state,famfs_mount_restarts_total"
	start_famfsd
fi
CHECK="python3 $HERE/promql_names.py $UNSAMPLED"
make_devices 2
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"4MiB"}'; expect 201
mkdir -p "$T/src"
head -c 300000 /dev/urandom >"$T/src/data"
run_job '{"kind":"ingest","params":{"dataset":"in","filesystem":"fs0","source":"'"$T/src"'","dest":"/in"}}'
[ "$JOB_STATE" = succeeded ] || fail "ingest: $BODY"
hold_client_slot lagclient "$T/dev0" "$T/dev1"
api POST /v1/files '{"filesystem":"fs0","path":"/after","size":"4KiB"}'; expect 201
if [ -z "$UNSAMPLED" ]; then
	api POST /v1/mounts '{"name":"c","filesystem":"fs0","path":"'"$T/mnt-c"'","role":"client"}'
	expect 201
	for _ in $(seq 1 200); do
		api GET /v1/mounts/c
		[ "$(jq_get "$BODY" .state)" = mounted ] && break
		sleep 0.05
	done
	[ "$(jq_get "$BODY" .state)" = mounted ] || fail "client mount: $BODY"
fi
curl -s --unix-socket "$SOCK" -o "$T/metrics" http://famfsd/metrics || fail "GET /metrics"
grep -q '^famfs_ingest_bytes_total{fs="fs0"} 300000$' "$T/metrics" || fail "the ingest is not in /metrics"

$CHECK "$T/metrics" "$DIR/famfs-dashboard.json" "$DIR/famfs-alerts.yml" ||
	fail "the dashboard or the alerts use what famfsd does not export"
pass "dashboard and alert expressions use only metrics and labels famfsd exports"

# the check can fail: a renamed metric, and a renamed label
sed 's/famfs_ingest_bytes_total/famfs_ingested_bytes_total/' "$DIR/famfs-dashboard.json" >"$T/renamed.json"
if $CHECK "$T/metrics" "$T/renamed.json" "$DIR/famfs-alerts.yml" >"$T/out" 2>&1; then
	fail "a dashboard naming famfs_ingested_bytes_total passed"
fi
grep -q 'famfs_ingested_bytes_total is not in' "$T/out" || fail "not named: $(cat "$T/out")"
sed 's/^\(famfs_client_follow_lag_seconds{\)fs=/\1filesystem=/' "$T/metrics" >"$T/relabelled"
if $CHECK "$T/relabelled" "$DIR/famfs-dashboard.json" "$DIR/famfs-alerts.yml" >"$T/out" 2>&1; then
	fail "famfs_client_follow_lag_seconds without an fs label passed"
fi
grep -q 'famfs_client_follow_lag_seconds has no label fs' "$T/out" || fail "not named: $(cat "$T/out")"
pass "a renamed metric or label is reported"

# Grafana's datasource is the template variable, in every panel and target
python3 - "$DIR/famfs-dashboard.json" <<'PY' || fail "dashboard datasource"
import json, sys
d = json.load(open(sys.argv[1]))
assert any(v["name"] == "DS_PROMETHEUS" and v["type"] == "datasource"
           for v in d["templating"]["list"]), "no DS_PROMETHEUS variable"
for p in d["panels"]:
    if p["type"] == "row":
        continue
    for o in [p] + p["targets"]:
        assert o["datasource"]["uid"] == "${DS_PROMETHEUS}", p["title"]
PY
pass "every panel queries \${DS_PROMETHEUS}"

if [ -z "$UNSAMPLED" ]; then
	api DELETE /v1/mounts/c; expect 204
fi
