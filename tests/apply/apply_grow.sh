#!/bin/bash
# apply_grow: a filesystem grows online through apply. Two real famfsd (m0
# master, c1 client) with a master and a client famfs-fused mount of a
# 2-device set. A grow whose second new device is bad (already labeled)
# changes nothing: same log entries, the good device left unlabeled, the
# set as it was; shrinking and reordering through the API are 409s naming
# the devices. The file edited to 4 devices: diff names the devices, apply
# grows the running mounts (2 DEVICE_ADD entries), a file written after
# that is interleaved over the new devices (getmap) and the client reads
# it byte for byte through read() and mmap(); df grew on both mounts;
# a second apply is "No changes."; the file dropping or moving a device is
# a conflict naming it, and changes nothing.
source "$(dirname "$0")/lib.sh"
have_fused || { echo "skip: needs famfs-fused and /dev/fuse"; exit 77; }
start_host m0
start_host c1
F=$T/cluster.yaml

write_file() { # $@: the set's devices
	local list
	list=$(IFS=,; echo "$*")
	cat >"$F" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: grow}
hosts:
  - {name: m0, endpoint: $T/m0/sock, role: master}
  - {name: c1, endpoint: $T/c1/sock, role: client}
devices:
EOT
	for d in "$@"; do
		echo "  - {name: $d, emul: {path: $T/$d, size: 32MiB}}" >>"$F"
	done
	cat >>"$F" <<EOT
sets:
  - {name: pool, devices: [$list]}
filesystems:
  - {name: shared, set: pool, master: m0, logSize: 4MiB}
mounts:
  - {filesystem: shared, host: m0, path: $T/mnt/m0, role: master}
  - {filesystem: shared, host: c1, path: $T/mnt/c1, role: client}
EOT
}

entries() { field m0 /v1/filesystems/shared log.entries; }
blocks() { stat -f -c '%b' "$1"; }
set_devices() { field "$1" /v1/interleave-sets/pool devices; }

write_file shm0 shm1
run_cli 0 apply "$F"
head -c 6000000 /dev/urandom >"$T/before.bin"
cp "$T/before.bin" "$T/mnt/m0/before.bin" || fail "write on the master mount"
wait_for 15 "the client to see before.bin" test -e "$T/mnt/c1/before.bin"
cmp -s "$T/before.bin" "$T/mnt/c1/before.bin" || fail "before.bin differs on the client"
pass "2-device cluster applied, a file written on the master is read on the client"

# A failing grow changes nothing: the second new device holds a label.
api m0 POST /v1/devices "{\"name\":\"good\",\"provider\":\"emul\",\"path\":\"$T/good\",\"size\":\"16MiB\"}"
[ "$STATUS" = 201 ] || fail "device good: $STATUS $BODY"
api m0 POST /v1/devices "{\"name\":\"lab\",\"provider\":\"emul\",\"path\":\"$T/lab\",\"size\":\"16MiB\"}"
[ "$STATUS" = 201 ] || fail "device lab: $STATUS $BODY"
run_cli 0 mkfs --log-size 4M "$T/lab"
n0=$(entries)
api m0 PATCH /v1/interleave-sets/pool '{"devices":["shm0","shm1","good","lab"]}'
[ "$STATUS" = 409 ] || fail "grow by a labeled device: $STATUS $BODY"
grep -q "$T/lab: already holds a famfs device label" <<<"$BODY" || fail "message: $BODY"
[ "$(entries)" = "$n0" ] || fail "a failed grow appended: $(entries) entries, was $n0"
[ "$(od -An -N256 -tx1 -v "$T/good" | tr -d ' \n' | tr -d 0)" = "" ] || fail "device good was labeled"
[ "$(set_devices m0)" = "['shm0', 'shm1']" ] || fail "set changed: $(set_devices m0)"
[ "$(field m0 /v1/devices/good set)" = None ] || fail "good joined the set"
api m0 PATCH /v1/interleave-sets/pool '{"devices":["shm0","shm1","nosuch"]}'
[ "$STATUS" = 400 ] && grep -q "no device 'nosuch'" <<<"$BODY" || fail "unknown device: $STATUS $BODY"
[ "$(entries)" = "$n0" ] || fail "an unknown device appended"
pass "a grow whose device 2 of 2 is bad: 409 naming it; log, set and device 1 unchanged"

api m0 PATCH /v1/interleave-sets/pool '{"devices":["shm0"]}'
[ "$STATUS" = 409 ] && grep -q "cannot shrink: the request leaves out shm1" <<<"$BODY" \
	|| fail "shrink: $STATUS $BODY"
api m0 PATCH /v1/interleave-sets/pool '{"devices":["shm1","shm0","good"]}'
[ "$STATUS" = 409 ] && grep -q "device 0 is 'shm0', the request puts 'shm1' there" <<<"$BODY" \
	|| fail "reorder: $STATUS $BODY"
