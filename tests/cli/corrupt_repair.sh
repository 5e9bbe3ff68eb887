#!/bin/sh
# A corrupt committed entry end to end (docs/format.md "The committed
# tail"): ingest 100 small files (group commit: BATCH entries of up to 64),
# flip one byte inside the last batch (N files): fsck reports corruption
# (exit 4) naming the seqs and the lost paths, a FUSE mount is refused
# unless --force, `fsck --repair` lists the N files it drops and ends the
# log, and re-running the ingest copies exactly those N files again (the
# manifest sees them missing; the others keep their maps).
# Usage: corrupt_repair.sh FAMFS_CLI [FAMFS_FUSED]
set -u
CLI=$1
FUSED=${2:-}
. "$(dirname "$0")/lib.sh"
cli_workdir corrupt
expect() {
	want=$1; what=$2; shift 2
	"$@" > "$W/out" 2> "$W/err"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$what (rc $rc)"; else bad "$what: rc $rc, want $want: $(cat "$W/out" "$W/err" | tail -5)"; fi
}
says() {
	cat "$W/out" "$W/err" | grep -q -- "$1" && ok "  ... says '$1'" || bad "  lacks '$1': $(cat "$W/out" "$W/err" | head -20)"
}

$CLI mkemul --size 64MiB "$W/d0" >/dev/null || exit 1
$CLI mkfs --log-size 4MiB "$W/d0" >/dev/null || exit 1
mkdir -p "$W/src"
i=0
while [ $i -lt 100 ]; do
	printf 'file %d\n' $i > "$W/src/f$(printf %03d $i)"
	i=$((i + 1))
done
ingest() { $CLI ingest -d "$W/d0" -m "$W/man.db" -t 2 "$W/src" /data; }
expect 0 "ingest 100 files" ingest
expect 0 "fsck clean after the ingest" $CLI fsck "$W/d0"

# the last entry of the log: walk it, then flip a byte in its middle
python3 - "$W/d0" > "$W/last" <<'PY' || bad "finding the last entry"
import struct, sys
f = open(sys.argv[1], "r+b")
base, off, last = 2 << 20, 4096, None
while True:
    f.seek(base + off)
    h = f.read(40)
    magic, crc, seq, tag, ln, typ = struct.unpack("<IIQQIH", h[:30])
    if magic != 0x31454c46 or ln < 40:
        break
    last = (off, ln, seq, typ)
    off += ln
off, ln, seq, typ = last
f.seek(base + off + ln // 2)
b = f.read(1)
f.seek(base + off + ln // 2)
f.write(bytes([b[0] ^ 0x10]))
f.seek(base + off + 40)
count = struct.unpack("<I", f.read(4))[0]
print(seq, typ, count)
PY
read seq typ nb < "$W/last"
[ "$typ" = 6 ] && ok "the last entry is a BATCH (seq $seq, $nb files)" || bad "last entry type $typ"
keep=$((100 - nb))

expect 4 "fsck: a flipped byte in the last committed entry is corruption" $CLI fsck "$W/d0"
says "error: log: committed seq $seq.."
says "lost: seq"
says "lost: seq $((seq + 1)): /data/f"
says "NOT CLEAN"
grep -q "warning: log: torn" "$W/out" && bad "  reported as a torn append" || ok "  ... not called a torn append"
expect 0 "ls still shows the files before it" $CLI ls -d "$W/d0" /data
n=$(grep -c "f0" "$W/out")
[ "$n" = $keep ] && ok "  ... $keep files" || bad "  ls shows $n files, want $keep"
kept=$(grep -o "f0[0-9][0-9]" "$W/out" | head -1)
$CLI getmap -d "$W/d0" -o json "/data/$kept" > "$W/map.before"
expect 1 "a master append is refused" $CLI mkdir -d "$W/d0" /new
says "fsck --repair"

if [ -n "$FUSED" ] && [ -e /dev/fuse ]; then
	mkdir -p "$W/mnt"
	expect 1 "a new FUSE mount of it is refused" timeout 20 "$FUSED" "$W/d0" "$W/mnt"
	says "refusing to mount"
	says "/data/f"
fi

expect 16 "fsck --repair on a mountpoint is a usage error" $CLI fsck --repair "$W/src"
expect 0 "fsck --repair" $CLI fsck --repair "$W/d0"
says "repair: drops committed seq $seq.."
says "repair: drops seq $((seq + 1)): /data/f"
says "the log ends at seq $((seq - 1))"
grep "repair: drops seq" "$W/out" | sed 's/.*: //' | sort > "$W/dropped"
drops=$(wc -l < "$W/dropped")
[ "$drops" = "$nb" ] && ok "  ... lists the $nb dropped files" || bad "  lists $drops dropped files, want $nb"
says "clean: 0 error(s), 0 warning(s)"
expect 0 "fsck clean after the repair" $CLI fsck "$W/d0"

expect 0 "ingest again" ingest
cat "$W/out" "$W/err" > "$W/ingest2"
python3 - "$W/man.db" <<'PY' && ok "  ... the manifest records all 100" || bad "  manifest"
import sqlite3, sys
n = sqlite3.connect(sys.argv[1]).execute(
    "SELECT count(*) FROM ingest_manifest WHERE state = 1").fetchone()[0]
sys.exit(0 if n == 100 else 1)
PY
$CLI getmap -d "$W/d0" -o json "/data/$kept" > "$W/map.after"
cmp -s "$W/map.before" "$W/map.after" && ok "  ... a kept file was not copied again" || bad "  $kept was copied again"
python3 - "$W/d0" "$W/dropped" "$seq" <<'PY' && ok "  ... it appended exactly the $nb dropped files" || bad "  appended other files"
import struct, sys
f = open(sys.argv[1], "rb")
want = sorted(open(sys.argv[2]).read().split())
base, off, got, first = 2 << 20, 4096, [], int(sys.argv[3])
while True:
    f.seek(base + off)
    h = f.read(48)
    magic, crc, seq, tag, ln, typ = struct.unpack("<IIQQIH", h[:30])
    if magic != 0x31454c46 or ln < 40:
        break
    f.seek(base + off)
    e = f.read(ln)
    if seq >= first:  # the entries after the repair's end: the re-ingest's
        subs = [e]
        if typ == 6:
            subs, o = [], 48
            while o < ln:
                il = struct.unpack("<I", e[o + 24:o + 28])[0]
                subs.append(e[o:o + il])
                o += il
        for s in subs:
            if struct.unpack("<H", s[28:30])[0] == 1:
                nitems = struct.unpack("<H", s[40 + 38:40 + 40])[0]
                plen = struct.unpack("<H", s[40 + 48:40 + 50])[0]
                p = 40 + 56 + 24 * nitems
                got.append(s[p:p + plen].decode())
    off += ln
sys.exit(0 if sorted(got) == want else 1)
PY
expect 0 "every file is back" $CLI ls -d "$W/d0" /data
n=$(grep -c "f0" "$W/out")
[ "$n" = 100 ] && ok "  ... 100 files" || bad "  ls shows $n files, want 100"
expect 0 "f099 reads back" $CLI cat -d "$W/d0" /data/f099
says "file 99"
expect 0 "fsck clean at the end" $CLI fsck "$W/d0"
cli_tally
