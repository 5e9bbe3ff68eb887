#!/bin/sh
# fuse_metadata: what cp -a, rsync -a, tar x and touch -d set is kept on the
# master (SETATTR log entries, format 1.1; rsync's renames, 1.2) and seen
# by a client mount: the modes, owners and mtimes of files, directories and the root; a second
# rsync -a transfers nothing; chmod/chown/truncate within the allocation
# on committed files; a fresh client (full replay) sees the same; fsck
# is clean.
# usage: metadata.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 256MiB
S=$T/src
mount_master_and_client

# A source tree with distinct modes, owners and times everywhere.
mkdir -p "$S/d1/d2" "$S/empty-dir" "$S/open"
"$UTIL" write 1 5000 "$S/f-small" seq
"$UTIL" write 2 3145729 "$S/d1/f-big" seq
"$UTIL" write 3 70001 "$S/d1/d2/f-deep" seq
: >"$S/d1/f-empty"
chmod 0600 "$S/f-small"
chmod 4755 "$S/d1/f-big"
chmod 0640 "$S/d1/d2/f-deep"
chown 1234:5678 "$S/f-small" "$S/d1/d2"
chown 4321:8765 "$S/d1/f-big"
chmod 0750 "$S/d1"
chmod 0711 "$S/d1/d2"
chmod 2775 "$S/empty-dir"
chmod 0777 "$S/open"
i=0
for p in f-small d1/f-big d1/d2/f-deep d1/f-empty d1/d2 d1 empty-dir open; do
	i=$((i + 1))
	touch -h -d "2001-02-0$((i % 9 + 1)) 0$i:0$i:0$i.12345678$i" "$S/$p"
done
touch -d "1999-12-31 23:59:59.5" "$S"

# mode uid gid size mtime of every path under $1 (not atime: reading the
# source for the copy changes the source's own)
listing() {
	(cd "$1" && find . -printf '%p %M %U %G %s %T@\n' | sed 's/^\. /\/ /' |
		awk '{ if ($2 ~ /^d/) $5 = "-"; print }' | sort)
}
listing "$S" >"$T/want"
[ "$(wc -l <"$T/want")" -eq 9 ] || die "source listing: $(cat "$T/want")"

# same_everywhere NAME: master copy and client copy list as the source;
# the client is polled (it follows the log), bounded.
same_everywhere() {
	listing "$M/$1" >"$T/got-m"
	diff "$T/want" "$T/got-m" >"$T/diff" || die "$1 on the master differs: $(cat "$T/diff")"
	diff -r "$S" "$M/$1" >/dev/null || die "$1: data differs on the master"
	n=0
	until listing "$C/$1" >"$T/got-c" 2>/dev/null && cmp -s "$T/want" "$T/got-c"; do
		n=$((n + 1))
		[ "$n" -lt 300 ] || die "$1 on the client differs: $(diff "$T/want" "$T/got-c")"
		sleep 0.05
	done
	diff -r "$S" "$C/$1" >/dev/null || die "$1: data differs on the client"
}

mkdir "$M/cpa"
cp -a "$S/." "$M/cpa/" 2>"$T/err" || die "cp -a: $(cat "$T/err")"
[ -s "$T/err" ] && die "cp -a complained: $(cat "$T/err")"
same_everywhere cpa
ok "cp -a keeps modes, owners and mtimes of files and directories, client too"

rsync -a "$S/" "$M/rs/" 2>"$T/err" || die "rsync -a: $(cat "$T/err")"
same_everywhere rs
rsync -a --stats "$S/" "$M/rs/" >"$T/stats" 2>&1 || die "second rsync: $(cat "$T/stats")"
grep -q "^Number of regular files transferred: 0$" "$T/stats" ||
	die "second rsync -a transferred files: $(cat "$T/stats")"
rsync -a --itemize-changes "$S/" "$M/rs/" >"$T/items" 2>&1 || die "third rsync: $(cat "$T/items")"
[ -s "$T/items" ] && die "a third rsync -a changed something: $(cat "$T/items")"
# rsync's temp files were renamed into place (RENAME entries, format
# 1.2), not copied again and deleted (what EXDEV from rename made it do)
# shellcheck disable=SC2086
"$CLI" log $DEVS >"$T/log"
[ "$(grep -c " rename .*/rs/.*-> " "$T/log")" -eq 4 ] ||
	die "expected 4 renames of rsync's temp files: $(grep " rename \| delete " "$T/log")"
