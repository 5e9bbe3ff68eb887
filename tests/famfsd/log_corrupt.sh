#!/bin/bash
# famfsd_log_corrupt: a byte flipped in the last committed entry of a
# filesystem famfsd serves (docs/api.md "A corrupt log"): GET
# /v1/filesystems/{name} says state corrupt with the reason and the lost
# seqs, /healthz is 503 degraded, /v1/host names the problem, the metric
# famfs_fs_log_corrupt is 1, the files before it are still served, and the
# error is logged once naming the seq. famfsd restarts after the flip: a
# host that replayed the entry before it was damaged keeps it in memory.
source "$(dirname "$0")/lib.sh"
start_famfsd
make_devices 1
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0"]}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"4MiB"}'; expect 201
api POST /v1/files '{"filesystem":"fs0","path":"/a","size":"4096"}'; expect 201
api POST /v1/files '{"filesystem":"fs0","path":"/b","size":"4096"}'; expect 201
api GET /healthz; expect 200
stop_famfsd

# flip a byte in the middle of the last entry of the log on emul0
seq=$(python3 - "$T/dev0" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b")
base, off, last = 2 << 20, 4096, None
while True:
    f.seek(base + off)
    magic, crc, seq, tag, ln = struct.unpack("<IIQQI", f.read(28))
    if magic != 0x31454c46 or ln < 40:
        break
    last = (off, ln, seq)
    off += ln
off, ln, seq = last
f.seek(base + off + ln // 2)
b = f.read(1)[0]
f.seek(base + off + ln // 2)
f.write(bytes([b ^ 0x04]))
print(seq)
PY
) || fail "flipping the last entry"
start_famfsd

api GET /v1/filesystems/fs0; expect 200
[ "$(jq_get "$BODY" .state)" = corrupt ] || fail "state is not corrupt: $BODY"
jq_get "$BODY" .state_reason | grep -q "committed seq $seq..$seq lost" || fail "reason: $BODY"
[ "$(jq_get "$BODY" .log.tail)" = corrupt ] || fail "log.tail: $BODY"
[ "$(jq_get "$BODY" .log.lost_first_seq)" = "$seq" ] || fail "lost_first_seq: $BODY"
[ "$(jq_get "$BODY" .space.files)" = 1 ] || fail "the file before it is not served: $BODY"
pass "GET /v1/filesystems/fs0: state corrupt, seq $seq lost, /a still served"

api GET /healthz; expect 503
[ "$(jq_get "$BODY" .status)" = degraded ] || fail "healthz: $BODY"
api GET /v1/host; expect 200
jq_get "$BODY" .health.problems | grep -q "fs0: metadata log corrupt" || fail "host health: $BODY"
pass "/healthz 503 degraded, /v1/host names the problem"

curl -s --unix-socket "$SOCK" -o "$T/metrics" http://famfsd/metrics
grep -q '^famfs_fs_log_corrupt{fs="fs0"} 1$' "$T/metrics" || fail "metric: $(grep corrupt "$T/metrics")"
grep -q '^famfs_fs_log_lost_entries{fs="fs0"} 1$' "$T/metrics" || fail "lost entries metric"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/metrics" || fail "promtool check metrics"
fi
pass "famfs_fs_log_corrupt 1"

n=$(grep -c "metadata log corrupt.*seq $seq" "$LOG")
[ "$n" = 1 ] || fail "logged $n times, want once: $(grep -i corrupt "$LOG" | head -3)"
pass "the error is logged once, naming seq $seq"
