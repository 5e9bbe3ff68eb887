#!/bin/sh
# bench/fuse/copy.sh BUILD_DIR [NFILES] [MIB]
#
# Copies NFILES (default 4) files of MIB (default 256) MiB of random data
# with `cp -a`, `rsync -a` and `rsync -a --inplace` (rsync writes a
# temporary file and renames it into place after closing it: one RENAME
# log entry since format 1.2; before, EXDEV made rsync copy every file a
# second time) into a directory on tmpfs (/dev/shm) and into a famfs-fused
# master mount of four emulated devices, in the same run: ROUNDS rounds
# (default 3), the copies interleaved in each round, medians. The time of
# a famfs copy includes every file's commit (at close). Prints GB/s and
# famfs / tmpfs for each tool (of the medians, and of the best rounds:
# a tmpfs copy is fast when the kernel hands it recently freed pages and
# 3-6x slower when the VM must fault them in from the host, and the
# median mixes both; famfs's devices are allocated once, at mkemul), and
# the CPU time famfs-fused spent per GiB copied (utime + stime from
# /proc: unlike wall time, it does not count the wait for a core on a
# loaded machine).
#
# Environment:
#   SRC=shm (default)  the source files on tmpfs (/dev/shm), warm: `cp -a`
#                      into tmpfs is then one in-kernel copy_file_range
#   SRC=xfs            the source files on a loop-mounted XFS image (the
#                      product's usual source; needs root): the image in
#                      XFS_DIR (default /tmp), read warm from XFS's page
#                      cache; copy_file_range out of XFS is EXDEV into
#                      tmpfs as well as into FUSE, so every tool reads and
#                      writes on both sides
#   FUSED=path         the famfs-fused to measure (default BUILD's)
#   FUSED_B=path       a second famfs-fused on its own filesystem and
#                      mount, copied to in every round beside the first
#                      (a paired A/B in one run: same neighbours); the
#                      two take turns at going first after tmpfs
#   TOOLS="cp rsync inplace"  the tools, in this order in each round
#   ROUNDS=3
set -eu
B=$(cd "$1" && pwd)
NFILES=${2:-4}
MIB=${3:-256}
SRC=${SRC:-shm}
FUSED=${FUSED:-$B/fused/famfs-fused}
FUSED_B=${FUSED_B:-}
TOOLS=${TOOLS:-cp rsync inplace}
ROUNDS=${ROUNDS:-3}
XFS_DIR=${XFS_DIR:-/tmp}
CLI=$B/famfs-cli/famfs-cli
T=$(mktemp -d /dev/shm/famfs-copybench.XXXXXX)
PIDS=""
IMG=""
LOOP=""

cleanup() {
	set +e
	for m in "$T/mnt" "$T/mntb"; do
		mountpoint -q "$m" && fusermount3 -u "$m"
	done
	for p in $PIDS; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	mountpoint -q "$T/xfs" && umount "$T/xfs"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$IMG" ] && rm -f "$IMG"
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { sort -g | head -n 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
now() { date +%s.%N; }

case $SRC in
shm)
	S=$T/src
	mkdir -p "$S"
	;;
xfs)
	[ "$(id -u)" -eq 0 ] || { echo "SRC=xfs needs root (losetup, mount)" >&2; exit 1; }
	IMG=$(mktemp "$XFS_DIR/famfs-copybench-xfs.XXXXXX")
	# mkfs.xfs wants at least 300 MiB; room for the files and the log
	img_mib=$((NFILES * MIB + NFILES * MIB / 8 + 128))
	[ "$img_mib" -ge 512 ] || img_mib=512
	truncate -s "${img_mib}M" "$IMG"
	mkfs.xfs -q -f "$IMG"
	LOOP=$(losetup -f --show "$IMG")
	mkdir -p "$T/xfs"
	mount -t xfs "$LOOP" "$T/xfs"
	S=$T/xfs/src
	mkdir -p "$S"
	;;
*)
	echo "SRC must be shm or xfs" >&2
	exit 1
	;;
esac
mkdir -p "$T/mnt"
i=0
while [ "$i" -lt "$NFILES" ]; do
	head -c $((MIB << 20)) /dev/urandom >"$S/f$i"
	i=$((i + 1))
done
[ "$SRC" = xfs ] && sync

# room for the files, a growing file's doubled reservation, and the
# previous build's copy of it (FUSED=)
per_dev=$(( (NFILES * MIB + 4 * MIB) / 4 + 64 ))MiB

