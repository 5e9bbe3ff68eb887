#!/bin/bash
# The main job, as `make demo` runs it on the embedded default: famfsd up,
# `famfs-cli apply examples/cluster.yaml` (4 emulated devices, one set, one
# filesystem, a master and a client FUSE mount, a dataset ingested from a
# loop-mounted XFS image), the files read back on the client mount, and a
# second apply that changes nothing.  Usage: scripts/demo-main.sh BUILD
set -euo pipefail
B=$(realpath "${1:-build}")
TOP=$(cd "$(dirname "$0")/.." && pwd)
CLI=$B/famfs-cli/famfs-cli
YAML=$TOP/examples/cluster.yaml
SOCK=/run/famfsd/famfsd.sock
SRV=/srv/famfs-demo
W=$(mktemp -d /tmp/famfs-demo.XXXXXX)
FAMFSD_PID=

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
cleanup() {
	set +e
	for m in /mnt/famfs-client /mnt/famfs; do
		mountpoint -q "$m" && fusermount3 -u "$m" 2>/dev/null
	done
	if [ -n "$FAMFSD_PID" ]; then kill -TERM "$FAMFSD_PID" 2>/dev/null; wait "$FAMFSD_PID" 2>/dev/null; fi
	for m in /mnt/famfs-client /mnt/famfs; do
		mountpoint -q "$m" && { fusermount3 -u -z "$m" 2>/dev/null || umount -l "$m"; }
	done
	mountpoint -q "$SRV" && umount "$SRV"
	rm -f /dev/shm/famfs-demo-emul[0-3] /dev/shm/famfs-demo-emul[0-3].uuid
	rm -rf "$W"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || { echo "make demo needs root (FUSE mounts, a loop-mounted XFS image)"; exit 1; }
if [ -S "$SOCK" ] && curl -s --unix-socket "$SOCK" http://famfsd/healthz >/dev/null 2>&1; then
	echo "a famfsd already answers on $SOCK; stop it first (the demo starts its own)"; exit 1
fi
for m in /mnt/famfs /mnt/famfs-client "$SRV"; do
	mountpoint -q "$m" && { echo "$m is mounted already; unmount it first"; exit 1; }
done
rm -f /dev/shm/famfs-demo-emul[0-3] /dev/shm/famfs-demo-emul[0-3].uuid

step "a dataset on a loop-mounted XFS image ($SRV)"
truncate -s 512M "$W/xfs.img"
mkfs.xfs -q "$W/xfs.img"
mkdir -p "$SRV" /mnt/famfs /mnt/famfs-client
mount -o loop "$W/xfs.img" "$SRV"
python3 - "$SRV/dataset" <<'PY'
import os, random, sys
root = sys.argv[1]; rnd = random.Random(7)
def w(p, n, mode=0o644):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f: f.write(rnd.randbytes(n))
    os.chmod(p, mode)
for i in range(200): w(f"{root}/shards/shard-{i:04d}.bin", rnd.randrange(4096, 256 << 10))
for i in range(4): w(f"{root}/weights/layer-{i}.safetensors", (24 << 20) + rnd.randrange(1 << 20))
w(f"{root}/config.json", 2048, 0o600)
PY
du -sh "$SRV/dataset"

step "famfsd (state in $W/state, socket $SOCK)"
mkdir -p /run/famfsd
"$B/famfsd/famfsd" --foreground --config /dev/null --state-dir "$W/state" --socket "$SOCK" \
	--plugin-dir "$B/plugins" --fused "$B/fused/famfs-fused" --host-name node0 \
	> "$W/famfsd.log" 2>&1 &
FAMFSD_PID=$!
for _ in $(seq 100); do curl -s --unix-socket "$SOCK" http://famfsd/healthz >/dev/null 2>&1 && break; sleep 0.1; done
curl -s --unix-socket "$SOCK" http://famfsd/healthz; echo
export FAMFS_HOST=$SOCK

step "famfs-cli validate + diff + apply examples/cluster.yaml"
"$CLI" validate "$YAML"
set +e; "$CLI" diff "$YAML"; rc=$?; set -e
[ $rc = 1 ] || { echo "diff should report changes (exit 1, as kubectl diff), got $rc"; exit 1; }
"$CLI" apply "$YAML"

step "what famfsd now has"
"$CLI" get devices
"$CLI" get sets
"$CLI" get filesystems
"$CLI" get mounts
"$CLI" get jobs

step "the ingest job, followed to its end"
"$CLI" job wait 1

step "the dataset, read back on the client mount"
diff -r "$SRV/dataset" /mnt/famfs-client/demo && echo "client mount: every file byte-identical"
python3 - "$SRV/dataset" /mnt/famfs-client/demo <<'PY'
import mmap, os, sys
src, dst = sys.argv[1:3]
n = 0
for dp, _, fns in os.walk(src):
    for f in fns:
        s = os.path.join(dp, f); d = os.path.join(dst, os.path.relpath(s, src))
        a, b = os.stat(s), os.stat(d)
        assert (a.st_size, a.st_mode, a.st_mtime_ns) == (b.st_size, b.st_mode, b.st_mtime_ns), d
        if b.st_size:
            with open(d, "rb") as fh, mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ) as m:
                assert m[:] == open(s, "rb").read(), d
        n += 1
print(f"client mount: {n} files equal through mmap too, with sizes, modes and mtimes")
PY
"$CLI" getmap /mnt/famfs-client/demo/weights/layer-0.safetensors
df -h /mnt/famfs-client; du -sh /mnt/famfs-client/demo

step "apply again: nothing to do"
"$CLI" apply "$YAML" | tee "$W/apply2.out"
grep -q "No changes" "$W/apply2.out"
step "demo done"
