#!/bin/sh
# bench/lib/scale.sh BUILD_DIR [DIR]
#
# Mount time against the number of files, in one run. For each size of
# SIZES (default 1 M, 3 M, 10 M entries) a log made by `bench_mount --make`
# (sparse emulated devices in DIR, default /var/tmp/famfs-scale: a 10 M
# log is 1.7 GB, its device 43 GB of address space), then ROUNDS rounds
# (default 3) of one fresh `bench_mount DEV` process per size, the sizes
# taking turns at going first. Per size, medians of: the mount (wall and
# CPU), its floor measured in the same process (the CRC pass of the log
# in a fresh mapping + the first write of as much fresh memory as the
# mount took), mount / floor, anonymous bytes per entry, and each size's
# mount / the smallest's; the user and system CPU of the mount and the
# fresh-memory floor alone, each against the smallest size's.
#
# Then (CLIENT=1, the default) for the smallest and the largest size: a
# famfs-fused master and a client on the device, the follow latency of
# FOLLOW (default 200) creations on the master seen on the client, and
# `ls -l` of a directory of 999 files through the client (the first ls
# of each of 5 directories in a fresh mount, then 3 more of the first).
#
# BM_B=path: a second bench_mount (another build) run beside the first
# on every size in every round (paired A/B: same neighbours); its table
# follows, with its mount / the first build's.
# KEEP=1 keeps the devices (and reuses them in the next run).
set -eu
B=$(cd "$1" && pwd)
D=${2:-/var/tmp/famfs-scale}
SIZES=${SIZES:-"1000000 3000000 10000000"}
ROUNDS=${ROUNDS:-3}
CLIENT=${CLIENT:-1}
FOLLOW=${FOLLOW:-200}
BM=$B/bench/lib/bench_mount
FUSED=$B/fused/famfs-fused
UTIL=$B/tests/fuse/famfs-fuse-testutil
PIDS=""
mkdir -p "$D"
T=$(mktemp -d "$D/run.XXXXXX")

cleanup() {
	set +e
	for m in "$T"/mnt-*; do
		[ -d "$m" ] && mountpoint -q "$m" && fusermount3 -u "$m"
	done
	for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
	[ "${KEEP:-0}" = 1 ] || for n in $SIZES; do rm -f "$D/m$n.dev"; done
}
trap cleanup EXIT INT TERM

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
now() { date +%s.%N; }

for n in $SIZES; do
	[ -f "$D/m$n.dev" ] || "$BM" --make "$D/m$n.dev" "$n"
done
echo "$(grep -c ^processor /proc/cpuinfo) cpus, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"

# bench_mount prints: round cpu wall crc_cpu crc_wall entries utime stime
#   cold_crc_cpu cold_crc_wall rss mem_cpu mem_wall
order=$SIZES
for r in $(seq "$ROUNDS"); do
	for n in $order; do
		"$BM" "$D/m$n.dev" >>"$T/r$n"
		[ -z "${BM_B:-}" ] || "$BM_B" "$D/m$n.dev" >>"$T/rB$n"
	done
	order=$(echo "$order" | awk '{for (i = NF; i > 1; i--) printf "%s ", $i; print $1}')