# mount_famfs FUSED DIR: a fresh filesystem of four emulated devices
# (DIR.d0-3) and FUSED's master mount of it at DIR; prints its pid
mount_famfs() {
	devs="$2.d0 $2.d1 $2.d2 $2.d3"
	# shellcheck disable=SC2086
	"$CLI" mkemul --size "$per_dev" $devs >/dev/null
	# shellcheck disable=SC2086
	"$CLI" mkfs --log-size 16MiB $devs >/dev/null
	mkdir -p "$2"
	: >"$2.log"
	# shellcheck disable=SC2086
	"$1" $devs "$2" >"$2.log" 2>&1 &
	n=0
	until grep -q ready "$2.log"; do
		n=$((n + 1)); [ $n -lt 3000 ] || { cat "$2.log" >&2; exit 1; }
		sleep 0.01
	done
	echo $!
}
MPID=$(mount_famfs "$FUSED" "$T/mnt")
PIDS=$MPID
DESTS="tmpfs a"
if [ -n "$FUSED_B" ]; then
	BPID=$(mount_famfs "$FUSED_B" "$T/mntb")
	PIDS="$PIDS $BPID"
	DESTS="tmpfs a b"
fi

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# copy TOOL DEST: seconds for one copy of the source into a fresh
# directory on DEST (tmpfs, a or b); famfs-fused's CPU ticks for it
# appended to $T/ticks.TOOL.DEST
copy() {
	case $2 in
	tmpfs) d=$T/c$$.$(date +%N) ; p="" ;;
	a) d=$T/mnt/c$$.$(date +%N) ; p=$MPID ;;
	b) d=$T/mntb/c$$.$(date +%N) ; p=$BPID ;;
	esac
	cat "$S"/* >/dev/null # the source warm, as for the other side
	[ -z "$p" ] || k0=$(cpu_ticks "$p")
	t0=$(now)
	case $1 in
	cp) cp -a "$S" "$d" ;;
	rsync) rsync -a "$S/" "$d/" ;;
	inplace) rsync -a --inplace "$S/" "$d/" ;;
	esac
	t1=$(now)
	[ -z "$p" ] || echo "$(( $(cpu_ticks "$p") - k0 ))" >>"$T/ticks.$1.$2"
	rm -rf "$d"
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}'
}

bytes=$((NFILES * MIB << 20))
round=1
while [ "$round" -le "$ROUNDS" ]; do
	# a and b take turns at going first: the copy right after tmpfs's
	# was 14-27 % slower whichever build it was (2026-12-05 00:43)
	order=$DESTS
	[ -z "$FUSED_B" ] || [ $((round % 2)) -eq 1 ] || order="tmpfs b a"
	for tool in $TOOLS; do
		for dest in $order; do
			s=$(copy "$tool" "$dest")
			echo "$s" >>"$T/secs.$tool.$dest"
		done
	done
	round=$((round + 1))
done

hz=$(getconf CLK_TCK)
gbs() { awk -v s="$1" -v n="$bytes" 'BEGIN {printf "%.2f", n / s / 1e9}'; }
cpu() {
	k=$(median <"$T/ticks.$1.$2")
	awk -v k="$k" -v hz="$hz" -v n="$bytes" 'BEGIN {printf "%.3f", k / hz / (n / 1073741824)}'
}
echo "# copy into the master mount vs tmpfs ($NFILES x $MIB MiB from $SRC, median of $ROUNDS)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "famfs-fused a: $FUSED"
[ -z "$FUSED_B" ] || echo "famfs-fused b: $FUSED_B"
echo
if [ -z "$FUSED_B" ]; then
	echo "| tool | source | tmpfs GB/s | famfs master GB/s | famfs / tmpfs | best: famfs / tmpfs | famfs-fused CPU s per GiB |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
else
	echo "| tool | source | tmpfs GB/s | a GB/s | b GB/s | a / tmpfs | b / tmpfs | best: a / tmpfs | best: b / tmpfs | a CPU s/GiB | b CPU s/GiB |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
fi
for tool in $TOOLS; do
	case $tool in
	cp) name="cp -a" ;; rsync) name="rsync -a" ;; *) name="rsync -a --inplace" ;;
	esac
	t=$(median <"$T/secs.$tool.tmpfs")
	a=$(median <"$T/secs.$tool.a")
	tb=$(best <"$T/secs.$tool.tmpfs")
	ab=$(best <"$T/secs.$tool.a")
	if [ -z "$FUSED_B" ]; then
		echo "| $name | $SRC | $(gbs "$t") | $(gbs "$a") | $(ratio "$t" "$a") | $(ratio "$tb" "$ab") | $(cpu "$tool" a) |"
	else
		b=$(median <"$T/secs.$tool.b")
		bb=$(best <"$T/secs.$tool.b")
		echo "| $name | $SRC | $(gbs "$t") | $(gbs "$a") | $(gbs "$b") | $(ratio "$t" "$a") | $(ratio "$t" "$b") | $(ratio "$tb" "$ab") | $(ratio "$tb" "$bb") | $(cpu "$tool" a) | $(cpu "$tool" b) |"
	fi
done
echo
for tool in $TOOLS; do
	for dest in $DESTS; do
		echo "raw seconds $tool $dest: $(tr '\n' ' ' <"$T/secs.$tool.$dest")"
	done
done
