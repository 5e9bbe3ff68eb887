#!/bin/sh
# fuse_rename: rename(2) on the master mount is one RENAME log entry
# (format 1.2), not a copy: a file keeps its inode and bytes, a directory
# moves with what it holds, a file replaces a file (RENAME_NOREPLACE
# refuses, RENAME_EXCHANGE swaps two files by one EXCHANGE entry,
# RENAME_WHITEOUT is refused clearly), a file still being
# written moves, and a client mount follows every one of them; a file a
# client holds open and mapped keeps its bytes when the master renames it
# or replaces it; a fresh client and fsck agree.
# usage: rename.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 128MiB
mount_master_and_client

# client_sees PATH SEED SIZE: the client shows PATH with those bytes (polled)
client_sees() {
	"$UTIL" waitfor "$C/$1" exists 30 || die "$1 never reached the client"
	"$UTIL" verify "$2" "$3" "$C/$1" || die "$1 differs on the client"
}

mkdir -p "$M/a/deep" "$M/b"
"$UTIL" write 1 300000 "$M/a/f1" seq || die "write f1"
"$UTIL" write 2 3145728 "$M/a/deep/big" seq || die "write big"
"$UTIL" write 3 5000 "$M/b/victim" seq || die "write victim"
client_sees a/deep/big 2 3145728
client_sees b/victim 3 5000
client_sees a/f1 1 300000
# a file made through the master keeps its provisional inode number there
# (docs/fuse.md); the client numbers it 1 + the seq of its entry
ino=$(stat -c %i "$M/a/f1")
cino=$(stat -c %i "$C/a/f1")
free0=$(stat -f -c %a "$M")

mv "$M/a/f1" "$M/b/renamed-to-a-longer-name" || die "mv f1"
[ "$(stat -c %i "$M/b/renamed-to-a-longer-name")" = "$ino" ] || die "inode changed"
[ "$(stat -f -c %a "$M")" = "$free0" ] || die "a rename took space (a copy?)"
client_sees b/renamed-to-a-longer-name 1 300000
"$UTIL" waitfor "$C/a/f1" gone 30 || die "the old name stayed on the client"
[ "$(stat -c %i "$C/b/renamed-to-a-longer-name")" = "$cino" ] || die "client inode"
ok "a file moves between directories: same inode, no space, client follows"

mv "$M/a" "$M/b/a-moved" || die "mv dir"
client_sees b/a-moved/deep/big 2 3145728
"$UTIL" waitfor "$C/a" gone 30 || die "the old directory stayed on the client"
"$UTIL" verify 2 3145728 "$M/b/a-moved/deep/big" || die "big on the master"
if mv "$M/b" "$M/b/a-moved/into" 2>"$T/err"; then die "moved a directory into itself"; fi
grep -q "subdirectory of itself\|Invalid argument" "$T/err" || die "into itself: $(cat "$T/err")"
ok "a directory moves with its contents; not into itself (EINVAL)"

# rename over an existing file while a client holds it open and mapped
"$UTIL" hold 3 5000 "$C/b/victim" "$T/ready" "$T/go" &
HPID=$!
PIDS="$PIDS $HPID"
"$UTIL" waitfor "$T/ready" exists 30 || die "holder did not start"
mv -f "$M/b/renamed-to-a-longer-name" "$M/b/victim" || die "mv over victim"
[ "$(stat -c %i "$M/b/victim")" = "$ino" ] || die "victim not replaced on the master"
"$UTIL" verify 1 300000 "$M/b/victim" || die "replaced file's bytes on the master"
n=0
until [ "$(stat -c %i "$C/b/victim" 2>/dev/null)" = "$cino" ]; do
	n=$((n + 1))
	[ $n -lt 600 ] || die "the client never saw the replacement"
	sleep 0.05
done
"$UTIL" verify 1 300000 "$C/b/victim" || die "replacement's bytes on the client"
touch "$T/go"
wait "$HPID" || die "the replaced file's bytes changed under the client's mapping"
ok "rename over an existing file; a client holding the old one reads its old bytes"

# rename of a file a client holds open and mapped: the mapping stays good
"$UTIL" hold 1 300000 "$C/b/victim" "$T/ready2" "$T/go2" &
HPID=$!
PIDS="$PIDS $HPID"
"$UTIL" waitfor "$T/ready2" exists 30 || die "holder 2 did not start"
mv "$M/b/victim" "$M/moved-while-open" || die "mv open file"
client_sees moved-while-open 1 300000
touch "$T/go2"
wait "$HPID" || die "the renamed file's bytes changed under the client's mapping"
ok "rename of a file a client has open and mapped"

# the master's own open descriptor survives a rename as well
exec 7<"$M/moved-while-open"
mv "$M/moved-while-open" "$M/b/back" || die "mv with the master holding it"
[ "$(head -c 300000 <&7 | cksum)" = "$(cksum <"$M/b/back")" ] ||
	die "read through the master's descriptor after the rename"
