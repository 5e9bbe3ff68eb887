#!/bin/bash
# killmatrix_famfs_cli: SIGKILL famfs-cli at every kill point of mkfs,
# create (and the log append under it) and offline ingest (and the batch
# commit under it); then fsck is clean, nothing committed before the kill
# is lost, no partial file is visible, and re-running the command
# converges. Every FAMFS_KILL_POINT in the sources must be hit, so a point
# that is never reached fails the matrix.
# Usage: killmatrix.sh FAMFS_CLI_KP SOURCE_DIR
set -u
CLI=$1
SRC=$2
W=$(mktemp -d "${TMPDIR:-/dev/shm}/killmatrix.XXXXXX")
trap 'rm -rf "$W"' EXIT
D0=$W/d0 D1=$W/d1
DEVS="-d $D0 -d $D1"
cases=0 passed=0 fails=0 covered=""
note() { printf '%s\n' "$*"; }
bad() { printf 'FAIL %s: %s\n' "$CASE" "$*"; ok=0; }

# The points lib/ and ingest/ define: the matrix must hit each one
# (famfsd/ and famfs-cli/ points: killmatrix_famfsd.sh).
all_points=$(grep -rhoE --include="*.c" 'FAMFS_KILL_POINT\("[a-z_.]+"\)' "$SRC/lib" "$SRC/ingest" |
	sed -E 's/.*\("(.*)"\)/\1/' | sort -u)

cli() { "$CLI" "$@"; }
fresh_devices() { rm -f "$D0" "$D1" "$W"/man.db*; cli mkemul --size 16MiB "$D0" "$D1" >/dev/null; }
fresh_fs() { fresh_devices && cli mkfs --log-size 2MiB "$D0" "$D1" >/dev/null; }
fsck_clean() {
	cli fsck -q "$D0" "$D1" > "$W/fsck" 2>&1 || { bad "fsck not clean: $(cat "$W/fsck")"; return 1; }
}
# same_content PATH FILE: the famfs file PATH holds exactly FILE's bytes
same_content() { cli cat $DEVS "$1" 2>/dev/null | cmp -s - "$2"; }
present() { cli cat $DEVS "$1" >/dev/null 2>&1; }

# killed POINT[:N] CMD...: CMD must die by SIGKILL at exactly that point.
killed() {
	local at=$1 rc
	shift
	FAMFS_KILL_AT=$at "$@" > "$W/out" 2> "$W/err"
	rc=$?
	if [ "$rc" != 137 ] || ! grep -q "famfs kill point ${at%%:*}:" "$W/err"; then
		bad "not killed at $at (rc $rc): $(tail -3 "$W/err")"
		return 1
	fi
	covered="$covered ${at%%:*}"
}

begin() { CASE=$1; ok=1; cases=$((cases + 1)); }
end() {
	if [ "$ok" = 1 ]; then passed=$((passed + 1)); note "ok   $CASE"
	else fails=$((fails + 1)); fi
}

head -c 300000 /dev/urandom > "$W/f1"
head -c 2500000 /dev/urandom > "$W/f2"
head -c 100000 /dev/zero > "$W/zero"

# ---- mkfs: a kill before the primary superblock leaves no filesystem
# fsck accepts; mkfs again (--force once labels are there) makes one.
mkfs_case() {
	begin "mkfs $1"
	fresh_devices
	killed "$1" cli mkfs --log-size 2MiB "$D0" "$D1" || { end; return; }
	if [ "${1%%:*}" = mkfs.sb_written ]; then
		fsck_clean
	else
		cli fsck -q "$D0" "$D1" >/dev/null 2>&1 &&
			bad "fsck accepts a filesystem whose mkfs died before the superblock"
		if ! cli mkfs --log-size 2MiB "$D0" "$D1" >/dev/null 2>"$W/err"; then
			grep -q "already holds famfs" "$W/err" || bad "mkfs again: $(cat "$W/err")"
			cli mkfs --force --log-size 2MiB "$D0" "$D1" >/dev/null ||
				bad "mkfs --force after the kill failed"
		fi
	fi
	cli create $DEVS --from "$W/f1" /after >/dev/null || bad "create after the kill"
	same_content /after "$W/f1" || bad "/after reads back wrong"
	fsck_clean
	end
}
for p in mkfs.old_sb_cleared mkfs.label_written:1 mkfs.label_written:2 \
	 mkfs.slots_cleared mkfs.log_written mkfs.backup_sb_written mkfs.sb_written; do
	mkfs_case $p
