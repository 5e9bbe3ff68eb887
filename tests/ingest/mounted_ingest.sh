#!/bin/bash
# Ingest through a master FUSE mount, read back through a client FUSE mount
# (two famfs-fused processes, as two hosts would): every file byte-identical
# through read() and mmap(), with modes, owners and mtimes. SRC is argv 1.
SRC=$1
source "$(dirname "$0")/../famfsd/lib.sh"
# the tree on its XFS image is outside $T: allow it as a source
FAMFSD_TEST_PATHS+=(--set "paths.sources=$T:$SRC")
CLI=$FAMFS_CLI
start_famfsd --fused "$FAMFS_FUSED"
make_devices 4 256MiB
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1","emul2","emul3"],"chunk":"2MiB"}'
expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"8MiB"}'
expect 201
api POST /v1/mounts '{"name":"m","filesystem":"fs0","path":"'"$T"'/master","role":"master"}'
expect 201
api POST /v1/mounts '{"name":"c","filesystem":"fs0","path":"'"$T"'/client","role":"client"}'
expect 201
wait_for 10 "the master mount" mountpoint -q "$T/master"
wait_for 10 "the client mount" mountpoint -q "$T/client"

FAMFS_HOST=$SOCK $CLI ingest --wait --verify "$SRC" /data > "$T/ingest.out" 2>&1 \
	|| fail "ingest through the master mount: $(cat $T/ingest.out)"
pass "ingest through the master mount"
wait_for 30 "the ingested tree on the client" test -d "$T/client/data/odd"
python3 - "$SRC" "$T/client/data" <<'PY' || fail "client read-back"
import mmap, os, stat, sys
src, dst = sys.argv[1:3]
n = 0
for dp, dns, fns in os.walk(src):
    for name in dns + fns:
        s = os.path.join(dp, name); d = os.path.join(dst, os.path.relpath(s, src))
        a = os.lstat(s)
        if stat.S_ISLNK(a.st_mode):
            assert os.readlink(d) == os.readlink(s), "symlink target: " + d
            continue
        if not (stat.S_ISREG(a.st_mode) or stat.S_ISDIR(a.st_mode)):
            assert not os.path.lexists(d), "special file copied: " + d
            continue
        b = os.lstat(d)
        assert stat.S_IMODE(a.st_mode) == stat.S_IMODE(b.st_mode), (d, oct(a.st_mode), oct(b.st_mode))
        assert (a.st_uid, a.st_gid) == (b.st_uid, b.st_gid), d
        if stat.S_ISDIR(a.st_mode):
            continue
        assert a.st_size == b.st_size and a.st_mtime_ns == b.st_mtime_ns, d
        want = open(s, "rb").read()
        assert open(d, "rb").read() == want, "read() differs: " + d
        if want:
            with open(d, "rb") as f, mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
                assert m[:] == want, "mmap differs: " + d
        n += 1
assert n > 0, "no regular file in the source: the read-back proves nothing"
print("ok:", n, "files identical on the client through read() and mmap()")
PY
# the same again: nothing new in the log
before=$($CLI log -o json $T/dev0 $T/dev1 $T/dev2 $T/dev3 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')
FAMFS_HOST=$SOCK $CLI ingest --wait "$SRC" /data > "$T/again.out" 2>&1 || fail "second ingest: $(cat $T/again.out)"
after=$($CLI log -o json $T/dev0 $T/dev1 $T/dev2 $T/dev3 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')
[ "$before" = "$after" ] || fail "second ingest appended $((after - before)) entries"
pass "second ingest through the mount copies nothing"
# famfsd SIGKILLed mid-ingest through the mount: the FUSE servers live on,
# files being copied are discarded (never visible), the job resumes
famfsd_rchar; base=$RCHAR
FAMFS_HOST=$SOCK $CLI ingest --threads 1 "$SRC" /again > "$T/start.out" 2>&1 || fail "start: $(cat $T/start.out)"
job=$(sed -n 's/^ingest job \([0-9]*\) started.*/\1/p' "$T/start.out")
[ -n "$job" ] || fail "no job id: $(cat "$T/start.out")"
kill9_famfsd_reading "$base" $((1 << 20)) 120
state=$(sqlite3 "$STATE/famfsd.db" "SELECT state FROM jobs WHERE id=$job")
[ "$state" = running ] || fail "the job was $state, not running, when famfsd was killed"
pass "famfsd killed mid-ingest after reading $READ_AT_KILL bytes (through the master mount)"
# the client has replayed what the master holds (no bare sleep: a walk of
# a tree the client has not replayed yet would check nothing)
tree() { (cd "$1" && find . | sort); }
same_tree() { [ -d "$T/client/again" ] && [ "$(tree "$T/master/again")" = "$(tree "$T/client/again")" ]; }
wait_for 10 "the client to replay the master's /again" same_tree
python3 - "$SRC" "$T/client/again" <<'PY' || fail "a partial file is visible after the kill"
import os, sys
src, dst = sys.argv[1:3]
assert os.path.isdir(dst), dst + " is not on the client"
n = 0
for dp, _, fns in os.walk(dst):
    for f in fns:
        d = os.path.join(dp, f); s = os.path.join(src, os.path.relpath(d, dst))
        if os.path.islink(d):   # made before the files: its target may not be there yet
            assert os.readlink(d) == os.readlink(s), "symlink target: " + d
            continue
        assert open(d, "rb").read() == open(s, "rb").read(), "partial or wrong: " + d
        n += 1
print("ok:", n, "files visible after the kill, every one complete")
PY
start_famfsd --fused "$FAMFS_FUSED"
FAMFS_HOST=$SOCK $CLI job wait $job > "$T/wait.out" 2>&1 || fail "resumed job: $(cat $T/wait.out)"
diff -r "$SRC" "$T/client/again" > "$T/diff.out" 2>&1
grep -v -E "^Only in $SRC.*(link-inside|link-outside|a-fifo)" "$T/diff.out" | grep -q . &&
	fail "after the resume the client differs: $(head -5 $T/diff.out)"
pass "the job resumed after famfsd came back; the client has every file"
$CLI fsck -q "$T/master" > "$T/fsck.out" || fail "fsck on the mounted fs: $(cat $T/fsck.out)"
pass "fsck on the mounted filesystem is clean"
api DELETE /v1/mounts/c; expect 204
api DELETE /v1/mounts/m; expect 204
exit 0
