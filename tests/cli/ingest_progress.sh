#!/bin/bash
# Ingest progress tells the truth on a pipe (issue 15): the "job started"
# line comes first; no percentage before the total is known ("planning…"
# instead, never "100% 0 B of 0 B"); plain lines, no \r; a last line with
# the average rate: the bytes over the job's wall time as famfsd stamps it
# (started/finished), never 0 B/s. Offline ingest: the same last line over
# the measured time.
set -u
. "$(dirname "$0")/../apply/lib.sh"
[ -x "${FAMFSD:-}" ] || { echo "no famfsd: skipped"; exit 77; }
cli=$FAMFS_CLI
start_host n1
cat >"$T/c.yaml" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: p}
hosts:
  - {name: n1, endpoint: $T/n1/sock, role: master}
devices:
  - {name: e0, emul: {path: $T/e0, size: 128MiB}}
  - {name: e1, emul: {path: $T/e1, size: 128MiB}}
sets:
  - {name: set0, devices: [e0, e1], chunk: 2MiB, strips: 2}
filesystems:
  - {name: fs0, set: set0, master: n1, logSize: 8MiB}
EOT
run_cli 0 apply "$T/c.yaml"
# many small files (planning takes a moment) and a few large ones
mkdir -p "$T/src/small" "$T/src/big"
for i in $(seq 1 400); do echo "file $i" >"$T/src/small/f$i"; done
for i in 1 2 3; do head -c 12000000 /dev/urandom >"$T/src/big/b$i"; done

# check_progress FILE: the progress lines of FILE are honest
check_progress() {
	python3 - "$1" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert not any("\r" in l for l in lines), "a \\r on a pipe"
seen_pct = False
for l in lines:
    if "planning" in l:
        assert not seen_pct, "planning after a percentage: " + l
    m = re.match(r"ingest: +(\d+)% (.+?) of (.+?), (\d+) of (\d+) files", l)
    if m:
        seen_pct = True
        assert m.group(3) != "0 B" and m.group(5) != "0", "a percentage of nothing: " + l
        assert not (m.group(1) == "100" and m.group(4) != m.group(5)), "100% before the end: " + l
PY
}
# human(bytes) as progress.c prints it
human() { python3 -c '
import sys
b, u, i = float(sys.argv[1]), ["B", "KiB", "MiB", "GiB", "TiB", "PiB"], 0
while b >= 1024 and i < 5:
    b /= 1024; i += 1
print(("%.1f %s" if i else "%.0f %s") % (b, u[i]))' "$1"; }

"$cli" ingest -H "$T/n1/sock" -F fs0 --wait "$T/src" /ds 2>&1 | cat >"$T/out"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "ingest --wait: $(cat "$T/out")"
head -1 "$T/out" | grep -q "^ingest job [0-9]* started on " || fail "the job line is not first on a pipe: $(cat "$T/out")"
id=$(head -1 "$T/out" | awk '{ print $3 }')
check_progress "$T/out" || fail "progress: $(cat "$T/out")"
tail -1 "$T/out" | grep -q "^job $id succeeded" || fail "last line: $(cat "$T/out")"
final=$(grep "^ingest: succeeded: " "$T/out") || fail "no final line: $(cat "$T/out")"
api n1 GET "/v1/jobs/$id"
read -r bytes secs < <(python3 -c '
import json, sys, calendar, time
j = json.loads(sys.argv[1])
t = lambda s: calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))
print(j["progress"]["bytes_done"], t(j["finished"]) - t(j["started"]))' "$BODY")
[ "$bytes" -gt 36000000 ] || fail "bytes_done $bytes"
if [ "$secs" -eq 0 ]; then
	want="in under 1 s, over $(human "$bytes")/s average"
else
	want="in $secs s, $(human $((bytes / secs)))/s average"
fi
grep -qF -- "403 of 403 files, $(human "$bytes") $want" <<<"$final" ||
	fail "final line '$final', want '... $want' (famfsd: $bytes bytes in $secs s)"
grep -q " 0 B/s" <<<"$final" && fail "0 B/s: $final"
pass "ingest --wait on a pipe: job line first, no percentage before the total, final rate from famfsd's times: $final"

# offline: the measured wall time
"$cli" mkemul --size 128MiB "$T/o0" "$T/o1" >/dev/null && "$cli" mkfs "$T/o0" "$T/o1" >/dev/null ||
	fail "offline devices"
"$cli" ingest -d "$T/o0" -d "$T/o1" "$T/src" /off 2>&1 | cat >"$T/out"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "offline ingest: $(cat "$T/out")"
check_progress "$T/out" || fail "offline progress: $(cat "$T/out")"
final=$(grep "^ingest: done: " "$T/out") || fail "offline: no final line: $(cat "$T/out")"
python3 - "$final" <<'PY' || fail "offline final line: $final"
import re, sys
m = re.search(r"403 of 403 files, ([\d.]+) (\w+) in ([\d.]+) s, ([\d.]+) (\w+)/s average", sys.argv[1])
u = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
done, secs, rate = float(m[1]) * u[m[2]], float(m[3]), float(m[4]) * u[m[5]]
assert rate > 0 and done > 35e6, sys.argv[1]
# the rate is the bytes over the time shown (to its rounding)
if secs >= 0.1:
    assert abs(rate * secs - done) / done < 0.1, (rate * secs, done)
PY
pass "offline ingest: final line with the average rate: $final"