done

# ---- create: /a was reported committed and must survive; /b is either
# absent or whole (never partial); before the CRC is stored it is absent,
# from then on present. Creating again converges and fsck stays clean.
create_case() {
	local at=$1 mode=$2 want=$3 b=$W/f2
	begin "create($mode) $at"
	fresh_fs
	cli create $DEVS --from "$W/f1" /a >/dev/null || { bad "setup create /a"; end; return; }
	if [ "$mode" = from ]; then
		killed "$at" cli create $DEVS --from "$W/f2" /b || { end; return; }
	else
		b=$W/zero
		killed "$at" cli create $DEVS --size 100000 /b || { end; return; }
	fi
	fsck_clean
	same_content /a "$W/f1" || bad "committed /a lost or changed"
	if present /b; then
		same_content /b "$b" || bad "/b visible but not whole"
		[ "$want" = present ] || bad "/b visible though killed before its CRC"
	else
		[ "$want" = absent ] || bad "/b lost though its CRC was stored"
		if [ "$mode" = from ]; then cli create $DEVS --from "$W/f2" /b >/dev/null
		else cli create $DEVS --size 100000 /b >/dev/null; fi || bad "create /b again"
		same_content /b "$b" || bad "/b created again reads back wrong"
	fi
	cli create $DEVS --from "$W/f1" /c >/dev/null || bad "create /c after the kill"
	same_content /c "$W/f1" || bad "/c reads back wrong"
	same_content /a "$W/f1" || bad "/a changed by later creates"
	fsck_clean
	end
}
create_case create.allocated size absent
create_case create.data_written size absent
create_case log.entry_built from absent
create_case log.body_flushed from absent
create_case log.crc_stored from present
create_case log.header_flushed from present
# between the append and its committed-tail record: the entry is valid
# past the recorded tail, replayed, and the next append records the tail
create_case log.tailrec_pending from present
create_case log.entry_built size absent

# ---- offline ingest: every file the manifest records is present and
# whole; every visible file is whole; re-running resumes and finishes.
S=$W/src
mkdir -p "$S/sub"
head -c 4096 /dev/urandom > "$S/small"
head -c 700000 /dev/urandom > "$S/mid"
head -c 2300000 /dev/urandom > "$S/sub/big"
head -c 10 /dev/urandom > "$S/sub/tiny"
: > "$S/empty"
files="small mid sub/big sub/tiny empty"
ingest() { cli ingest $DEVS -m "$W/man.db" -t 1 "$S" /data; }
check_ingested() {
	local f rec
	rec=$(sqlite3 "$W/man.db" "SELECT rel FROM ingest_manifest WHERE state = 1" 2>/dev/null)
	for f in $rec; do
		same_content "/data/$f" "$S/$f" || bad "manifest records $f, famfs lacks it whole"
	done
	for f in $files; do
		if present "/data/$f"; then
			same_content "/data/$f" "$S/$f" || bad "/data/$f visible but not whole"
		fi
	done
}
ingest_case() {
	begin "ingest $1"
	fresh_fs
	killed "$1" ingest || { end; return; }
	fsck_clean
	check_ingested
	ingest > "$W/out" 2>&1 || bad "ingest re-run (resume): $(tail -3 "$W/out")"
	fsck_clean
	for f in $files; do
		same_content "/data/$f" "$S/$f" || bad "after resume /data/$f is not whole"
	done
	n=$(sqlite3 "$W/man.db" "SELECT count(*) FROM ingest_manifest WHERE state = 1")
	[ "$n" = 5 ] || bad "after resume the manifest records $n of 5 files"
	end
}
for p in ingest.copied:1 ingest.copied:4 batch.inner_built:2 batch.header_built \
	 log.body_flushed:3 log.crc_stored:3 ingest.committed:2 ingest.manifest_put:1 \
	 ingest.manifest_put:4; do
	ingest_case $p
done

# ---- coverage: no point in the sources left untested
missing=""
for p in $all_points; do
	case " $covered " in *" $p "*) ;; *) missing="$missing $p" ;; esac
done
npoints=$(echo $all_points | wc -w)
if [ -n "$missing" ]; then
	note "FAIL points never killed at:$missing"
	fails=$((fails + 1))
fi
note "kill matrix: $npoints points, $cases cases, $passed passed"
[ "$fails" = 0 ]
