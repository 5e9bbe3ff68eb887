#!/bin/sh
# fuse_symlinks: symbolic links on FUSE mounts (SYMLINK entries, format
# 1.3). On the master: symlink, readlink, reads through a link, lchown and
# utimensat(AT_SYMLINK_NOFOLLOW), rename (also over a file), unlink, and
# cp -a of a tree with links. On a client: readlink, path walks through
# links (an HF-hub snapshots/main/x -> ../../blobs/<sha> layout), a new
# link shown within the follow latency, EROFS for every change; a fresh
# client and fsck agree.
# usage: symlinks.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 1 128MiB
mount_master_and_client

# wait_link DIR/PATH: poll (lstat) until the link is there; prints the ms
wait_link() {
	t0=$(date +%s%N)
	n=0
	until [ -L "$1" ]; do
		n=$((n + 1))
		[ $n -lt 3000 ] || die "$1 never appeared"
		sleep 0.01
	done
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}

SHA=5f2b6c8d0e4a
mkdir -p "$M/models/blobs" "$M/models/snapshots/main"
"$UTIL" write 1 3145728 "$M/models/blobs/$SHA" seq || die "write blob"
ln -s "../../blobs/$SHA" "$M/models/snapshots/main/model.safetensors" ||
	die "symlink on the master"
L=models/snapshots/main/model.safetensors
[ "$(readlink "$M/$L")" = "../../blobs/$SHA" ] || die "readlink on the master"
[ "$(stat -c '%F %s %a' "$M/$L")" = "symbolic link 24 777" ] ||
	die "lstat on the master: $(stat -c '%F %s %a' "$M/$L")"
"$UTIL" verify 1 3145728 "$M/$L" || die "read through the link on the master"
ok "master: symlink, readlink, lstat (size = target bytes), read through it"

ms=$(wait_link "$C/$L")
[ "$(readlink "$C/$L")" = "../../blobs/$SHA" ] || die "readlink on the client"
"$UTIL" verify 1 3145728 "$C/$L" || die "read through the link on the client"
[ "$(stat -L -c %i "$C/$L")" = "$(stat -c %i "$C/models/blobs/$SHA")" ] ||
	die "the link does not lead to the blob on the client"
ok "client: the link appeared after ${ms} ms; readlink and reads through it"

# a link to a directory, walked through; a dangling one, kept verbatim
ln -s models/snapshots/main "$M/latest"
ln -s "/no/such/place/../x" "$M/dangling"
wait_link "$C/dangling" >/dev/null
"$UTIL" verify 1 3145728 "$C/latest/model.safetensors" ||
	die "path walk through two links on the client"
[ "$(readlink "$C/dangling")" = "/no/such/place/../x" ] || die "dangling target"
[ ! -e "$C/dangling" ] || die "a dangling link resolves"
ok "client: walks through a directory link; a dangling target is verbatim"

# lchown (root only) and utimensat(AT_SYMLINK_NOFOLLOW) change the link
touch -h -d @1000000000 "$M/dangling" || die "touch -h on the master"
[ "$(stat -c %Y "$M/dangling")" = 1000000000 ] || die "touch -h on the master"
if [ "$(id -u)" = 0 ]; then
	chown -h 1234:5678 "$M/dangling" || die "chown -h"
	want="1234:5678 1000000000"
else
	want="$(id -u):$(id -g) 1000000000"
fi
n=0
until [ "$(stat -c '%u:%g %Y' "$C/dangling")" = "$want" ]; do
	n=$((n + 1))
	[ $n -lt 600 ] || die "client: $(stat -c '%u:%g %Y' "$C/dangling"), want $want"
	sleep 0.05
done
[ "$(stat -c %Y "$M/models/blobs/$SHA")" != 1000000000 ] || die "touch -h followed"
if chmod -h 600 "$M/dangling" 2>/dev/null &&
   [ "$(stat -c %a "$M/dangling")" != 777 ]; then
	die "a symlink's mode changed"
fi
ok "master: lchown and touch -h change the link, not its target; client follows"

# rename, rename over a file, unlink
"$UTIL" write 2 5000 "$M/models/victim" seq || die "write victim"
ino=$(stat -c %i "$M/dangling")
mv "$M/dangling" "$M/models/moved" || die "mv link"
mv -f "$M/models/moved" "$M/models/victim" || die "mv link over a file"
[ "$(stat -c %i "$M/models/victim")" = "$ino" ] || die "inode after mv"
[ "$(readlink "$M/models/victim")" = "/no/such/place/../x" ] || die "target after mv"
n=0
until [ -L "$C/models/victim" ] && [ ! -e "$C/dangling" ] && [ ! -L "$C/dangling" ]; do
	n=$((n + 1))
	[ $n -lt 600 ] || die "the client never saw the renames"
	sleep 0.05
done
rm "$M/latest" || die "rm link"
"$UTIL" verify 1 3145728 "$M/$L" || die "rm of a link touched its target"
n=0
while [ -L "$C/latest" ]; do
	n=$((n + 1))
	[ $n -lt 600 ] || die "the client kept a removed link"
	sleep 0.05
done
ok "master: rename (over a file too) and unlink of links; client follows"

# the client changes nothing
for op in "ln -s x $C/new" "rm $C/$L" "mv $C/models/victim $C/v2" \
	  "touch -h $C/models/victim"; do
	# shellcheck disable=SC2086
	if $op 2>"$T/err"; then die "client: '$op' succeeded"; fi
	grep -q "Read-only file system" "$T/err" || die "client: '$op': $(cat "$T/err")"
done
ok "client: symlink, unlink, rename and touch -h of links are EROFS"

# cp -a of a tree with links, compared with the source by lstat + readlink
S=$T/src
mkdir -p "$S/d/e"
printf 'hello' >"$S/d/f"
ln -s f "$S/d/rel"
ln -s ../d/f "$S/d/e/up"
ln -s /etc/hostname "$S/abs"
ln -s "target with spaces/ü" "$S/odd name ü"
cp -a "$S" "$M/copy" || die "cp -a into the master"
tree() { (cd "$1" && find . -printf '%p %y %m %l\n' | sort); }
tree "$S" >"$T/ts"
tree "$M/copy" >"$T/tm"
diff "$T/ts" "$T/tm" >"$T/diff" || die "cp -a differs: $(cat "$T/diff")"
wait_link "$C/copy/odd name ü" >/dev/null
tree "$C/copy" >"$T/tc"
diff "$T/ts" "$T/tc" >"$T/diff" || die "client copy differs: $(cat "$T/diff")"
ok "cp -a of a tree with links: master and client match the source"

# a fresh client replays the same links; fsck is clean
umount_fs "$C" "$CPID"
mount_fs client2 "$T/c2" --client
tree "$M" >"$T/lm"
tree "$T/c2" >"$T/lc"
diff "$T/lm" "$T/lc" >"$T/diff" || die "fresh client differs: $(cat "$T/diff")"
umount_fs "$T/c2" "$LAST_PID"
n=$("$CLI" log $DEVS | grep -c " symlink ") || die "no symlink entries in the log"
[ "$n" -eq 7 ] || die "expected 7 symlink entries, the log has $n"
umount_fs "$M" "$MPID"
# shellcheck disable=SC2086
"$CLI" fsck $DEVS >"$T/fsck" 2>&1 || die "fsck: $(cat "$T/fsck")"
grep -q "6 symlinks" "$T/fsck" || die "fsck: $(cat "$T/fsck")"
ok "a fresh client sees the same links; $n symlink entries; fsck clean"
