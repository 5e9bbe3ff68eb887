#!/bin/bash
# apply_grow_unmounted: PATCH /v1/interleave-sets/{name} with no mount, on
# two real famfsd (m0 formats, c1 adopts). famfsd's own master handle
# (opened by the grow itself, after a restart) appends the DEVICE_ADD
# entries; an adopting host that grows before the master is refused
# (nothing is in the log yet) and later follows; a bad device 2 of 2
# changes nothing; new files are interleaved over every device; a set
# without a filesystem just gets the devices.
source "$(dirname "$0")/lib.sh"
start_host m0
start_host c1

dev() { # HOST NAME [SIZE]: create (with SIZE) or adopt an emulated device
	local size=${3:+,\"size\":\"$3\"}
	api "$1" POST /v1/devices "{\"name\":\"$2\",\"provider\":\"emul\",\"path\":\"$T/$2\"$size}"
	[ "$STATUS" = 201 ] || fail "device $2 on $1: $STATUS $BODY"
}
entries() { field m0 /v1/filesystems/f log.entries; }

for d in e0 e1 e2 e3 lab x0 x1; do dev m0 $d 32MiB; done
for d in e0 e1 e2 e3; do dev c1 $d; done
run_cli 0 mkfs --log-size 4M "$T/lab"
for h in m0 c1; do
	api $h POST /v1/interleave-sets '{"name":"s","devices":["e0","e1"]}'
	[ "$STATUS" = 201 ] || fail "set on $h: $STATUS $BODY"
done
api m0 POST /v1/filesystems '{"name":"f","set":"s","log_size":"4MiB"}'
[ "$STATUS" = 201 ] || fail "mkfs: $STATUS $BODY"
api c1 POST /v1/filesystems '{"name":"f","set":"s","adopt":true}'
[ "$STATUS" = 201 ] || fail "adopt: $STATUS $BODY"
api m0 POST /v1/files '{"filesystem":"f","path":"/a.bin","size":"4MiB"}'
[ "$STATUS" = 201 ] || fail "file a: $STATUS $BODY"
n0=$(entries); total0=$(field m0 /v1/filesystems/f space.total)
# a fresh famfsd holds no master handle yet: the grow opens one itself
kill -TERM "${PIDS[m0]}"; wait "${PIDS[m0]}" 2>/dev/null
start_host m0

api c1 PATCH /v1/interleave-sets/s '{"devices":["e0","e1","e2"]}'
[ "$STATUS" = 409 ] && grep -q "e2 is not part of filesystem 'f' yet .*grow the set on the filesystem's master host first" <<<"$BODY" \
	|| fail "client before master: $STATUS $BODY"
[ "$(field c1 /v1/interleave-sets/s devices)" = "['e0', 'e1']" ] || fail "c1's set changed"
pass "an adopting host cannot grow before the master: 409, nothing changed"

api m0 PATCH /v1/interleave-sets/s '{"devices":["e0","e1","e2","lab"]}'
[ "$STATUS" = 409 ] && grep -q "$T/lab: already holds a famfs device label" <<<"$BODY" \
	|| fail "bad device 2 of 2: $STATUS $BODY"
[ "$(entries)" = "$n0" ] || fail "a failed grow appended"
[ "$(od -An -N256 -tx1 -v "$T/e2" | tr -d ' \n' | tr -d 0)" = "" ] || fail "e2 was labeled"
[ "$(field m0 /v1/interleave-sets/s devices)" = "['e0', 'e1']" ] || fail "m0's set changed"
pass "without a mount, a bad device 2 of 2: 409 naming it, nothing appended or labeled"

api m0 PATCH /v1/interleave-sets/s '{"devices":["e0","e1","e2","e3"]}'
[ "$STATUS" = 200 ] || fail "grow: $STATUS $BODY"
[ "$(entries)" = $((n0 + 2)) ] || fail "entries $(entries), expected $((n0 + 2))"
[ "$(field m0 /v1/filesystems/f space.total)" -gt "$total0" ] || fail "space.total did not grow"
[ "$(field m0 /v1/interleave-sets/s size)" = $((4 * 33554432)) ] || fail "set size"
api m0 POST /v1/files '{"filesystem":"f","path":"/b.bin","size":"12MiB"}'
[ "$STATUS" = 201 ] || fail "file b: $STATUS $BODY"
[ "$(field m0 /v1/files/f/b.bin map.strips)" = 4 ] || fail "b.bin: $(get m0 /v1/files/f/b.bin)"
pass "famfsd's master handle grows the filesystem; new files use all 4 devices"

api c1 PATCH /v1/interleave-sets/s '{"devices":["e0","e1","e2","e3"]}'
[ "$STATUS" = 200 ] || fail "grow on c1: $STATUS $BODY"
[ "$(field c1 /v1/files/f/b.bin map.strips)" = 4 ] || fail "c1 b.bin: $(get c1 /v1/files/f/b.bin)"
[ "$(field c1 /v1/filesystems/f space.total)" = "$(field m0 /v1/filesystems/f space.total)" ] \
	|| fail "c1 sees another size"
api c1 PATCH /v1/interleave-sets/s '{"devices":["e0","e1","e3"]}'
[ "$STATUS" = 409 ] && grep -q "leaves out e2" <<<"$BODY" || fail "c1 shrink: $STATUS $BODY"
pass "after the master the adopting host grows too and reads the new files"

api m0 POST /v1/interleave-sets '{"name":"s2","devices":["x0"]}'
api m0 PATCH /v1/interleave-sets/s2 '{"devices":["x0","x1"]}'
[ "$STATUS" = 200 ] || fail "grow s2: $STATUS $BODY"
[ "$(field m0 /v1/interleave-sets/s2 devices)" = "['x0', 'x1']" ] || fail "s2 devices"
[ "$(field m0 /v1/devices/x1 set)" = s2 ] || fail "x1 not in s2"
api m0 PATCH /v1/interleave-sets/s2 '{"devices":["x0","x1","e3"]}'
[ "$STATUS" = 409 ] && grep -q "device_in_use" <<<"$BODY" || fail "a device of another set: $STATUS $BODY"
pass "a set without a filesystem grows; a device of another set is device_in_use"
