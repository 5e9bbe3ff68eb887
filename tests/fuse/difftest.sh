#!/bin/sh
# fuse_difftest: random operation sequences on tmpfs and on a famfs master
# mount, step by step (tests/fuse/difftest.c); every difference must be a
# row of docs/fuse.md's list, every difftest row must happen, a client
# shows the master's tree after each sequence, and the client logs no
# "bad entry" while the master works.
# usage: difftest.sh FAMFS_FUSED FAMFS_CLI FAMFS_DIFFTEST FUSE_MD [difftest options...]
# (default: seeds 1-50 of 150 steps; give --seconds N for a campaign)
FUSED=$1 CLI=$2 DIFFTEST=$3 FUSE_MD=$4
shift 4
UTIL=
. "$(dirname "$0")/lib.sh"

python3 "$(dirname "$0")/fuse_list.py" "$FUSE_MD" >"$T/rows.tsv" || die "the list in $FUSE_MD"
make_fs 2 256MiB
mount_master_and_client
mkdir "$T/tmpfs"
[ $# -gt 0 ] || set -- --seeds 1-50 --steps 150
"$DIFFTEST" --list "$T/rows.tsv" --tmp "$T/tmpfs" --master "$M" --client "$C" "$@" ||
	die "differential test"
ok "master matches tmpfs, client matches master"
bad=$(grep -c "bad entry" "$T/client.log" || true)
[ "$bad" -eq 0 ] || die "the client logged $bad 'bad entry' lines during healthy work"
ok "the client logged no bad entry"
umount_fs "$C" "$CPID"
umount_fs "$M" "$MPID"
# shellcheck disable=SC2086
"$CLI" fsck -q $DEVS || die "fsck"
ok "fsck clean"
