#!/bin/bash
# An unreadable source file or directory: ingest refuses before copying
# anything, naming it; the filesystem is left as it was. Runs the ingest as
# an unprivileged user (root reads everything). SRC (argv 1) is on XFS.
set -u
SRC=$1; CLI=$FAMFS_CLI
W=$(mktemp -d /dev/shm/famfs-unreadable.XXXXXX); trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
$CLI mkemul --size 128MiB "$W/d0" "$W/d1" >/dev/null
$CLI mkfs --log-size 4MiB "$W/d0" "$W/d1" >/dev/null
chmod 666 "$W/d0" "$W/d1"; chmod 777 "$W"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
entries() { $CLI log -o json "$W/d0" "$W/d1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))'; }

chmod -R a+rX "$SRC"
d=$SRC; while d=$(dirname "$d"); [ "$d" != / ]; do chmod a+x "$d"; done
chmod 000 "$SRC/medium/m3.bin"
before=$(entries)
out=$(as_nobody $CLI ingest -d "$W/d0" -d "$W/d1" --manifest "$W/m.db" "$SRC" /x 2>&1) && fail "ingest of an unreadable file succeeded"
grep -q "medium/m3.bin: not readable" <<<"$out" || fail "the unreadable file is not named: $out"
[ "$(entries)" = "$before" ] || fail "a refused ingest wrote to the log"
echo "ok: unreadable file refused before copying, named: $(grep -o 'source [^:]*: not readable' <<<"$out")"

chmod 644 "$SRC/medium/m3.bin"; chmod 000 "$SRC/odd"
out=$(as_nobody $CLI ingest -d "$W/d0" -d "$W/d1" --manifest "$W/m.db" "$SRC" /x 2>&1) && fail "ingest of an unreadable directory succeeded"
grep -q "odd" <<<"$out" || fail "the unreadable directory is not named: $out"
[ "$(entries)" = "$before" ] || fail "a refused ingest wrote to the log"
echo "ok: unreadable directory refused, named"
chmod 755 "$SRC/odd"
as_nobody $CLI ingest -d "$W/d0" -d "$W/d1" --manifest "$W/m.db" "$SRC" /x >/dev/null 2>&1 \
	|| fail "a readable tree did not ingest as an ordinary user"
echo "ok: the same tree, readable again, ingests"
