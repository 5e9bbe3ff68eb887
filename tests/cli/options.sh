#!/bin/sh
# famfs-cli option values out of range or not numbers are refused, naming
# the option, before anything is opened or changed (issue 13).
# Usage: options.sh FAMFS_CLI
set -u
CLI=$1
. "$(dirname "$0")/lib.sh"
cli_workdir cli-opt
expect() {  # expect RC MESSAGE description cmd...
	want=$1; msg=$2; what=$3; shift 3
	"$@" > "$W/out" 2> "$W/err"; rc=$?
	if [ "$rc" != "$want" ]; then
		bad "$what: rc $rc, want $want: $(cat "$W/err")"
	elif ! grep -q -- "$msg" "$W/err"; then
		bad "$what: message lacks '$msg': $(cat "$W/err")"
	else
		ok "$what (rc $rc)"
	fi
}

$CLI mkemul --size 64MiB "$W/d0" "$W/d1" >/dev/null || { echo "FAIL mkemul"; exit 1; }
$CLI mkfs --log-size 4MiB "$W/d0" "$W/d1" >/dev/null || { echo "FAIL mkfs"; exit 1; }
cp "$W/d0" "$W/d0.before"
DEVS="-d $W/d0 -d $W/d1"

expect 2 "abc" "clients --evict abc" $CLI clients $DEVS --evict abc
expect 2 "--evict '" "clients --evict 1x" $CLI clients $DEVS --evict 1x
expect 2 "--evict '" "clients --evict -1" $CLI clients $DEVS --evict -1
expect 2 "--evict '" "clients --evict 99999999999" $CLI clients $DEVS --evict 99999999999
expect 2 "--strips '" "create --strips x" $CLI create $DEVS --size 4MiB --strips x /a
expect 2 "--strips '" "create --strips 65" $CLI create $DEVS --size 4MiB --strips 65 /a
expect 2 "--uid '" "create --uid -5" $CLI create $DEVS --size 4MiB --uid -5 /a
expect 2 "--gid '" "create --gid 4294967296" $CLI create $DEVS --size 4MiB --gid 4294967296 /a
expect 1 "chunk" "create --chunk 8388608TiB" $CLI create $DEVS --size 4MiB --chunk 8388608TiB /a
expect 1 "chunk" "create --chunk 2TiB" $CLI create $DEVS --size 4MiB --chunk 2TiB /a
expect 1 "size" "create --size 1048576TiB" $CLI create $DEVS --size 1048576TiB /a
expect 2 "--uid '" "mkdir --uid z" $CLI mkdir $DEVS --uid z /dir
expect 2 "--slots '" "mkfs --slots many" $CLI mkfs --slots many -f "$W/d0"
expect 2 "--threads '" "ingest --threads 0x" $CLI ingest -F fs0 --threads 0x "$W" /dst
cmp -s "$W/d0" "$W/d0.before" && ok "device unchanged" || bad "a refused command changed the device"
$CLI ls $DEVS / > "$W/ls" 2>&1 || bad "ls after the refusals"
grep -q . "$W/ls" && bad "a refused create left a file: $(cat "$W/ls")"
[ $checks -gt 0 ] || bad "no checks ran"
cli_tally
