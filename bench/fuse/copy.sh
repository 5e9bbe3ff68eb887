#!/bin/sh
# bench/fuse/copy.sh BUILD_DIR [NFILES] [MIB]
#
# Copies NFILES (default 4) files of MIB (default 256) MiB of random data,
# warm in /dev/shm, with `cp -a`, `rsync -a` and `rsync -a --inplace`
# (rsync writes a temporary file and renames it into place after closing
# it: one RENAME log entry since format 1.2; before, EXDEV made rsync copy
# every file a second time) into a directory on
# tmpfs (/dev/shm) and into a famfs-fused master mount of four emulated
# devices, in the same run: three rounds, the four copies interleaved in
# each round, medians of 3. The time of a famfs copy includes every
# file's commit (at close). Prints GB/s and famfs / tmpfs for each tool,
# and the CPU time famfs-fused spent per GiB copied (utime + stime from
# /proc: unlike wall time, it does not count the wait for a core on a
# loaded machine). FUSED=path compares another famfs-fused build.
set -eu
B=$(cd "$1" && pwd)
NFILES=${2:-4}
MIB=${3:-256}
FUSED=${FUSED:-$B/fused/famfs-fused}
CLI=$B/famfs-cli/famfs-cli
T=$(mktemp -d /dev/shm/famfs-copybench.XXXXXX)
MPID=""

cleanup() {
	set +e
	mountpoint -q "$T/mnt" && fusermount3 -u "$T/mnt"
	[ -n "$MPID" ] && { kill "$MPID" 2>/dev/null; wait "$MPID" 2>/dev/null; }
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
now() { date +%s.%N; }

mkdir -p "$T/src" "$T/mnt"
i=0
while [ "$i" -lt "$NFILES" ]; do
	head -c $((MIB << 20)) /dev/urandom >"$T/src/f$i"
	i=$((i + 1))
done
# room for the files, a growing file's doubled reservation, and the
# previous build's copy of it (FUSED=)
per_dev=$(( (NFILES * MIB + 4 * MIB) / 4 + 64 ))MiB
DEVS="$T/d0 $T/d1 $T/d2 $T/d3"
# shellcheck disable=SC2086
"$CLI" mkemul --size "$per_dev" $DEVS >/dev/null
# shellcheck disable=SC2086
"$CLI" mkfs --log-size 16MiB $DEVS >/dev/null
# shellcheck disable=SC2086
"$FUSED" $DEVS "$T/mnt" >"$T/master.log" 2>&1 &
MPID=$!
n=0
until grep -q ready "$T/master.log"; do
	n=$((n + 1)); [ $n -lt 3000 ] || { cat "$T/master.log"; exit 1; }
	sleep 0.01
done

cpu_ticks() { awk '{print $14 + $15}' "/proc/$MPID/stat"; }

# copy TOOL DEST: seconds for one copy of $T/src into DEST/<fresh dir>;
# famfs-fused's CPU ticks for it appended to $T/ticks.TOOL
copy() {
	d=$2/c$$.$(date +%N)
	cat "$T"/src/* >/dev/null # the source warm, as for the other side
	k0=$(cpu_ticks)
	t0=$(now)
	case $1 in
	cp) cp -a "$T/src" "$d" ;;
	rsync) rsync -a "$T/src/" "$d/" ;;
	inplace) rsync -a --inplace "$T/src/" "$d/" ;;
	esac
	t1=$(now)
	[ "$2" = "$T" ] || echo "$(( $(cpu_ticks) - k0 ))" >>"$T/ticks.$1"
	rm -rf "$d"
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}'
}

bytes=$((NFILES * MIB << 20))
for tool in cp rsync inplace; do
	eval "tm_$tool=''; fa_$tool=''"
done
for round in 1 2 3; do
	for tool in cp rsync inplace; do
		a=$(copy "$tool" "$T")
		b=$(copy "$tool" "$T/mnt")
		eval "tm_$tool=\"\$tm_$tool \$a\"; fa_$tool=\"\$fa_$tool \$b\""
	done
done

echo "# copy into the master mount vs tmpfs ($NFILES x $MIB MiB, median of 3)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| tool | tmpfs GB/s | famfs master GB/s | famfs / tmpfs | famfs-fused CPU s per GiB |"
echo "| --- | --- | --- | --- | --- |"
hz=$(getconf CLK_TCK)
for tool in cp rsync inplace; do
	eval "a=\$(echo \$tm_$tool | median); b=\$(echo \$fa_$tool | median)"
	ga=$(awk -v s="$a" -v n="$bytes" 'BEGIN {printf "%.2f", n / s / 1e9}')
	gb=$(awk -v s="$b" -v n="$bytes" 'BEGIN {printf "%.2f", n / s / 1e9}')
	k=$(median <"$T/ticks.$tool")
	c=$(awk -v k="$k" -v hz="$hz" -v n="$bytes" 'BEGIN {printf "%.3f", k / hz / (n / 1073741824)}')
	case $tool in
	cp) name="cp -a" ;; rsync) name="rsync -a" ;; *) name="rsync -a --inplace" ;;
	esac
	echo "| $name | $ga | $gb | $(ratio "$a" "$b") | $c |"
done
eval "echo \"raw seconds: cp tmpfs $tm_cp / famfs $fa_cp; rsync tmpfs $tm_rsync / famfs $fa_rsync; inplace tmpfs $tm_inplace / famfs $fa_inplace\""
