#!/bin/bash
# famfsd_fused_spawn: a famfs-fused famfsd starts gets a clean signal state
# (SigBlk and SigIgn of /proc/PID/status all zero, although famfsd blocks
# SIGTERM/SIGHUP/SIGINT/SIGCHLD and ignores SIGPIPE), so DELETE of the
# mount stops it with SIGTERM itself ("stopped by signal 15" in its mount
# log) instead of famfsd waiting 5 s and falling back to fusermount3 -u.
# famfsd itself starts with SIGUSR1 (10) and glibc's reserved 32 ignored,
# as a parent may leave them (CI's did 32): those must not pass on either.
# (33 cannot stay ignored: glibc sets its handler in every process.)
source "$(dirname "$0")/lib.sh"
[ -x "${FAMFS_FUSED:-}" ] || { echo "famfs-fused not built"; exit 77; }
[ -e /dev/fuse ] || { echo "no /dev/fuse"; exit 77; }
[ -x "${EXEC_IGNORING:-}" ] || fail "EXEC_IGNORING not set"
FAMFSD_WRAP="$EXEC_IGNORING 10,32" start_famfsd --fused "$FAMFS_FUSED"
ign=$(awk '/^SigIgn:/ { print $2 }' /proc/$FAMFSD_PID/status)
[ $(( 0x$ign & 0x80000200 )) = $(( 0x80000200 )) ] \
	|| fail "famfsd SigIgn=$ign lacks 10 and 32: the test would prove nothing"
blk=$(awk '/^SigBlk:/ { print $2 }' /proc/$FAMFSD_PID/status)
[ "$blk" != 0000000000000000 ] || fail "famfsd blocks no signals: the test would prove nothing"
make_devices 2
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"4MiB"}'; expect 201
api POST /v1/mounts "{\"name\":\"m\",\"filesystem\":\"fs0\",\"path\":\"$T/mnt\",\"role\":\"master\"}"
expect 201
for i in $(seq 1 200); do
	api GET /v1/mounts/m
	[ "$(jq_get "$BODY" .state)" = mounted ] && break
	[ "$i" = 200 ] && fail "mount never came up: $BODY"
	sleep 0.05
done
pid=$(jq_get "$BODY" .pid)
[ -n "$pid" ] && [ "$pid" -gt 0 ] || fail "no pid: $BODY"
[ "$(readlink /proc/$pid/exe)" = "$(readlink -f "$FAMFS_FUSED")" ] || fail "pid $pid is not famfs-fused"
sigblk=$(awk '/^SigBlk:/ { print $2 }' /proc/$pid/status)
sigign=$(awk '/^SigIgn:/ { print $2 }' /proc/$pid/status)
[ "$sigblk" = 0000000000000000 ] || fail "famfs-fused SigBlk=$sigblk (famfsd's $blk)"
[ "$sigign" = 0000000000000000 ] || fail "famfs-fused SigIgn=$sigign"
pass "spawned famfs-fused: SigBlk 0, SigIgn 0 (famfsd blocks $blk)"

t0=$(date +%s.%N)
api DELETE /v1/mounts/m; expect 204
t1=$(date +%s.%N)
kill -0 "$pid" 2>/dev/null && fail "famfs-fused $pid still running after DELETE"
grep -q "stopped by signal 15" "$STATE/mounts/m.log" \
	|| fail "famfs-fused did not stop on SIGTERM: $(tail -3 "$STATE/mounts/m.log")"
pass "DELETE: famfs-fused stopped by its SIGTERM ($(echo "$t1 - $t0" | bc) s)"
