#!/bin/bash
# killmatrix_fused: SIGKILL a famfs-fused master at each kill point of its
# writes (a WRITE acknowledged before its bytes are stored) and of its
# commit at close (and at log points under it): /a, committed before, stays
# whole; /b is absent or whole, never partial; fsck is clean; a new master
# mounts, writes /b again and unmounts cleanly. Every FAMFS_KILL_POINT
# under fused/ must be hit.
# Usage: killmatrix_fused.sh FAMFS_FUSED_KP FAMFS_CLI SOURCE_DIR
set -u
FUSED=$1 CLI=$2 SRC=$3
T=$(mktemp -d "${TMPDIR:-/dev/shm}/killmatrix-fused.XXXXXX")
M=$T/mnt PID=
cleanup() {
	[ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	mountpoint -q "$M" && fusermount3 -uz "$M"
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -5 "$T/fused.log" >&2; exit 1; }
[ -e /dev/fuse ] || { echo "no /dev/fuse: skipped"; exit 77; }
DEVS="-d $T/d0 -d $T/d1"
cases=0 covered=""

mount_master() { # [env assignments...]
	mkdir -p "$M"
	: > "$T/fused.log"
	env "$@" "$FUSED" "$T/d0" "$T/d1" "$M" >> "$T/fused.log" 2>&1 &
	PID=$!
	for _ in $(seq 1 500); do
		grep -q ready "$T/fused.log" && return 0
		kill -0 "$PID" 2>/dev/null || fail "famfs-fused exited at start"
		sleep 0.01
	done
	fail "famfs-fused never became ready"
}
# committed PATH: the log on the devices holds PATH (read offline)
committed() { "$CLI" cat $DEVS "$1" > /dev/null 2>&1; }
wait_committed() {
	for _ in $(seq 1 300); do committed "$1" && return 0; sleep 0.02; done
	fail "$1 never committed"
}
fsck_clean() { "$CLI" fsck -q "$T/d0" "$T/d1" > "$T/fsck" 2>&1 || fail "$1: fsck: $(cat "$T/fsck")"; }

head -c 1500000 /dev/urandom > "$T/f1"
head -c 3300000 /dev/urandom > "$T/f2"

case_at() { # POINT[:N] absent|present
	rm -f "$T/d0" "$T/d1"
	"$CLI" mkemul --size 16MiB "$T/d0" "$T/d1" > /dev/null || fail mkemul
	"$CLI" mkfs --log-size 2MiB "$T/d0" "$T/d1" > /dev/null || fail mkfs
	mount_master FAMFS_KILL_AT="$1"
	cp "$T/f1" "$M/a" || fail "$1: cp a"
	wait_committed /a
	cp "$T/f2" "$M/b" 2>/dev/null  # the master may die under it
	for _ in $(seq 1 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.02; done
	wait "$PID"; rc=$?
	PID=
	fusermount3 -uz "$M" 2>/dev/null
	[ "$rc" = 137 ] && grep -q "famfs kill point ${1%%:*}:" "$T/fused.log" ||
		fail "$1: famfs-fused ended with $rc, not SIGKILL at the point"
	covered="$covered ${1%%:*}"
	cases=$((cases + 1))
	fsck_clean "$1"
	"$CLI" cat $DEVS /a | cmp -s - "$T/f1" || fail "$1: committed /a lost or changed"
	if committed /b; then
		[ "$2" = present ] || fail "$1: /b visible though killed before its commit"
		"$CLI" cat $DEVS /b | cmp -s - "$T/f2" || fail "$1: /b visible but not whole"
	else
		[ "$2" = absent ] || fail "$1: /b lost though its commit was written"
	fi
	mount_master
	cmp -s "$M/a" "$T/f1" || fail "$1: /a reads wrong through the new master"
	[ -e "$M/b" ] || cp "$T/f2" "$M/b" || fail "$1: cp b again"
	cmp -s "$M/b" "$T/f2" || fail "$1: /b reads wrong through the new master"
	fusermount3 -u "$M" || fail "$1: unmount"
	wait "$PID" || fail "$1: famfs-fused exited with $? after unmount"
	PID=
	fsck_clean "$1"
	echo "ok: $1: master killed, /a kept, /b $2, remount wrote /b, fsck clean"
}
# /a takes two WRITEs, so :4 is /b's second, acknowledged but not stored
case_at fused.write_acked:4 absent
case_at fused.commit_ready:2 absent
case_at log.body_flushed:2 absent
case_at log.crc_stored:2 present
case_at fused.committed:2 present

# ---- a client killed while it replays: an offline ingest commits a
# directory and files in one batch; the client (polling every 200 ms, so
# one replay applies several entries) dies at its N-th applied entry. The
# log is untouched (fsck clean, every file whole offline) and a new
# client replays it all: the same tree, every file whole through the
# mount, and it unmounts cleanly.
mkdir -p "$T/src/d"
head -c 700000 /dev/urandom > "$T/src/one"
head -c 1300000 /dev/urandom > "$T/src/d/two"
head -c 5000 /dev/urandom > "$T/src/d/three"
head -c 99 /dev/urandom > "$T/src/four"
client_tree() { (cd "$M" && find . -printf '%p %s %m\n' | sort); }
mount_client() { # [env assignments...]
	mkdir -p "$M"
	: > "$T/fused.log"
	env "$@" "$FUSED" --client --poll-ms 200 --host-name killclient "$T/d0" "$T/d1" "$M" \
		>> "$T/fused.log" 2>&1 &
	PID=$!
	for _ in $(seq 1 500); do
		grep -q ready "$T/fused.log" && return 0
		kill -0 "$PID" 2>/dev/null || fail "famfs-fused --client exited at start"
		sleep 0.01
	done
	fail "famfs-fused --client never became ready"
}
client_case() { # POINT:N
	rm -f "$T/d0" "$T/d1"
	"$CLI" mkemul --size 16MiB "$T/d0" "$T/d1" > /dev/null || fail mkemul
	"$CLI" mkfs --log-size 2MiB "$T/d0" "$T/d1" > /dev/null || fail mkfs
	"$CLI" create $DEVS --from "$T/f1" /a > /dev/null || fail "$1: create /a"
	mount_client FAMFS_KILL_AT="$1"
	cmp -s "$M/a" "$T/f1" || fail "$1: the client does not read /a"
	"$CLI" ingest $DEVS "$T/src" /in > "$T/ingest.out" 2>&1 ||
		fail "$1: offline ingest: $(cat "$T/ingest.out")"
	local end=$(($(date +%s) + 20))
	while kill -0 "$PID" 2>/dev/null; do
		[ "$(date +%s)" -lt "$end" ] || fail "$1: the client was not killed while replaying"
		sleep 0.02
	done
	wait "$PID"; rc=$?
	PID=
	fusermount3 -uz "$M" 2>/dev/null
	[ "$rc" = 137 ] && grep -q "famfs kill point ${1%%:*}:" "$T/fused.log" ||
		fail "$1: the client ended with $rc, not SIGKILL at the point"
	covered="$covered ${1%%:*}"
	cases=$((cases + 1))
	fsck_clean "$1"
	for f in one d/two d/three four; do
		"$CLI" cat $DEVS "/in/$f" | cmp -s - "$T/src/$f" || fail "$1: /in/$f lost or changed in the log"
	done
	mount_client
	for f in one d/two d/three four; do
		cmp -s "$M/in/$f" "$T/src/$f" || fail "$1: the new client does not read /in/$f whole"
	done
	cmp -s "$M/a" "$T/f1" || fail "$1: the new client does not read /a"
	[ "$(client_tree | wc -l)" = 8 ] || fail "$1: the new client's tree: $(client_tree)"
	fusermount3 -u "$M" || fail "$1: unmount of the client"
	wait "$PID" || fail "$1: famfs-fused --client exited with $? after unmount"
	PID=
	fsck_clean "$1"
	echo "ok: $1: client killed mid-replay, the log intact, a new client replays the same tree"
}
client_case fused.replay_applied:2
client_case fused.replay_applied:4

missing=""
for p in $(grep -rhoE --include='*.c' 'FAMFS_KILL_POINT\("[a-z_.]+"\)' "$SRC/fused" |
	   sed -E 's/.*\("(.*)"\)/\1/' | sort -u); do
	case " $covered " in *" $p "*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] || fail "fused points never killed at:$missing"
n=$(echo $covered | tr ' ' '\n' | sort -u | wc -l)
echo "kill matrix (fused): $n points, $cases cases, $cases passed"