grep -q " delete " "$T/log" && die "rsync deleted files: $(grep " delete " "$T/log")"
ok "rsync -a keeps everything (temp files renamed in place); a second run transfers nothing"

# pax keeps nanoseconds (the default GNU format has whole seconds)
(cd "$S" && tar --format=posix -cf "$T/src.tar" .) || die "tar c"
mkdir "$M/tx"
tar -C "$M/tx" -xf "$T/src.tar" 2>"$T/err" || die "tar x: $(cat "$T/err")"
same_everywhere tx
ok "tar x keeps everything"

# touch -d on committed files and a directory, atime separately
touch -d "2010-10-10 10:10:10.123456789" "$M/cpa/f-small" "$M/cpa/d1"
touch -a -d "2011-11-11 11:11:11.5" "$M/cpa/d1/f-big"
for root in "$M" "$C"; do
	n=0
	until [ "$(stat -c '%y' "$root/cpa/f-small")" = "2010-10-10 10:10:10.123456789 +0000" ] &&
	      [ "$(stat -c '%y' "$root/cpa/d1")" = "2010-10-10 10:10:10.123456789 +0000" ] &&
	      [ "$(stat -c '%x' "$root/cpa/d1/f-big")" = "2011-11-11 11:11:11.500000000 +0000" ]; do
		n=$((n + 1))
		[ "$n" -lt 300 ] || die "touch -d not seen on $root: $(stat -c '%n %x %y' "$root/cpa/f-small" "$root/cpa/d1" "$root/cpa/d1/f-big")"
		sleep 0.05
	done
done
ok "touch -d (mtime and atime) on committed files and directories, client too"

# chmod, chown, the root, truncate inside the allocation; growth past it
chmod 0705 "$M" || die "chmod of the root"
chown 77:88 "$M/cpa/d1/d2/f-deep" || die "chown"
chmod 0444 "$M/cpa/d1/d2/f-deep" || die "chmod"
truncate -s 100 "$M/cpa/f-small" || die "truncate smaller"
truncate -s 8192 "$M/cpa/f-small" || die "truncate larger, inside the allocation"
if truncate -s 3MiB "$M/cpa/f-small" 2>"$T/err"; then die "grew past the allocation"; fi
grep -qi "too large" "$T/err" || die "growth error: $(cat "$T/err")"
head -c 100 "$S/f-small" >"$T/want-small"
head -c 8092 /dev/zero >>"$T/want-small"
for root in "$M" "$C"; do
	n=0
	until [ "$(stat -c '%a' "$root")" = 705 ] &&
	      [ "$(stat -c '%a %u %g' "$root/cpa/d1/d2/f-deep")" = "444 77 88" ] &&
	      [ "$(stat -c '%s' "$root/cpa/f-small")" = 8192 ]; do
		n=$((n + 1))
		[ "$n" -lt 300 ] || die "chmod/chown/truncate not seen on $root"
		sleep 0.05
	done
	cmp "$T/want-small" "$root/cpa/f-small" || die "truncated file's bytes on $root"
done
ok "chmod, chown, the root's mode, truncate within the allocation (zeros), EFBIG past it"

# a client mounted now replays the whole log and sees the same
umount_fs "$C" "$CPID"
C2=$T/client2
mount_fs client2 "$C2" --client
listing "$C2/rs" >"$T/got-c2"
diff "$T/want" "$T/got-c2" >"$T/diff" || die "fresh client differs: $(cat "$T/diff")"
[ "$(stat -c '%a %u %g %s' "$C2/cpa/d1/d2/f-deep" "$C2/cpa/f-small" "$C2")" = \
  "$(stat -c '%a %u %g %s' "$M/cpa/d1/d2/f-deep" "$M/cpa/f-small" "$M")" ] ||
	die "fresh client: attributes differ from the master"
ok "a fresh client (whole-log replay) sees the same"

n=$("$CLI" log $DEVS | grep -c " setattr ") || die "no setattr entries in the log"
echo "log holds $n setattr entries"
# shellcheck disable=SC2086
"$CLI" fsck $DEVS >"$T/fsck" 2>&1 || die "fsck: $(cat "$T/fsck")"
grep -q "clean" "$T/fsck" || die "fsck: $(cat "$T/fsck")"
umount_fs "$C2" "$LAST_PID"
umount_fs "$M" "$MPID"
ok "fsck clean"