done
col() { awk -v c="$2" '{printf "%s ", $c}' "$T/r$1" | median; }
floorw() { awk '{printf "%s ", $10 + $13}' "$T/r$1" | median; }
floorc() { awk '{printf "%s ", $9 + $12}' "$T/r$1" | median; }
ratw() { awk '{printf "%s ", $3 / ($10 + $13)}' "$T/r$1" | median; }
ratc() { awk '{printf "%s ", $2 / ($9 + $12)}' "$T/r$1" | median; }
first=${SIZES%% *}
table() { # PREFIX
	p=$1
	w1=$(col "$p$first" 3) c1=$(col "$p$first" 2)
	u1=$(col "$p$first" 7) k1=$(col "$p$first" 8) m1=$(col "$p$first" 13)
	printf "%-9s %9s %9s %9s %9s %7s %7s %7s %9s %9s\n" entries "mount s" "cpu s" \
		"floor s" "floor cpu" "m/floor" "cpu/fl" "B/entry" "wall/1st" "cpu/1st"
	for n in $SIZES; do
		w=$(col "$p$n" 3) c=$(col "$p$n" 2) rss=$(col "$p$n" 11)
		printf "%-9s %9s %9s %9.4f %9.4f %7s %7s %7s %9s %9s\n" "$n" "$w" "$c" \
			"$(floorw "$p$n")" "$(floorc "$p$n")" "$(printf '%.2f' "$(ratw "$p$n")")" \
			"$(printf '%.2f' "$(ratc "$p$n")")" "$(awk -v a="$rss" -v b="$n" 'BEGIN {printf "%.0f", a / b}')" \
			"$(ratio "$w" "$w1")" "$(ratio "$c" "$c1")"
		echo "  runs (wall):$(awk '{printf " %s", $3}' "$T/r$p$n") (cpu):$(awk '{printf " %s", $2}' "$T/r$p$n")"
		# where the CPU went: user (the replay), system (mostly the
		# kernel providing fresh pages), and the fresh-memory floor alone
		u=$(col "$p$n" 7) k=$(col "$p$n" 8) m=$(col "$p$n" 13)
		echo "  user $u s ($(ratio "$u" "$u1") x 1st), system $k s ($(ratio "$k" "$k1") x 1st), fresh-memory floor $m s ($(ratio "$m" "$m1") x 1st)"
	done
}
echo "build A: $BM"
table ""
if [ -n "${BM_B:-}" ]; then
	echo "build B: $BM_B"
	table B
	for n in $SIZES; do
		echo "$n: mount A / B: wall $(ratio "$(col "$n" 3)" "$(col "B$n" 3)"), cpu $(ratio "$(col "$n" 2)" "$(col "B$n" 2)")"
	done
fi

[ "$CLIENT" = 1 ] || exit 0

# start NAME READY-REGEX CMD...: run a server in the background until ready
start() {
	name=$1 want=$2
	shift 2
	: >"$T/$name.log"
	"$@" >>"$T/$name.log" 2>&1 &
	LAST=$!
	PIDS="$PIDS $LAST"
	k=0
	until grep -q "$want" "$T/$name.log"; do
		kill -0 "$LAST" 2>/dev/null || { cat "$T/$name.log"; exit 1; }
		k=$((k + 1)); [ $k -lt 30000 ] || exit 1
		sleep 0.01
	done
}
stop() { fusermount3 -u "$1"; wait "$2" || true; }
lsl() { # DIR: seconds of one ls -l
	t0=$(now); ls -l "$1" >/dev/null; t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}'
}
last=$(echo "$SIZES" | awk '{print $NF}')
for n in "$first" "$last"; do
	mkdir -p "$T/mnt-m" "$T/mnt-c"
	start master ready "$FUSED" --force "$D/m$n.dev" "$T/mnt-m"
	MPID=$LAST
	t0=$(now)
	start client ready "$FUSED" --client "$D/m$n.dev" "$T/mnt-c"
	CPID=$LAST
	cm=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}')
	cold="" warm=""
	for d in d0000 d0001 d0002 d0003 d0004; do cold="$cold $(lsl "$T/mnt-c/$d")"; done
	for i in 1 2 3; do warm="$warm $(lsl "$T/mnt-c/d0000")"; done
	fd=follow-$(date +%s)-$$   # a kept device holds the last run's
	mkdir "$T/mnt-m/$fd"
	fol=$("$UTIL" follow "$T/mnt-m/$fd" "$T/mnt-c/$fd" "$FOLLOW")
	echo "$n entries: client mount to ready ${cm} s; ls -l of 999 files: first $(echo "$cold" | median) s (5 directories:$cold), again $(echo "$warm" | median) s (runs$warm); $fol"
	stop "$T/mnt-c" "$CPID"
	stop "$T/mnt-m" "$MPID"
	rm -f "$D/m$n.dev.fused"* 2>/dev/null || true
done
