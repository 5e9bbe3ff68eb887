#!/bin/sh
# famfs-cli offline symlink commands end to end (SYMLINK entries, format
# 1.3): ln -s, ls (type l, -> target), log, fsck, rm, and getmap / cat
# refusing a link by name; bad input changes nothing.
# Usage: symlinks.sh FAMFS_CLI
set -u
CLI=$1
. "$(dirname "$0")/lib.sh"
cli_workdir cli-symlinks
expect() {
	want=$1; what=$2; shift 2
	"$@" > "$W/out" 2> "$W/err"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$what (rc $rc)"; else bad "$what: rc $rc, want $want: $(cat "$W/err")"; fi
}
expect_msg() {
	cat "$W/out" "$W/err" | grep -q -- "$1" && ok "  output names '$1'" || bad "  output lacks '$1': $(cat "$W/out" "$W/err")"
}

expect 0 "mkemul" $CLI mkemul --size 32MiB "$W/d0"
expect 0 "mkfs" $CLI mkfs --log-size 2MiB "$W/d0"
DEVS="-d $W/d0"
expect 0 "mkdir -p the snapshot dir" $CLI mkdir $DEVS -p /m/blobs /m/snapshots/main
printf 'weights' > "$W/w"
expect 0 "create the blob" $CLI create $DEVS --from "$W/w" /m/blobs/abc
expect 0 "ln -s a relative target" $CLI ln -s $DEVS -u 7 -g 8 ../../blobs/abc /m/snapshots/main/model.bin
expect 0 "ln -s a dangling absolute target" $CLI ln -s $DEVS /nowhere/at/all /dangling

expect 0 "ls shows type l and the target" $CLI ls $DEVS /m/snapshots/main
expect_msg "^l0777     7     8           15            0 .* model.bin -> ../../blobs/abc$"
expect 0 "ls of the link itself" $CLI ls $DEVS /dangling
expect_msg "^l0777 .* dangling -> /nowhere/at/all$"
expect 0 "ls -o json gives type and target" $CLI ls $DEVS -R -o json /
python3 - "$W/out" <<'PY' && ok "  json: type symlink, target verbatim" || bad "  json symlink"
import json, sys
t = json.load(open(sys.argv[1]))
def find(n, name):
    if n["name"] == name: return n
    for c in n.get("children", []):
        r = find(c, name)
        if r: return r
l = find(t, "model.bin")
assert l["type"] == "symlink" and l["target"] == "../../blobs/abc" and l["size"] == 15, l
assert find(t, "abc")["type"] == "file" and "target" not in find(t, "abc")
PY

expect 0 "log lists the symlink entry" $CLI log "$W/d0"
expect_msg "symlink .* /m/snapshots/main/model.bin -> ../../blobs/abc"
expect 0 "log -o json" $CLI log -o json "$W/d0"
python3 - "$W/out" <<'PY' && ok "  json: path, target, uid, gid" || bad "  log json"
import json, sys
e = [x for x in json.load(open(sys.argv[1]))["entries"] if x["type"] == "symlink"]
assert len(e) == 2, e
assert e[0]["path"] == "/m/snapshots/main/model.bin" and e[0]["target"] == "../../blobs/abc"
assert e[0]["uid"] == 7 and e[0]["gid"] == 8
PY
expect 0 "fsck is clean and counts symlinks" $CLI fsck "$W/d0"
expect_msg "2 symlinks"

expect 1 "cat of a symlink says so" $CLI cat $DEVS /m/snapshots/main/model.bin
expect_msg "is a symbolic link to '../../blobs/abc'"
expect 1 "getmap of a symlink says so" $CLI getmap $DEVS /dangling
expect_msg "is a symbolic link to '/nowhere/at/all'"

cp "$W/d0" "$W/d0.before"
expect 2 "ln without -s (no hard links)" $CLI ln $DEVS a /b
expect_msg "no hard links"
expect 1 "ln -s over an existing name" $CLI ln -s $DEVS x /dangling
expect_msg "/dangling"
expect_msg "exists"
expect 1 "ln -s in a missing directory" $CLI ln -s $DEVS x /no/such
expect_msg "/no/such"
expect 1 "ln -s below a symlink" $CLI ln -s $DEVS x /dangling/x
expect 1 "ln -s with an empty target" $CLI ln -s $DEVS "" /e
expect_msg "empty"
expect 1 "ln -s with a 4096-byte target" $CLI ln -s $DEVS "$(printf '%04096d' 0)" /e
expect_msg "4095"
expect 2 "ln -s with one operand" $CLI ln -s $DEVS /x
cmp -s "$W/d0" "$W/d0.before" && ok "  refused requests left the device as it was" || bad "  a refused ln changed the device"

expect 0 "rm of a symlink" $CLI rm $DEVS /dangling
expect 1 "ls of the removed link" $CLI ls $DEVS /dangling
expect 0 "the blob is still there" $CLI cat $DEVS /m/blobs/abc
expect_msg "weights"
expect 0 "fsck after rm" $CLI fsck "$W/d0"
expect_msg "1 symlinks"
cli_tally