api c1 PATCH /v1/interleave-sets/pool '{"devices":["shm0","shm1","shm0"]}'
[ "$STATUS" = 400 ] || fail "a device twice: $STATUS $BODY"
api m0 PATCH /v1/interleave-sets/pool '{"devices":["shm0","shm1"]}'
[ "$STATUS" = 200 ] || fail "the same list: $STATUS $BODY"
[ "$(entries)" = "$n0" ] || fail "a refused PATCH appended"
for d in good lab; do api m0 DELETE "/v1/devices/$d?destroy=1"; done
pass "shrink and reorder are 409s naming the devices; the same list is a no-op"

# The file grows to 4 devices.
mb=$(blocks "$T/mnt/m0"); cb=$(blocks "$T/mnt/c1")
write_file shm0 shm1 shm2 shm3
run_cli 1 diff "$F"
grep -q "^  ~ update set pool on m0 (grow by shm2, shm3; the master adds them" <<<"$OUT" \
	|| fail "diff, master: $OUT"
grep -q "^  ~ update set pool on c1 (grow by shm2, shm3; after the master" <<<"$OUT" \
	|| fail "diff, client: $OUT"
grep -q conflict <<<"$OUT" && fail "diff: $OUT"
run_cli 0 apply "$F"
grep -q "Apply complete: 4 created, 2 updated, 0 deleted." <<<"$OUT" || fail "apply: $OUT"
[ "$(entries)" = $((n0 + 2)) ] || fail "expected 2 DEVICE_ADD entries: $(entries), was $n0"
"$FAMFS_CLI" log "$T/shm0" "$T/shm1" "$T/shm2" "$T/shm3" 2>&1 | grep -c device_add \
	| grep -qx 2 || fail "log has no 2 device_add entries"
[ "$(set_devices c1)" = "['shm0', 'shm1', 'shm2', 'shm3']" ] || fail "c1's set: $(set_devices c1)"
[ "$(field m0 /v1/mounts/shared-master pid)" != None ] || fail "master mount gone"
pass "diff names the devices; apply grows online (2 DEVICE_ADD entries)"

head -c 12582912 /dev/urandom >"$T/after.bin"
cp "$T/after.bin" "$T/mnt/m0/after.bin" || fail "write after the grow"
wait_for 15 "the client to see after.bin" test -e "$T/mnt/c1/after.bin"
run_cli 0 getmap -o json "$T/mnt/c1/after.bin"
python3 - "$OUT" "$T" <<'PY' || fail "after.bin is not on the new devices: $OUT"
import json, sys
m = json.loads(sys.argv[1])["map"]
# written through the master mount: interleaved over all four devices,
# or (a file that grew as it was written, fused/pending) extents placed
# on the emptiest devices, which are the new ones
parts = m["strips"] if m["type"] == "interleave" else m["extents"]
paths = {s["device"] for s in parts}
if m["type"] == "interleave":
    assert {s["device_index"] for s in parts} == {0, 1, 2, 3}, m
assert {sys.argv[2] + "/shm2", sys.argv[2] + "/shm3"} <= paths, paths
PY
cmp -s "$T/after.bin" "$T/mnt/c1/after.bin" || fail "after.bin differs through read()"
python3 - "$T/after.bin" "$T/mnt/c1/after.bin" <<'PY' || fail "after.bin differs through mmap()"
import mmap, sys
want = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "rb") as f, mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
    assert m[:] == want
PY
cmp -s "$T/before.bin" "$T/mnt/c1/before.bin" || fail "before.bin changed"
[ "$(blocks "$T/mnt/m0")" -gt "$mb" ] || fail "master df did not grow: $mb -> $(blocks "$T/mnt/m0")"
[ "$(blocks "$T/mnt/c1")" -gt "$cb" ] || fail "client df did not grow: $cb -> $(blocks "$T/mnt/c1")"
pass "a file written after the grow spans the new devices; the client reads it (read, mmap); df grew"

before=$(snapshot m0 c1)
run_cli 0 apply "$F"
grep -q "^No changes" <<<"$OUT" || fail "second apply: $OUT"
[ "$before" = "$(snapshot m0 c1)" ] || fail "no-op apply changed a host"
pass "second apply: No changes."

write_file shm0 shm1 shm3
run_cli 2 diff "$F"
grep -q "set pool has shm2, which the file leaves out: a set cannot shrink" <<<"$OUT" \
	|| fail "shrink: $OUT"
run_cli 1 apply "$F"
write_file shm0 shm1 shm3 shm2
run_cli 2 diff "$F"
grep -q "set pool has device 2 shm2, the file puts shm3 there, device 3 shm3, the file puts shm2 there" <<<"$OUT" \
	|| fail "reorder: $OUT"
run_cli 1 apply "$F"
[ "$before" = "$(snapshot m0 c1)" ] || fail "a refused apply changed a host"
[ "$(entries)" = $((n0 + 3)) ] || fail "log entries: $(entries)"
pass "dropping or moving a device in the file is a conflict naming it; nothing changed"
