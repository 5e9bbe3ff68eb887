#!/bin/bash
# cli_evict_block: evicting a client on block devices changes that one
# slot. A pmem block device is mapped through its page cache, which never
# sees what other hosts write to the memory (DAX); loop devices behave the
# same towards writes to their backing files, so they stand in here: a
# neighbouring slot "another host" updated after the page was cached must
# survive the eviction.
# Usage: evict_block.sh FAMFS_CLI HOLD_CLIENT_SLOT
set -u
CLI=$1 HOLD=$2
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null; then
	echo "SKIP: needs root and losetup"; exit 77
fi
W=$(mktemp -d /dev/shm/famfs-evict.XXXXXX)
L0= L1= A= B=
cleanup() {
	exec 9<&-
	[ -n "$A" ] && kill "$A" 2>/dev/null; [ -n "$B" ] && kill "$B" 2>/dev/null
	wait 2>/dev/null
	[ -n "$L0" ] && losetup -d "$L0"; [ -n "$L1" ] && losetup -d "$L1"
	rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
held() { # held FILE: the holder printed "held slot" (10 s deadline)
	for _ in $(seq 100); do
		grep -q "held slot" "$1" && return 0
		sleep 0.1
	done
	fail "no slot held: $(cat "$1")"
}
slot_host() { # slot_host N DEV0 DEV1: the host name slot N shows
	"$CLI" clients -d "$2" -d "$3" -o json | python3 -c '
import json, sys
for c in json.load(sys.stdin):
    if c["slot"] == int(sys.argv[1]): print(c["host"], c["state"])' "$1"
}

"$CLI" mkemul --size 64MiB "$W/d0" "$W/d1" >/dev/null || fail "mkemul"
"$CLI" mkfs --log-size 4MiB "$W/d0" "$W/d1" >/dev/null || fail "mkfs"
"$HOLD" hostA "$W/d0" "$W/d1" >"$W/a.out" 2>&1 & A=$!
held "$W/a.out"
"$HOLD" hostB "$W/d0" "$W/d1" >"$W/b.out" 2>&1 & B=$!
held "$W/b.out"
[ "$(slot_host 0 "$W/d0" "$W/d1")" = "hostA live" ] || fail "slot 0: $(slot_host 0 "$W/d0" "$W/d1")"
[ "$(slot_host 1 "$W/d0" "$W/d1")" = "hostB live" ] || fail "slot 1: $(slot_host 1 "$W/d0" "$W/d1")"
L0=$(losetup -f --show "$W/d0") && L1=$(losetup -f --show "$W/d1") || fail "losetup"
# the slot table (64 KiB in) enters the block device's page cache, kept
# while the device stays open (a last close drops it), as a master
# famfsd keeps its devices open
exec 9<"$L0"
dd if="$L0" bs=4096 skip=16 count=1 of=/dev/null status=none
# another host renames itself in slot 1 (host_name is 40 bytes into a
# 64-byte slot), in the memory itself
printf 'hostB-moved\0' | dd of="$W/d0" bs=1 seek=$((65536 + 64 + 40)) \
	conv=notrunc status=none
[ "$(slot_host 1 "$W/d0" "$W/d1")" = "hostB-moved live" ] || fail "the write to slot 1 did not land"
"$CLI" clients -d "$L0" -d "$L1" --evict 0 >"$W/evict.out" 2>&1 ||
	fail "evict 0: $(cat "$W/evict.out")"
[ "$(slot_host 0 "$W/d0" "$W/d1")" = "hostA evicted" ] || fail "slot 0 not evicted: $(slot_host 0 "$W/d0" "$W/d1")"
got=$(slot_host 1 "$W/d0" "$W/d1")
[ "$got" = "hostB-moved live" ] ||
	fail "evicting slot 0 through the block device overwrote slot 1 with a stale copy: '$got'"
echo "ok: evicting slot 0 on block devices left slot 1 as another host wrote it"
