# Shared by the FUSE tests: a private temp dir, emulated devices, mounts
# that are always taken down again. Source it after setting FUSED, CLI, UTIL.
# shellcheck shell=sh

set -eu
T=$(mktemp -d /dev/shm/famfs-fusetest.XXXXXX)
PIDS=""
MOUNTS=""

cleanup() {
	set +e
	for m in $MOUNTS; do
		mountpoint -q "$m" && fusermount3 -u "$m" 2>/dev/null
	done
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $PIDS; do
		wait "$p" 2>/dev/null
	done
	for m in $MOUNTS; do
		mountpoint -q "$m" && fusermount3 -uz "$m" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

die() {
	echo "FAIL: $*" >&2
	for f in "$T"/*.log; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }
	done
	exit 1
}

ok() { echo "ok: $*"; }

# make_fs N SIZE: N emulated devices of SIZE in $T, one filesystem on them.
make_fs() {
	DEVS=""
	i=0
	while [ "$i" -lt "$1" ]; do
		DEVS="$DEVS $T/dev$i"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	"$CLI" mkemul --size "$2" $DEVS >/dev/null || die "mkemul"
	# shellcheck disable=SC2086
	"$CLI" mkfs --log-size 8MiB $DEVS >/dev/null || die "mkfs"
}

# mount_fs NAME DIR [famfs-fused options...]: start famfs-fused on $DEVS,
# wait until it says ready. Its pid is in $LAST_PID, its log in $T/NAME.log.
mount_fs() {
	name=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	: >"$T/$name.log"  # truncate before the fork: no stale "ready"
	# shellcheck disable=SC2086
	"$FUSED" "$@" $DEVS "$dir" >>"$T/$name.log" 2>&1 &
	LAST_PID=$!
	PIDS="$PIDS $LAST_PID"
	MOUNTS="$MOUNTS $dir"
	n=0
	while ! grep -q "ready" "$T/$name.log" 2>/dev/null; do
		kill -0 "$LAST_PID" 2>/dev/null || die "famfs-fused $name exited"
		n=$((n + 1))
		[ "$n" -lt 3000 ] || die "famfs-fused $name never became ready"
		sleep 0.01
	done
	mountpoint -q "$dir" || die "$dir is not a mount point after ready"
}

# mount_master_and_client [MASTER_OPTIONS...]: a master on $M and a client
# on $C (both in $T) over $DEVS; their pids in $MPID and $CPID.
mount_master_and_client() {
	M=$T/master C=$T/client
	mount_fs master "$M" "$@"
	MPID=$LAST_PID
	mount_fs client "$C" --client
	CPID=$LAST_PID
}

# umount_fs DIR PID: unmount and wait for the server to exit 0.
umount_fs() {
	fusermount3 -u "$1" || die "fusermount3 -u $1"
	wait "$2" || die "famfs-fused for $1 exited with $?"
	PIDS=$(echo "$PIDS" | sed "s/ $2\b//")
}
