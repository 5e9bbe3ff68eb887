#!/bin/sh
# bench/fuse/run.sh BUILD_DIR [FILE_GIB]
#
# Sequential read of a FILE_GIB (default 4) GiB file interleaved over four
# emulated devices in /dev/shm, through a famfs-fused client mount, in the
# same run as its baselines:
#   memcpy   the file's bytes copied straight from an mmap of the devices
#   ceiling  bench/fuse/ceiling.c, a minimal FUSE server replying from the
#            mapping (page cache with the same readahead, and direct_io)
# Cold = a fresh mount (empty page cache), read() with 4 MiB buffers.
# Warm = the page cache filled; mmap = memcpy from an mmap of the mounted
# file (second pass). Then the follow latency over 1,000 file creations.
# Every figure is the median of 3 runs; every ratio is printed.
set -eu
B=$(cd "$1" && pwd)
GIB=${2:-4}
FUSED=$B/fused/famfs-fused
CLI=$B/famfs-cli/famfs-cli
UTIL=$B/tests/fuse/famfs-fuse-testutil
CEIL=$B/bench/fuse/famfs-fuse-ceiling
T=$(mktemp -d /dev/shm/famfs-fusebench.XXXXXX)
PIDS=""

cleanup() {
	set +e
	for m in "$T"/mnt-*; do
		[ -d "$m" ] && mountpoint -q "$m" && fusermount3 -u "$m"
	done
	for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

# start NAME READY-REGEX CMD...: run a server in the background until ready
start() {
	name=$1 want=$2
	shift 2
	: >"$T/$name.log"  # truncate before the fork: no stale "ready"
	"$@" >>"$T/$name.log" 2>&1 &
	LAST=$!
	PIDS="$PIDS $LAST"
	n=0
	until grep -q "$want" "$T/$name.log"; do
		kill -0 "$LAST" 2>/dev/null || { cat "$T/$name.log"; exit 1; }
		n=$((n + 1)); [ $n -lt 3000 ] || exit 1
		sleep 0.01
	done
}
stop() { fusermount3 -u "$1"; wait "$2" || true; }

per_dev=$(( (GIB * 1024 / 4) + 64 ))MiB
DEVS="$T/d0 $T/d1 $T/d2 $T/d3"
"$CLI" mkemul --size "$per_dev" $DEVS >/dev/null
"$CLI" mkfs --log-size 16MiB $DEVS >/dev/null
mkdir -p "$T/mnt-m" "$T/mnt-c" "$T/mnt-x"
start master ready "$FUSED" $DEVS "$T/mnt-m"
MPID=$LAST
size=$((GIB * 1024 * 1024 * 1024))
"$UTIL" write 7 "$size" "$T/mnt-m/big" trunc
echo "file: $GIB GiB, $(cat /proc/cpuinfo | grep -c ^processor) cpus, kernel $(uname -r)"

# client: fresh mount per cold run; readahead sweep decides the default
client_cold() { # RA_KB [extra options]
	ra=$1; shift
	start client ready "$FUSED" --client --read-ahead-kb "$ra" "$@" $DEVS "$T/mnt-c"
	CPID=$LAST
	"$UTIL" readbw "$T/mnt-c/big"
	stop "$T/mnt-c" "$CPID"
}
ceiling_cold() { # RA_KB [--direct-io]
	ra=$1; shift
	start ceiling ready "$CEIL" "$@" --read-ahead-kb "$ra" /big $DEVS "$T/mnt-x"
	XPID=$LAST
	"$UTIL" readbw "$T/mnt-x/data"
	stop "$T/mnt-x" "$XPID"
}
runs() { # N CMD...: N results on one line
	n=$1; shift
	out=""
	i=0
	while [ $i -lt "$n" ]; do out="$out $("$@")"; i=$((i + 1)); done
	echo "$out"
}

start client ready "$FUSED" --client $DEVS "$T/mnt-c"
CPID=$LAST
memcpy=$(runs 3 "$UTIL" memcpybw "$T/mnt-c/big" | median)
stop "$T/mnt-c" "$CPID"

echo "memcpy from the devices (pre-faulted):      $memcpy GB/s"
# ours and the ceiling alternate, so that both see the same neighbours
pair() { # RA_KB [--direct-io]: "ours ceiling" for one fresh mount each
	echo "$(client_cold "$@") $(ceiling_cold "$@")"
}
sweep() { # LABEL RA_KB [--direct-io]: median of 3 pairs
	label=$1; shift
	o="" c=""
	for i in 1 2 3; do
		set -- $(pair "$@") "$@"
		o="$o $1" c="$c $2"
		shift 2
	done
	v=$(echo "$o" | median) x=$(echo "$c" | median)
	echo "cold read, $label: famfs-fused $v GB/s (runs$o), ceiling $x GB/s (runs$c), ratio $(ratio "$v" "$x")"
	LAST_V=$v LAST_X=$x
}
for ra in 1024 4096 16384; do
	sweep "page cache, read_ahead_kb=$ra" $ra
	eval "fused_$ra=$LAST_V ceil_$ra=$LAST_X"
done
sweep "direct_io" 0 --direct-io
dio=$LAST_V cdio=$LAST_X

# warm: default client options, page cache filled by a first read
start client ready "$FUSED" --client $DEVS "$T/mnt-c"
CPID=$LAST
cold_default=$("$UTIL" readbw "$T/mnt-c/big")
warm=$(runs 3 "$UTIL" readbw "$T/mnt-c/big" | median)
mm="" mc=""
for i in 1 2 3; do # alternate with the memory bound, for the same neighbours
	mm="$mm $("$UTIL" mmapbw "$T/mnt-c/big" 2 | cut -d' ' -f2)"
	mc="$mc $("$UTIL" memcpybw "$T/mnt-c/big")"
done
mmap=$(echo "$mm" | median) memcpy2=$(echo "$mc" | median)
echo "memcpy from the devices, alongside the mmap runs: $memcpy2 GB/s (runs$mc)"
echo "default client (read_ahead_kb=4096): cold $cold_default GB/s, warm read() $warm GB/s, warm mmap $mmap GB/s (runs$mm)"

best_ceil=$ceil_16384
for c in $ceil_1024 $ceil_4096 $cdio; do
	best_ceil=$(awk -v a="$best_ceil" -v b="$c" 'BEGIN {print (b > a) ? b : a}')
done
echo
echo "ratio cold famfs-fused / ceiling, same mode (page cache, read_ahead_kb=4096, the default): $(ratio "$fused_4096" "$ceil_4096") (goal >= 0.9)"
echo "ratio cold famfs-fused default / best ceiling of any mode ($best_ceil): $(ratio "$fused_4096" "$best_ceil")"
echo "ratio cold famfs-fused / memcpy: $(ratio "$fused_4096" "$memcpy")"
echo "ratio warm read() / memcpy: $(ratio "$warm" "$memcpy")"
echo "ratio warm mmap / memcpy (alongside): $(ratio "$mmap" "$memcpy2") (goal >= 0.8)"
echo "ratio direct_io famfs-fused / ceiling direct_io: $(ratio "$dio" "$cdio")"

# follow latency: 1,000 creations on the master, seen on the client
"$UTIL" follow "$T/mnt-m" "$T/mnt-c" 1000
stop "$T/mnt-c" "$CPID"
stop "$T/mnt-m" "$MPID"
