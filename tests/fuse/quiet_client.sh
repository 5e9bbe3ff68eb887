#!/bin/sh
# fuse_quiet_client: a client following a busy master often reads an entry
# the master is still appending; it reads it again at the next poll and
# logs nothing. 1500 files created and chmod'ed (3000 entries) as fast as
# the master goes: the client logs no "bad entry" and shows every file.
# A torn tail that stays is still reported (fuse_torn_entry).
# usage: quiet_client.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 256MiB
mount_master_and_client
python3 - "$M" <<'PY' || die "writer: $?"
import os, sys
m = sys.argv[1]
for i in range(1500):
    p = "%s/f%d" % (m, i)
    with open(p, "wb") as f:
        f.write(b"x" * 100)
    os.chmod(p, 0o600)
PY
n=0
until [ "$(find "$C" -type f -perm 600 | wc -l)" -eq 1500 ]; do
	n=$((n + 1))
	[ $n -lt 1000 ] || die "the client does not show the 1500 files"
	sleep 0.01
done
bad=$(grep -c "bad entry" "$T/client.log" || true)
[ "$bad" -eq 0 ] || die "the client logged $bad 'bad entry' lines while the master appended"
ok "3000 entries followed, no bad entry logged"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
