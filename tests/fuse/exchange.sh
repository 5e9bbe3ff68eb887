#!/bin/sh
# fuse_exchange: a dataset's generation switch. The master builds
# generation 2 beside generation 1 (.staging/demo.2) and swaps the two
# with renameat2(RENAME_EXCHANGE): one EXCHANGE log entry (format 1.5).
# A reader on a CLIENT mount walks demo in a loop meanwhile (opens demo by
# path, everything below relative to that descriptor) while the master
# swaps back and forth: every walk reads exactly one generation (never a
# mix, a missing file or a torn file), and a directory the client opened
# before a switch keeps reading its tree whole. Prints the time each
# switch took to show on the client (p50, p99). Then the retired tree is
# removed (user.famfs.remove_tree: famfs_remove_tree()) while a client
# holds a file of it mapped, a fresh client lists the master's tree, and
# fsck is clean.
# usage: exchange.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"
GW="/usr/bin/python3 $(dirname "$0")/gen_walk.py"

make_fs 2 256MiB
mount_master_and_client

mkdir -p "$M/.staging"
$GW make "$M/demo" 1 || die "generation 1"
$GW make "$M/.staging/demo.2" 2 || die "generation 2"
"$UTIL" waitfor "$C/.staging/demo.2/only-in-gen2" exists 30 ||
	die "generation 2 never reached the client"
ino1=$(stat -c %i "$M/demo") ino2=$(stat -c %i "$M/.staging/demo.2")

# a first switch with nobody reading: both names swap on both mounts
$GW switch "$M/.staging/demo.2" "$M/demo" "$C/demo" 1 "$T/sw0" ||
	die "the first switch"
[ "$(stat -c %i "$M/demo")" = "$ino2" ] || die "demo is not generation 2"
[ "$(stat -c %i "$C/.staging/demo.2")" = "$ino1" ] ||
	die "the client's staging name is not generation 1"
ok "one RENAME_EXCHANGE swaps two trees on the master and the client"

$GW walk "$C/demo" "$T/stop" "$T/walks" 2>"$T/walker.log" &
WPID=$!
PIDS="$PIDS $WPID"
"$UTIL" waitfor "$T/walker.log" exists 10 || die "the walker did not start"
sleep 1
$GW switch "$M/.staging/demo.2" "$M/demo" "$C/demo" 20 "$T/sw" 2>"$T/switch.log" ||
	die "switching: $(cat "$T/switch.log")"
sleep 1
touch "$T/stop"
wait "$WPID" || die "a walk on the client read no single generation: $(cat "$T/walker.log")"
PIDS=$(echo "$PIDS" | sed "s/ $WPID\b//")
walks=$(cat "$T/walks")
echo "walks: $walks; switch seen on the client: $(cat "$T/sw")"
/usr/bin/python3 - "$T/walks" <<'PY' || die "the walker did not see both generations: $walks"
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(0 if c["gen1"] and c["gen2"] and c["changes"] else 1)
PY
ok "every client walk during 20 switches read one generation whole"

# the retired generation goes in BATCHes of deletes (user.famfs.remove_tree)
# while a client holds a file of it open and mapped: its bytes stay until
# the client lets go, then the space is back
"$CLI" log $DEVS | grep -c " exchange " >"$T/nx" || true
[ "$(cat "$T/nx")" -eq 21 ] || die "expected 21 exchange entries, the log has $(cat "$T/nx")"
"$UTIL" write 7 3145728 "$M/.staging/demo.2/held" seq || die "write held"
"$UTIL" waitfor "$C/.staging/demo.2/held" exists 30 || die "held never reached the client"
"$UTIL" hold 7 3145728 "$C/.staging/demo.2/held" "$T/ready" "$T/go" &
HPID=$!
PIDS="$PIDS $HPID"
"$UTIL" waitfor "$T/ready" exists 30 || die "holder did not start"
free0=$(stat -f -c %f "$M")
/usr/bin/python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.famfs.remove_tree", b"1")' \
	"$M/.staging/demo.2" || die "remove_tree of the retired generation"
"$UTIL" waitfor "$M/.staging/demo.2" gone 30 || die "the master kept showing the retired tree"
"$UTIL" waitfor "$C/.staging/demo.2" gone 30 || die "the client kept the retired tree"
# poke: an rmdir makes the master reclaim what the clients are past. The
# held file was the newest, so its delete is the batch's first: every
# later delete waits behind it (the client publishes the seq before it)
poke() { mkdir "$M/.poke" && rmdir "$M/.poke"; }
poke
sleep 0.5
poke
[ "$(stat -f -c %f "$M")" = "$free0" ] || die "space was reused while a client holds a file"
touch "$T/go"
wait "$HPID" || die "the held file's bytes changed before it was released"
PIDS=$(echo "$PIDS" | sed "s/ $HPID\b//")
n=0
until poke && [ "$(stat -f -c %f "$M")" -gt "$free0" ]; do
	n=$((n + 1))
	[ $n -lt 600 ] || die "the held file's space never came back"
	sleep 0.05
done
"$CLI" log $DEVS | grep -q " batch " || die "no batch of deletes in the log"
ok "the retired tree goes in batches; a held file keeps its bytes, then its space comes back"

# The master shows provisional inode numbers for files it made
# (docs/fuse.md); clients show the log's: the master is compared without
# them, the following client with the fresh one with them.
listing() { (cd "$1" && find . -printf '%p %i %s %M\n' | sort); }
shape() { (cd "$1" && find . -printf '%p %s %M\n' | sort); }
shape "$M" >"$T/sm"
n=0
until shape "$C" >"$T/sc" && cmp -s "$T/sm" "$T/sc"; do
	n=$((n + 1))
	[ $n -lt 200 ] || die "the client never caught up: $(diff "$T/sm" "$T/sc")"
	sleep 0.05
done
listing "$C" >"$T/lf"
umount_fs "$C" "$CPID"
mount_fs client2 "$T/c2" --client
shape "$T/c2" >"$T/sc2"
diff "$T/sm" "$T/sc2" >"$T/diff" || die "fresh client differs from the master: $(cat "$T/diff")"
listing "$T/c2" >"$T/lc"
diff "$T/lf" "$T/lc" >"$T/diff" ||
	die "fresh client's inode numbers differ from the follower's: $(cat "$T/diff")"
umount_fs "$T/c2" "$LAST_PID"
umount_fs "$M" "$MPID"
# shellcheck disable=SC2086
"$CLI" fsck $DEVS >"$T/fsck" 2>&1 || die "fsck: $(cat "$T/fsck")"
grep -q "clean" "$T/fsck" || die "fsck: $(cat "$T/fsck")"
ok "a fresh client sees the same tree; fsck clean"
