#!/bin/sh
# fuse_permissions_enforced: the log's mode, uid and gid are what the
# kernel checks (default_permissions): on a client mounted with
# --allow-other, another user reads a 0644 file, gets EACCES on a 0600
# file and a 0700 directory; without --allow-other that user sees nothing.
# usage: permissions.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 1 64MiB
M=$T/master C=$T/client P=$T/private
chmod 755 "$T"
mount_fs master "$M"
MPID=$LAST_PID
mount_fs client "$C" --client --allow-other
CPID=$LAST_PID
mount_fs private "$P" --client
PPID_=$LAST_PID

"$UTIL" write 1 5000 "$M/public" seq || die "write public"
mkdir -m 700 "$M/closed" && "$UTIL" write 3 100 "$M/closed/inner" seq ||
	die "setup on the master"
"$UTIL" waitfor "$C/closed/inner" exists 30 || die "files never reached the client"
[ "$(stat -c %a "$C/public")" = 644 ] || die "public is $(stat -c %a "$C/public")"
# a committed file's mode cannot change, so create it 0600 from the start
"$UTIL" write 4 5000 "$T/src" seq
(umask 077 && cp "$T/src" "$M/secret600") || die "cp with umask 077"
"$UTIL" waitfor "$C/secret600" exists 30 || die "secret600 never reached the client"
[ "$(stat -c %a "$C/secret600")" = 600 ] || die "secret600 is $(stat -c %a "$C/secret600")"

as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_nobody cat "$C/public" >/dev/null || die "nobody cannot read a 0644 file"
if as_nobody cat "$C/secret600" >/dev/null 2>"$T/err"; then
	die "nobody read a 0600 root file"
fi
grep -q "Permission denied" "$T/err" || die "0600: $(cat "$T/err")"
if as_nobody ls "$C/closed" >/dev/null 2>"$T/err"; then
	die "nobody listed a 0700 root directory"
fi
grep -q "Permission denied" "$T/err" || die "0700: $(cat "$T/err")"
ok "another user: 0644 readable, 0600 file and 0700 directory EACCES"
if as_nobody ls "$P" >/dev/null 2>"$T/err"; then
	die "a mount without --allow-other let another user in"
fi
ok "without --allow-other another user is refused: $(cat "$T/err")"
umount_fs "$P" "$PPID_"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
