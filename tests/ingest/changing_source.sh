#!/bin/bash
# Ingest from a source that changes under it (docs/ingest.md, "A source
# that changes during the copy"). On a real loop-mounted XFS image a writer
# (fixed seed) rewrites files in place with pwrite, rewrites others with
# O_TRUNC and appends to others while `famfs-cli ingest` copies them; once
# the copy has begun one file is deleted and one directory renamed.
#  1. every file committed holds a state its source had (generation
#     markers in every 4 KiB block, changing_source.py check); every file
#     not committed is named ("changed while copying", "disappeared while
#     copying"); the exit status is 3;
#  2. a re-run (writer stopped, every changing file changed once more)
#     lists the files changed since they were ingested and exits 3;
#  3. with --update it converges: exit 0, every file equal to its source;
#  4. a third run copies nothing and exits 0;
#  5. files removed from the source are listed (exit 3); --delete removes
#     them from famfs; fsck is clean.
set -u
CLI=$FAMFS_CLI
PY=$(dirname "$0")/changing_source.py
W=$(mktemp -d /dev/shm/famfs-changing.XXXXXX)
MNT=$W/mnt
cleanup() {
	[ -n "${WP:-}" ] && kill "$WP" 2>/dev/null
	umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok: $*"; }

truncate -s 600M "$W/xfs.img"
mkfs.xfs -q "$W/xfs.img" || fail "mkfs.xfs"
mkdir "$MNT" && mount -o loop "$W/xfs.img" "$MNT" || fail "loop mount of XFS"
SRC=$MNT/tree
python3 "$PY" make "$SRC" || fail "making the tree"
$CLI mkemul --size 512MiB "$W/d0" "$W/d1" >/dev/null || fail "mkemul"
$CLI mkfs --log-size 8MiB "$W/d0" "$W/d1" >/dev/null || fail "mkfs"
DEVS=(-d "$W/d0" -d "$W/d1")
ingest() { $CLI ingest "${DEVS[@]}" --manifest "$W/m.db" "$@" "$SRC" /x; }
check() { python3 "$PY" check "$SRC" "$CLI" "${DEVS[@]}" /x "$@"; }

# 1. the writer changes files while they are copied
python3 "$PY" write "$SRC" 34 > "$W/writer.out" & WP=$!
sleep 0.5
# the ingest starts once the disrupter watches its pid (the same after exec)
mkfifo "$W/go"
( read -r _ < "$W/go"; exec $CLI ingest "${DEVS[@]}" --manifest "$W/m.db" \
	--threads 1 "$SRC" /x > "$W/run1.out" 2> "$W/run1.err" ) & IP=$!
python3 "$PY" disrupt "$SRC" "$IP" "$W/go" > "$W/disrupt.out" & DP=$!
wait "$IP"; rc=$?
kill "$WP"; wait "$WP"; WP=
wait "$DP" || fail "the disruption did not happen: $(cat "$W/disrupt.out")"
cat "$W/writer.out" "$W/disrupt.out" "$W/run1.out"
grep -v '^ingest: \(done\|[0-9.]* \)' "$W/run1.err" | head -40
[ "$rc" = 3 ] || fail "first run: exit $rc, not 3 (files were not committed): $(cat "$W/run1.err")"
grep -q "victims/gone.bin: disappeared while copying" "$W/run1.err" ||
	fail "the deleted file is not reported"
grep -q "moving/s010.bin: disappeared while copying" "$W/run1.err" ||
	fail "the files of the renamed directory are not reported"
check "$W/run1.err" || fail "a committed file holds a state its source never had"
read -r rewritten retried refused < <(sed -n \
	's/^\([0-9]*\) changed while copying: \([0-9]*\) copies made again, \([0-9]*\) not committed$/\1 \2 \3/p' \
	"$W/run1.out")
[ -n "${refused:-}" ] || fail "no 'changed while copying' line in: $(cat "$W/run1.out")"
listed=$(grep -c ': \(changed\|disappeared\) while copying' "$W/run1.err")
[ "$listed" = "$refused" ] || fail "$refused files not committed, $listed named"
pass "writer run: $rewritten files changed during the ingest, $retried copies made again, $refused not committed (named, exit 3)"

# 2. without --update a changed source is listed, exit 3
python3 "$PY" touch "$SRC"
ingest > "$W/run2.out" 2> "$W/run2.err"; rc=$?
[ "$rc" = 3 ] || fail "re-run over a changed source: exit $rc, not 3"
grep -q "files changed at the source since they were ingested" "$W/run2.err" ||
	fail "re-run does not list the changed files: $(cat "$W/run2.err")"
changed=$(sed -n 's/^ingest: \([0-9]*\) files changed at the source.*/\1/p' "$W/run2.err")
if [ "$changed" -gt 20 ]; then
	grep -q "^  \.\.\. and $((changed - 20)) more$" "$W/run2.err" ||
		fail "more than 20 changed files without a count: $(cat "$W/run2.err")"
fi
pass "re-run lists $changed files changed at the source (first 20), exit 3"

# 3. --update converges: each changed file copied anew, renamed over
ingest --update > "$W/run3.out" 2> "$W/run3.err"; rc=$?
[ "$rc" = 0 ] || fail "--update: exit $rc: $(cat "$W/run3.err")"
: > "$W/none"
check "$W/none" exact || fail "after --update famfs differs from the source"
$CLI log -o json "$W/d0" "$W/d1" | grep -q '"RENAME"\|"rename"' ||
	fail "--update appended no RENAME entry"
pass "--update: $(head -1 "$W/run3.out")"

# 4. nothing left to do
ingest > "$W/run4.out" 2> "$W/run4.err"; rc=$?
[ "$rc" = 0 ] || fail "third run: exit $rc: $(cat "$W/run4.err")"
grep -q "^0 copied, " "$W/run4.out" || fail "third run copied: $(cat "$W/run4.out")"
pass "third run copies nothing, exit 0"

# 5. files removed from the source: reported (exit 3), --delete removes them
rm "$SRC/static/f002.bin"; mv "$SRC/rewrite" "$SRC/rewritten"
ingest > "$W/run5.out" 2> "$W/run5.err"; rc=$?
[ "$rc" = 3 ] || fail "removed source files: exit $rc, not 3: $(cat "$W/run5.err")"
grep -q "^ingest: 25 files removed from the source since they were ingested" "$W/run5.err" ||
	fail "the 25 removed files are not reported: $(cat "$W/run5.err")"
grep -q "^  rewrite/f020.bin$" "$W/run5.err" && grep -q "^  ... and 5 more$" "$W/run5.err" ||
	fail "the removed files are not named (first 20, then a count)"
$CLI cat "${DEVS[@]}" /x/static/f002.bin > /dev/null 2>&1 || fail "kept file is gone without --delete"
ingest --delete > "$W/run6.out" 2> "$W/run6.err"; rc=$?
[ "$rc" = 0 ] || fail "--delete: exit $rc: $(cat "$W/run6.err")"
grep -q "^25 removed from the source, 25 deleted from famfs$" "$W/run6.out" ||
	fail "--delete did not delete the 25 files: $(cat "$W/run6.out")"
$CLI cat "${DEVS[@]}" /x/static/f002.bin > /dev/null 2>&1 && fail "--delete left static/f002.bin"
ingest > "$W/run7.out" 2> "$W/run7.err"; rc=$?
[ "$rc" = 0 ] && grep -q "^0 copied, " "$W/run7.out" || fail "after --delete: exit $rc: $(cat "$W/run7.out" "$W/run7.err")"
$CLI fsck -q "$W/d0" "$W/d1" > "$W/fsck.out" || fail "fsck: $(cat "$W/fsck.out")"
pass "removed files reported (exit 3), --delete removes them, then exit 0; fsck clean"
