#!/bin/sh
# ingest_space_plan_xfs: ingest places every file of the tree on paper
# with the allocator's rule before it makes anything. Two 256 MiB devices
# with the default log (444 MiB free, the largest striped file 380 MiB):
# a 400 MiB and a 382 MiB file (one unit over) are refused naming the file
# and the room on each device, with nothing created; 380 MiB (at) and
# 378 MiB (one unit under) are placed; 222 files of 2 MiB (one unit each,
# all the free space) are placed, 223 are refused. A re-run with
# --verify=all reads back the file already there.
# usage: with_xfs.sh 300 1 space_plan.sh TREE (FAMFS_CLI in the environment)
set -eu
CLI=$FAMFS_CLI
S=$(dirname "$1")/space
T=$(mktemp -d /dev/shm/famfs-space.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
die() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
fresh_fs() {
	rm -f "$T/d0" "$T/d1" "$T/d0.manifest.db"
	"$CLI" mkemul --size 256MiB "$T/d0" "$T/d1" >/dev/null || die "mkemul"
	"$CLI" mkfs "$T/d0" "$T/d1" >/dev/null || die "mkfs"
}
D="-d $T/d0 -d $T/d1"
tree_of() { # tree_of NAME COUNT SIZE_MIB: COUNT sparse files in NAME/sub
	mkdir -p "$S/$1/sub"
	i=0
	while [ "$i" -lt "$2" ]; do
		truncate -s "$3M" "$S/$1/sub/f$i"
		i=$((i + 1))
	done
}
refused() { # refused NAME: ingest refuses it and the filesystem is as it was
	# shellcheck disable=SC2086
	before=$("$CLI" log -o json $D | grep -c '"seq"' || true)
	# shellcheck disable=SC2086
	if "$CLI" ingest $D "$S/$1" "/$1" >"$T/out" 2>&1; then
		die "$1 was not refused: $(cat "$T/out")"
	fi
	grep -q "nothing was copied: sub/f[0-9]* does not fit" "$T/out" ||
		die "$1: no file named in: $(cat "$T/out")"
	grep -q "room on each device (free, largest run): dev0" "$T/out" ||
		die "$1: no room per device in: $(cat "$T/out")"
	# shellcheck disable=SC2086
	after=$("$CLI" log -o json $D | grep -c '"seq"' || true)
	[ "$before" = "$after" ] || die "$1: the log grew from $before to $after entries"
	ok "$1 refused up front: $(grep 'does not fit' "$T/out")"
}
placed() { # placed NAME: ingest places it
	# shellcheck disable=SC2086
	"$CLI" ingest $D "$S/$1" "/$1" >"$T/out" 2>&1 || die "$1 failed: $(cat "$T/out")"
	ok "$1 placed"
}

tree_of big400 1 400
tree_of over382 1 382
tree_of at380 1 380
tree_of under378 1 378
tree_of units222 222 2
tree_of units223 223 2

fresh_fs
refused big400
refused over382
# shellcheck disable=SC2086
[ -z "$("$CLI" ls $D /)" ] || die "a refused ingest left: $("$CLI" ls $D /)"
ok "nothing left behind by the refused ingests"
placed at380
# shellcheck disable=SC2086
"$CLI" ingest $D --verify=all "$S/at380" /at380 >"$T/out" 2>&1 ||
	die "re-run: $(cat "$T/out")"
grep -q "1 already there, 0 changed at the source, 1 verified" "$T/out" ||
	die "--verify=all did not read back the file already there: $(cat "$T/out")"
ok "--verify=all reads back the file already there"
fresh_fs
placed under378
fresh_fs
refused units223
placed units222
