#!/bin/sh
# fuse_workers: famfs-fused keeps its worker threads between requests
# (fuse_session_loop_mt() gets the fuse_loop_cfg_*() settings: with
# FUSE_USE_VERSION < 312 libfuse read them as the old struct, max idle
# threads 0, and started a thread, a cloned /dev/fuse fd and a fresh
# buffer for every request). Every thread there before 100 open/read/close
# cycles on the master is still there after them, and at most 16 were
# added. The master's default is one worker per CPU, 2 to 16
# (fused/main.c): 6 writers at once leave no more than that many threads
# waiting on /dev/fuse (with 16,
# before 2026-12-05: 3 after these writers, 5 after a `cp -a` of
# 512 MiB, 7 after 4 concurrent `dd`s).
# usage: workers.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 1 64MiB
M=$T/master
mount_fs master "$M"
MPID=$LAST_PID
echo hello >"$M/f" || die "write f"
ls "/proc/$MPID/task" | sort >"$T/tids.0"
i=0
while [ $i -lt 100 ]; do
	cat "$M/f" >/dev/null || die "cat f"
	i=$((i + 1))
done
ls "/proc/$MPID/task" | sort >"$T/tids.1"
gone=$(comm -23 "$T/tids.0" "$T/tids.1" | wc -l)
new=$(comm -13 "$T/tids.0" "$T/tids.1" | wc -l)
[ "$gone" -eq 0 ] || die "$gone of $(wc -l <"$T/tids.0") threads gone after 100 requests: one thread per request"
[ "$new" -le 16 ] || die "$new new worker threads for 100 requests"
ok "worker threads kept across 100 requests ($(wc -l <"$T/tids.1") threads, $new new)"

pids=""
for i in 1 2 3 4 5 6; do
	dd if=/dev/zero of="$M/w$i" bs=256K count=8 2>"$T/dd.$i" &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids || die "concurrent writes: $(cat "$T"/dd.*)"
sleep 0.2
workers=$(grep -l fuse_dev_do_read /proc/"$MPID"/task/*/wchan | wc -l)
[ "$workers" -ge 1 ] || die "no famfs-fused thread waits on /dev/fuse"
want=$(nproc)
[ "$want" -ge 2 ] || want=2
[ "$want" -le 16 ] || want=16
[ "$workers" -le "$want" ] || die "$workers workers on the master after 6 concurrent writers (default $want)"
ok "master keeps $workers workers under 6 concurrent writers (default $want)"
umount_fs "$M" "$MPID"