exec 7<&-
ok "the master reads through a descriptor opened before the rename"

# a file still being written (not yet committed) moves over a committed one
"$UTIL" writeopen 9 70000 "$M/b/tmp.partial" "$T/wready" &
WPID=$!
PIDS="$PIDS $WPID"
"$UTIL" waitfor "$T/wready" exists 30 || die "writer did not start"
mv -f "$M/b/tmp.partial" "$M/b/back" || die "mv of the open pending file"
kill "$WPID"
wait "$WPID" 2>/dev/null || true
client_sees b/back 9 70000
"$UTIL" verify 9 70000 "$M/b/back" || die "pending file after its rename"
ok "a file being written moves over a committed one; committed under its new name"

# renameat2 flags: NOREPLACE is honoured, EXCHANGE swaps (one EXCHANGE
# entry, seen on the client), WHITEOUT is refused clearly
renameat2() {
	/usr/bin/python3 - "$@" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(),
                   int(sys.argv[3]))
print("ok" if r == 0 else os.strerror(ctypes.get_errno()))
EOF
}
"$UTIL" write 4 100 "$M/b/other" seq || die "write other"
[ "$(renameat2 "$M/b/other" "$M/b/back" 1)" = "File exists" ] ||
	die "RENAME_NOREPLACE replaced a file"
ino_o=$(stat -c %i "$M/b/other") ino_b=$(stat -c %i "$M/b/back")
[ "$(renameat2 "$M/b/other" "$M/b/back" 2)" = "ok" ] ||
	die "RENAME_EXCHANGE of two files failed"
[ "$(stat -c %i "$M/b/back")" = "$ino_o" ] || die "exchange: inode of back"
"$UTIL" verify 9 70000 "$M/b/other" && "$UTIL" verify 4 100 "$M/b/back" ||
	die "RENAME_EXCHANGE did not swap the bytes"
client_sees b/back 4 100
client_sees b/other 9 70000
[ "$(renameat2 "$M/b/other" "$M/b/nope" 2)" = "No such file or directory" ] ||
	die "RENAME_EXCHANGE with a missing name"
[ "$(renameat2 "$M/b/other" "$M/b/back" 2)" = "ok" ] || die "exchange back"
[ "$(stat -c %i "$M/b/back")" = "$ino_b" ] || die "exchange back: inode"
# (the VFS itself refuses WHITEOUT without CAP_MKNOD: EPERM, famfs never asked)
wo=$(renameat2 "$M/b/other" "$M/b/back" 4)
case $wo in
"Invalid argument")
	grep -q "flags 0x4 are not supported" "$T/master.log" ||
		die "the master did not say why it refused RENAME_WHITEOUT" ;;
"Operation not permitted") ;;
*) die "RENAME_WHITEOUT was not refused: $wo" ;;
esac
[ "$(renameat2 "$M/b/other" "$M/b/fresh" 1)" = "ok" ] || die "RENAME_NOREPLACE to a free name"
"$UTIL" verify 9 70000 "$M/b/back" && "$UTIL" verify 4 100 "$M/b/fresh" ||
	die "flags changed the wrong files"
client_sees b/fresh 4 100
client_sees b/back 9 70000
ok "RENAME_NOREPLACE: EEXIST or moved; RENAME_EXCHANGE: swapped on both mounts; RENAME_WHITEOUT: EINVAL, logged"

# the client refuses (read-only), a fresh client replays the same tree
if mv "$C/b/fresh" "$C/b/x" 2>/dev/null; then die "a client renamed"; fi
# inode numbers: the fresh client's are the first client's (the master's
# are its own for the files made through it)
listing() { (cd "$1" && find . -printf "%p $2 %s %M\n" | sort); }
listing "$C" %i >"$T/lc1"
umount_fs "$C" "$CPID"
mount_fs client2 "$T/c2" --client
listing "$M" - >"$T/lm"
listing "$T/c2" - >"$T/lc"
diff "$T/lm" "$T/lc" >"$T/diff" || die "fresh client differs: $(cat "$T/diff")"
listing "$T/c2" %i >"$T/lc"
diff "$T/lc1" "$T/lc" >"$T/diff" || die "fresh client's inodes differ: $(cat "$T/diff")"
umount_fs "$T/c2" "$LAST_PID"
n=$("$CLI" log $DEVS | grep -c " rename ") || die "no rename entries in the log"
[ "$n" -eq 6 ] || die "expected 6 rename entries, the log has $n"
x=$("$CLI" log $DEVS | grep -c " exchange ") || die "no exchange entries in the log"
[ "$x" -eq 2 ] || die "expected 2 exchange entries, the log has $x"
umount_fs "$M" "$MPID"
# shellcheck disable=SC2086
"$CLI" fsck $DEVS >"$T/fsck" 2>&1 || die "fsck: $(cat "$T/fsck")"
grep -q "clean" "$T/fsck" || die "fsck: $(cat "$T/fsck")"
ok "a fresh client sees the same tree; $n rename entries; fsck clean"
