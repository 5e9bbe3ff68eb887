#!/bin/bash
# famfsd's ingest job end to end: a real famfsd, a real XFS source (argv 1),
# famfs-cli ingest --wait; famfsd SIGKILLed mid-ingest resumes by itself on
# restart; bad input is refused with a clear error and nothing visible.
SRC=$1
source "$(dirname "$0")/../famfsd/lib.sh"
# the tree on its XFS image is outside $T: allow it as a source
FAMFSD_TEST_PATHS+=(--set "paths.sources=$T:$SRC")
CLI=$FAMFS_CLI
start_famfsd
make_devices 4 512MiB
api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1","emul2","emul3"],"chunk":"2MiB"}'
expect 201
api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"8MiB"}'
expect 201
DEVS="-d $T/dev0 -d $T/dev1 -d $T/dev2 -d $T/dev3"

# bad input first: nothing may appear
# (inside paths.sources: a source outside it is 403, famfsd_allowed_paths)
api POST /v1/jobs '{"kind":"ingest","params":{"source":"'"$T"'/no/such/dir","dest":"/x"}}'
expect 400 invalid_value
echo "$BODY" | grep -q "$T/no/such/dir" || fail "missing source not named: $BODY"
api POST /v1/jobs '{"kind":"ingest","params":{"source":"'"$SRC"'","dest":"/x","bogus":1}}'
expect 400
api POST /v1/jobs '{"kind":"ingest","params":{"source":"relative","dest":"/x"}}'
expect 400 invalid_value
pass "bad ingest params refused"

# start, then SIGKILL famfsd while it copies: once it has read 1 MiB of
# the source (the largest files go first), and the job is still running
famfsd_rchar; base=$RCHAR
FAMFS_HOST=$SOCK $CLI ingest --threads 1 --verify "$SRC" /data > "$T/start.out" 2>&1 || fail "ingest start: $(cat $T/start.out)"
job=$(sed -n 's/^ingest job \([0-9]*\) started.*/\1/p' "$T/start.out")
[ -n "$job" ] || fail "no job id: $(cat $T/start.out)"
kill9_famfsd_reading "$base" $((1 << 20)) 120
state=$(sqlite3 "$STATE/famfsd.db" "SELECT state FROM jobs WHERE id=$job")
[ "$state" = running ] || fail "the job was $state, not running, when famfsd was killed"
pass "famfsd killed mid-ingest after reading $READ_AT_KILL bytes"
# what is visible now is complete: fsck clean, and every file's bytes match
$CLI fsck -q $T/dev0 $T/dev1 $T/dev2 $T/dev3 > "$T/fsck.out" || fail "fsck after kill: $(cat $T/fsck.out)"
start_famfsd
FAMFS_HOST=$SOCK $CLI job wait $job > "$T/wait.out" 2>&1 || fail "resumed job did not succeed: $(cat $T/wait.out)"
pass "the job resumed by itself and succeeded"
api GET /v1/jobs/$job
[ "$(jq_get "$BODY" .progress.files_done)" = "$(jq_get "$BODY" .progress.files_total)" ] &&
[ "$(jq_get "$BODY" .progress.bytes_done)" = "$(jq_get "$BODY" .progress.bytes_total)" ] ||
	fail "the finished job's progress is not complete: $BODY"
pass "the job's final progress is complete"

# every file byte-identical, with mode, owner and mtime
python3 - "$SRC" "$CLI" "$T" <<'PY' || fail "read back"
import os, stat, subprocess, sys, json
src, cli, t = sys.argv[1:4]
devs = sum([["-d", f"{t}/dev{i}"] for i in range(4)], [])
tree = json.loads(subprocess.check_output([cli, "ls", *devs, "-o", "json", "/data"]))
def walk(node, rel):
    yield rel, node
    for c in node.get("children", []):
        yield from walk(c, f"{rel}/{c['name']}" if rel else c["name"])
have = dict(walk(tree, ""))
n = 0
for dp, dns, fns in os.walk(src):
    for f in fns:
        p = os.path.join(dp, f); rel = os.path.relpath(p, src); st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):    # kept, its target verbatim
            assert have[rel].get("target") == os.readlink(p), (rel, have[rel]); continue
        if not stat.S_ISREG(st.st_mode):
            assert rel not in have, rel; continue
        node = have[rel]
        assert node["size"] == st.st_size and node["mode"] == stat.S_IMODE(st.st_mode), rel
        assert node["uid"] == st.st_uid and node["gid"] == st.st_gid, rel
        assert node["mtime_ns"] == st.st_mtime_ns, rel
        data = subprocess.check_output([cli, "cat", *devs, "/data/" + rel])
        assert data == open(p, "rb").read(), rel
        n += 1
assert n > 0, "no regular file in the source: the read-back proves nothing"
print("ok:", n, "files identical")
PY
# a second ingest copies nothing: the log does not grow
entries() { $CLI log -o json $T/dev0 $T/dev1 $T/dev2 $T/dev3 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))'; }
before=$(entries)
FAMFS_HOST=$SOCK $CLI ingest --wait "$SRC" /data > "$T/again.out" 2>&1 || fail "second ingest: $(cat $T/again.out)"
[ "$(entries)" = "$before" ] || fail "a second ingest of an unchanged tree wrote entries"
pass "second ingest of an unchanged tree copies nothing ($before log entries)"

# a source file changes after the ingest: the re-run's job fails "source
# changed:" naming it and famfs-cli exits 3; --update replaces it, exit 0
f=$(cd "$SRC" && find . -type f -size -64k | grep -m1 '^\./[a-z0-9/._-]*$'); f=${f#./}
[ -n "$f" ] || fail "no small file with a plain name in the source"
echo "changed after the ingest" >> "$SRC/$f"
FAMFS_HOST=$SOCK $CLI ingest --wait "$SRC" /data > "$T/changed.out" 2>&1; rc=$?
[ "$rc" = 3 ] || fail "re-run over a changed file: exit $rc, not 3: $(cat "$T/changed.out")"
grep -q "source changed: .*$f" "$T/changed.out" || fail "the job does not name $f: $(cat "$T/changed.out")"
FAMFS_HOST=$SOCK $CLI ingest --update --wait "$SRC" /data > "$T/update.out" 2>&1 ||
	fail "--update: $(cat "$T/update.out")"
$CLI cat $DEVS "/data/$f" | cmp -s - "$SRC/$f" || fail "--update did not replace $f"
pass "a changed source file: the job fails naming it (exit 3); --update replaces it"
exit 0
