#!/bin/sh
# famfs-cli offline commands end to end, good and bad input.
# Usage: offline.sh FAMFS_CLI
set -u
CLI=$1
. "$(dirname "$0")/lib.sh"
cli_workdir cli-test
# expect RC "description" cmd...: exit code and (optional) message check
expect() {
	want=$1; what=$2; shift 2
	"$@" > "$W/out" 2> "$W/err"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$what (rc $rc)"; else bad "$what: rc $rc, want $want: $(cat "$W/err")"; fi
}
expect_msg() {
	cat "$W/out" "$W/err" | grep -q -- "$1" && ok "  message names '$1'" || bad "  message lacks '$1': $(cat "$W/err")"
}

D="$W/d0 $W/d1 $W/d2 $W/d3"
expect 0 "mkemul 4 devices" $CLI mkemul --size 64MiB $D
expect 1 "mkemul refuses an existing path" $CLI mkemul --size 64MiB $W/d0
expect_msg "$W/d0"
expect 1 "mkemul refuses a size that is not whole units" $CLI mkemul --size 3MiB $W/x
expect_msg "multiple of 2 MiB"
expect 2 "mkemul without size is a usage error" $CLI mkemul $W/x
expect 0 "mkfs" $CLI mkfs --log-size 4MiB $D
cp "$W/d1" "$W/d1.before"
expect 1 "mkfs again is refused" $CLI mkfs $W/d1
expect_msg "already holds famfs"
cmp -s "$W/d1" "$W/d1.before" && ok "  ... and the device is unchanged" || bad "  refused mkfs changed the device"
expect 2 "mkfs with a bad log size" $CLI mkfs --log-size 3x $D

DEVS="-d $W/d0 -d $W/d1 -d $W/d2 -d $W/d3"
head -c 20000000 /dev/urandom > "$W/src"
expect 0 "create interleaved from a file" $CLI create $DEVS --from "$W/src" --strips 4 /big
expect 1 "create of an existing name" $CLI create $DEVS --size 1 /big
expect_msg "already exists"
expect 1 "create with a too long name" $CLI create $DEVS --size 1 "/$(printf '%0300d' 0)"
expect_msg "255"
expect 1 "create in a missing directory" $CLI create $DEVS --size 1 /no/such
expect 1 "create larger than the filesystem" $CLI create $DEVS --size 10GiB /huge
expect_msg "no space"
expect 1 "create as another host than the master" env FAMFS_HOST_NAME=intruder $CLI create $DEVS --size 1 /x
expect_msg "master of this filesystem"
expect 1 "create with a missing device" $CLI create -d $W/d0 -d $W/d1 --size 1 /x
expect_msg "missing"
expect 2 "create with a bad mode" $CLI create $DEVS --size 1 --mode 999 /x

expect 0 "getmap -o json" $CLI getmap $DEVS -o json /big
python3 - "$W/out" "$W/src" <<'PY' && ok "getmap: 4 strips on 4 devices; bytes at computed offsets match" || bad "getmap offsets"
import json, sys
j = json.load(open(sys.argv[1])); m = j["map"]; src = open(sys.argv[2], "rb").read()
assert j["size"] == len(src) and m["type"] == "interleave"
assert len({s["device"] for s in m["strips"]}) == 4
n, c = len(m["strips"]), m["chunk"]
for o in range(0, len(src), 4096 * 7 + 1):
    k = o // c; s = m["strips"][k % n]
    with open(s["device"], "rb") as f:
        f.seek(s["offset"] + (k // n) * c + o % c); assert f.read(1) == src[o:o+1], o
PY
$CLI cat $DEVS /big | cmp -s - "$W/src" && ok "cat returns the bytes" || bad "cat"
expect 0 "mkdir -p" $CLI mkdir $DEVS -p /a/b/c
expect 1 "rm of a non-empty directory" $CLI rm $DEVS /a
expect_msg "not empty"
expect 0 "rm a file" $CLI rm $DEVS /big
expect 1 "getmap of a deleted file" $CLI getmap $DEVS /big
expect 0 "ls -R" $CLI ls $DEVS -R
expect 0 "fsck clean" $CLI fsck $D
expect 0 "fsck -o json" $CLI fsck -o json $D
python3 -c "import json,sys; j=json.load(open('$W/out')); sys.exit(0 if j['clean'] and j['errors']==0 else 1)" \
	&& ok "  json says clean" || bad "  fsck json"
expect 0 "log -o json" $CLI log -o json $D
python3 -c "import json,sys; j=json.load(open('$W/out')); t=[e['type'] for e in j['entries']]; sys.exit(0 if t==['file','mkdir','mkdir','mkdir','delete'] else 1)" \
	&& ok "  log lists file, mkdirs, delete" || bad "  log json: $(cat $W/out | head -5)"
# grow by one device
expect 0 "mkemul a fifth device" $CLI mkemul --size 64MiB $W/d4
expect 1 "adddev of a device already in the filesystem" $CLI adddev $DEVS $W/d2
expect_msg "famfs device label"
expect 0 "adddev" $CLI adddev $DEVS $W/d4
expect 0 "create over five devices" $CLI create $DEVS -d $W/d4 --size 20MiB --strips 5 /five
expect 1 "open without the added device" $CLI ls $DEVS /
expect_msg "device 4"
expect 0 "fsck with all five" $CLI fsck $D $W/d4
# corrupt the primary superblock: fsck says so (exit 4), open still works from the backup
printf '\377' | dd of="$W/d0" bs=1 seek=4200 conv=notrunc status=none
expect 4 "fsck finds a corrupt primary superblock" $CLI fsck $D $W/d4
expect_msg "primary superblock"
expect 0 "ls still works from the backup" $CLI ls $DEVS -d $W/d4
expect 8 "fsck on a device that is not there" $CLI fsck $W/nope
expect 16 "fsck usage" $CLI fsck
expect 2 "unknown command" $CLI frobnicate
cli_tally
