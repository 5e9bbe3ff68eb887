#!/bin/sh
# fuse_master_client_roundtrip: one master and one client mount of the same
# four emulated devices (two processes = two hosts). The master writes
# files of random data (small, large, interleaved, nested directories, a
# plain cp); the client sees them without any command and reads every byte
# back through read() and mmap(); deletes disappear on the client; the
# client refuses writes; a file the client holds open keeps its bytes
# after the master deletes it and allocates again; df agrees with du.
# usage: two_mounts.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 4 128MiB
mount_master_and_client

# name seed size how
FILES="empty 1 0 seq
tiny 2 1 seq
small 3 3000 seq
page 4 4096 seq
odd 5 70001 seq
packed 6 1000000 seq
big 7 37748736 seq
il 8 67108864 trunc
fal 9 10485760 falloc
mm 10 5242880 mmap
a/b/c/deep 11 123457 seq
a/b/sib 12 2097153 seq"

mkdir -p "$M/a/b/c" || die "mkdir on the master"
# not a pipe: die in a piped loop would end only the subshell
while read -r name seed size how; do
	"$UTIL" write "$seed" "$size" "$M/$name" "$how" || die "write $name ($how)"
done <<EOF
$FILES
EOF
ok "master wrote $(echo "$FILES" | wc -l) files"
# a plain cp of a file from outside, size unknown in advance
"$UTIL" write 13 9437185 "$T/outside" seq
cp "$T/outside" "$M/copied" || die "cp into the master mount"
cmp "$T/outside" "$M/copied" || die "cp'd file differs on the master"

echo "$FILES
copied 13 9437185 seq" >"$T/files"
while read -r name seed size how; do
	"$UTIL" verify "$seed" "$size" "$M/$name" || die "master read-back of $name"
	"$UTIL" waitfor "$C/$name" exists 30 || die "$name never reached the client"
	"$UTIL" verify "$seed" "$size" "$C/$name" || die "client read-back of $name"
done <"$T/files"
ok "client read every byte back through read() and mmap()"

map=$("$UTIL" xattr "$C/il" user.famfs.map) || die "user.famfs.map on the client"
echo "$map" | grep -q '"type":"interleave"' || die "il is not interleaved: $map"
echo "$map" | grep -q '"nstrips":4' || die "il is not over 4 devices: $map"
ok "64 MiB file sized first is interleaved over 4 devices"
"$UTIL" xattr "$C" user.famfs.devices | grep -q "$T/dev3" ||
	die "user.famfs.devices does not name the devices"
# what famfs-cli getmap/fsck use on a mounted path (fused/famfs_mountq.h)
"$UTIL" mountq "$C/a/b/sib" >"$T/mq" || die "famfs_mountq_resolve"
[ "$(head -1 "$T/mq")" = "/a/b/sib" ] || die "mountq path: $(head -1 "$T/mq")"
[ "$(sed -n 2p "$T/mq")" = "$T/dev0" ] && [ "$(sed -n 5p "$T/mq")" = "$T/dev3" ] ||
	die "mountq devices: $(cat "$T/mq")"
"$CLI" getmap -o json -d "$T/dev0" -d "$T/dev1" -d "$T/dev2" -d "$T/dev3" /il |
	tr -d ' \n' >"$T/offline"
"$UTIL" xattr "$M/il" user.famfs.map >"$T/online"
grep -o '"strips":\[[^]]*\]' "$T/offline" >"$T/s1" || die "offline getmap: $(cat "$T/offline")"
grep -o '"strips":\[[^]]*\]' "$T/online" >"$T/s2"
cmp -s "$T/s1" "$T/s2" || die "user.famfs.map differs from getmap: $(cat "$T/s1") vs $(cat "$T/s2")"
if "$UTIL" mountq "$T" 2>/dev/null; then die "mountq accepted a path outside famfs"; fi
ok "mounted paths resolve to the devices and fs path; user.famfs.map = getmap -o json"

ls -l "$C/a/b" >/dev/null || die "ls on the client"
[ "$(stat -c %a "$C/a/b/sib")" = "$(stat -c %a "$M/a/b/sib")" ] ||
	die "mode differs between master and client"
[ "$(stat -c %Y "$C/big")" = "$(stat -c %Y "$M/big")" ] ||
	die "mtime differs between master and client"

# writes on a client are refused
if sh -c "echo x >'$C/new'" 2>"$T/err"; then die "client accepted a create"; fi
grep -q "Read-only" "$T/err" || die "client create: $(cat "$T/err")"
if mkdir "$C/d" 2>/dev/null; then die "client accepted mkdir"; fi
if rm "$C/tiny" 2>/dev/null; then die "client accepted rm"; fi
[ -f "$C/tiny" ] || die "client rm removed something"
ok "client refuses writes (EROFS) and nothing changed"

# committed files do not grow: a clear error, the data stays
if printf more | dd of="$M/small" oflag=append conv=notrunc status=none 2>"$T/err"; then
	die "append to a committed file"
fi
grep -qi "too large" "$T/err" || die "append error: $(cat "$T/err")"
"$UTIL" verify 3 3000 "$C/small" || die "small changed after a refused append"
ok "growing a committed file fails with EFBIG, data unchanged"

# deletes, files and directories
rm "$M/a/b/c/deep" && rmdir "$M/a/b/c" || die "delete on the master"
"$UTIL" waitfor "$C/a/b/c/deep" gone 30 || die "deleted file still on the client"
"$UTIL" waitfor "$C/a/b/c" gone 30 || die "deleted directory still on the client"
mkdir "$M/later" || die "mkdir"
"$UTIL" waitfor "$C/later" exists 30 || die "new directory never reached the client"
ok "deletes and new directories reach the client"

# a client holding a file open keeps its bytes: the master must not reuse them
"$UTIL" write 14 4194304 "$M/held" seq || die "write held"
"$UTIL" waitfor "$C/held" exists 30 || die "held never reached the client"
"$UTIL" hold 14 4194304 "$C/held" "$T/ready2" "$T/go" &
HPID=$!
"$UTIL" waitfor "$T/ready2" exists 30 || die "holder did not start"
rm "$M/held" || die "rm held"
"$UTIL" waitfor "$C/held" gone 30 || die "held file not deleted on the client"
i=0
while [ $i -lt 6 ]; do  # fill the space the delete would have freed
	"$UTIL" write $((100 + i)) 4194304 "$M/reuse$i" seq || die "reuse$i"
	i=$((i + 1))
done
touch "$T/go"
wait "$HPID" || die "the held file's bytes changed under the client"
ok "a file held open on the client keeps its bytes after delete + reallocation"

"$UTIL" follow "$M" "$C" 200 || die "follow: files did not all appear"

# df vs du on the master: what files hold is what is used
used=$(df -B1 --output=used "$M" | tail -1 | tr -d ' ')
held=$(du -s -B1 "$M" | cut -f1)
echo "df used $used bytes, du $held bytes"
[ "$used" -ge "$held" ] || die "df used ($used) < du ($held)"
[ $((used - held)) -le $((4 * 2097152)) ] ||
	die "df used ($used) is far above what files hold ($held)"
ok "df and du agree (within one 2 MiB unit per device)"

# fsck never writes: it runs on the mounted devices (what famfs-cli fsck
# MOUNTPOINT will do after famfs_mountq_resolve)
"$CLI" fsck -q $("$UTIL" mountq "$M" | tail -n +2) || die "fsck while mounted"
ok "fsck of the mounted filesystem's devices is clean"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
"$CLI" fsck -q $DEVS || die "fsck after unmount"
ok "both unmounted cleanly, fsck clean"
