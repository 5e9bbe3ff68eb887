#!/bin/sh
# fuse_bad_input_refused: a missing, too-small or corrupt device, a missing
# mount point and a second master of the same filesystem are each refused
# with a clear message, exit status 1, no mount, and no byte changed.
# usage: bad_input.sh FAMFS_FUSED FAMFS_CLI TESTUTIL
FUSED=$1 CLI=$2 UTIL=$3
. "$(dirname "$0")/lib.sh"

make_fs 2 64MiB
M=$T/mnt
mkdir -p "$M"
sums() { sha256sum "$@" | cut -d' ' -f1 | tr '\n' ' '; }

# refuse WHAT EXPECTED-MESSAGE-REGEX DEV...: must fail before mounting
refuse() {
	what=$1 want=$2
	shift 2
	before=$(sums "$@" 2>/dev/null || true)
	if "$FUSED" "$@" "$M" >"$T/out" 2>&1; then
		die "$what: famfs-fused accepted it"
	fi
	! mountpoint -q "$M" || die "$what: left a mount behind"
	grep -Eq "$want" "$T/out" || die "$what: unclear message: $(cat "$T/out")"
	after=$(sums "$@" 2>/dev/null || true)
	[ "$before" = "$after" ] || die "$what: a device changed"
	ok "$what refused: $(head -1 "$T/out")"
}

refuse "missing device" "$T/nope.*(No such file|not found|cannot)" \
	"$T/dev0" "$T/nope"
refuse "one of two devices not given" "device 1 of 2.*missing" "$T/dev0"

cp "$T/dev1" "$T/small1"
truncate -s 32M "$T/small1"
refuse "too-small device" "small1.*(bytes|small|size)" "$T/dev0" "$T/small1"
head -c 4096 /dev/zero >"$T/tiny"
refuse "4 KiB device" "tiny" "$T/tiny" "$T/dev1"

cp "$T/dev0" "$T/bad0"
# the log header of device 0 (superblock log_offset = 2 MiB)
printf 'garbage!garbage!' | dd of="$T/bad0" bs=1 seek=$((2097152 + 64)) \
	conv=notrunc status=none
refuse "corrupt log header" "log header.*corrupt" "$T/bad0" "$T/dev1"
cp "$T/dev0" "$T/nolabel0"
dd if=/dev/zero of="$T/nolabel0" bs=4096 count=1 conv=notrunc status=none
refuse "device without a famfs label" "label" "$T/nolabel0" "$T/dev1"
if "$FUSED" "$T/dev0" "$T/dev1" "$T/no-such-dir" >"$T/out" 2>&1; then
	die "missing mount point accepted"
fi
grep -q "no-such-dir" "$T/out" || die "missing mount point: $(cat "$T/out")"
ok "missing mount point refused"

# a second master of the same filesystem
DEVS="$T/dev0 $T/dev1"
mount_fs master "$M"
MPID=$LAST_PID
"$UTIL" write 1 100000 "$M/before" seq || die "write on the first master"
ls -1A "$M" >"$T/ls.before"
mkdir -p "$T/mnt2"
if "$FUSED" $DEVS "$T/mnt2" >"$T/out" 2>&1; then
	die "a second master mount was accepted"
fi
! mountpoint -q "$T/mnt2" || die "second master left a mount"
grep -q "already open for writing" "$T/out" || die "second master: $(cat "$T/out")"
ok "second master refused: $(head -1 "$T/out")"
ls -1A "$M" >"$T/ls.after"
cmp -s "$T/ls.before" "$T/ls.after" || die "the first master's tree changed"
"$UTIL" write 2 5000 "$M/after" seq || die "first master stopped working"
"$UTIL" verify 1 100000 "$M/before" || die "first master's data changed"
umount_fs "$M" "$MPID"
"$CLI" fsck -q $DEVS || die "fsck"
ok "the first master kept working; fsck clean"
