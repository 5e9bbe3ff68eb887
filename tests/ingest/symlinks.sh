#!/bin/bash
# Symlinks in a dataset are kept as symlinks (issue 25, point 5): a Hugging
# Face hub cache (snapshots/<rev>/model.safetensors -> ../../blobs/<sha>)
# ingests whole, targets verbatim, those pointing outside the tree kept
# and counted; a second run finds them in the manifest; a changed target
# follows --on-change; --symlinks skip names each one as skipped.
set -u
CLI=$FAMFS_CLI
W=$(mktemp -d /dev/shm/famfs-ingest-symlinks.XXXXXX); trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok: $*"; }
S=$W/src; m=$S/models--org--name
mkdir -p "$m/blobs" "$m/snapshots/abc123" "$m/refs"
head -c 300000 /dev/urandom >"$m/blobs/1111"; echo '{}' >"$m/blobs/2222"
ln -s ../../blobs/1111 "$m/snapshots/abc123/model.safetensors"
ln -s ../../blobs/2222 "$m/snapshots/abc123/config.json"
echo abc123 >"$m/refs/main"
ln -s /etc/hostname "$S/absolute"; ln -s ../outside "$S/above-root"
ln -s "dir/../../x y ✓" "$S/odd"
$CLI mkemul --size 256MiB "$W/d0" >/dev/null; $CLI mkfs --log-size 4MiB "$W/d0" >/dev/null
ing() { $CLI ingest -d "$W/d0" --manifest "$W/m.db" "$@"; }
target() { $CLI ls -d "$W/d0" -o json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("target",""))'; }

ing --verify "$S" /hf >"$W/1.out" 2>&1 || fail "ingest: $(cat "$W/1.out")"
grep -q "symlinks: 5 made, 0 already there, 0 changed at the source, 5 verified; 3 point outside the tree" "$W/1.out" ||
	fail "first run summary: $(cat "$W/1.out")"
[ "$(target /hf/models--org--name/snapshots/abc123/model.safetensors)" = ../../blobs/1111 ] ||
	fail "model.safetensors target: $(target /hf/models--org--name/snapshots/abc123/model.safetensors)"
[ "$(target /hf/absolute)" = /etc/hostname ] && [ "$(target /hf/odd)" = "dir/../../x y ✓" ] ||
	fail "targets not verbatim"
$CLI cat -d "$W/d0" /hf/models--org--name/blobs/1111 | cmp - "$m/blobs/1111" || fail "blob bytes"
pass "HF cache: 5 symlinks kept verbatim, 3 outside counted, verified"

ing --verify "$S" /hf >"$W/2.out" 2>&1 || fail "second run: $(cat "$W/2.out")"
grep -q "symlinks: 0 made, 5 already there, 0 changed at the source, 5 verified" "$W/2.out" ||
	fail "second run: $(cat "$W/2.out")"
pass "a second run finds every symlink already there"

ln -sfn ../../blobs/2222 "$m/snapshots/abc123/model.safetensors"
ing "$S" /hf >"$W/3.out" 2>&1 || fail "keep: $(cat "$W/3.out")"
grep -q "symlinks: 0 made, 4 already there, 1 changed at the source" "$W/3.out" || fail "keep: $(cat "$W/3.out")"
[ "$(target /hf/models--org--name/snapshots/abc123/model.safetensors)" = ../../blobs/1111 ] || fail "keep replaced"
ing --on-change fail "$S" /hf >"$W/4.out" 2>&1 && fail "--on-change fail succeeded"
grep -q "symlink models--org--name/snapshots/abc123/model.safetensors changed" "$W/4.out" || fail "fail: $(cat "$W/4.out")"
ing --on-change replace --verify "$S" /hf >"$W/5.out" 2>&1 || fail "replace: $(cat "$W/5.out")"
[ "$(target /hf/models--org--name/snapshots/abc123/model.safetensors)" = ../../blobs/2222 ] || fail "not replaced"
pass "a changed target: kept and counted, refused with fail, replaced with replace"

ing --symlinks skip "$S" /skip >"$W/6.out" 2>"$W/6.err" || fail "skip: $(cat "$W/6.err")"
[ "$(grep -c '^skipped .*: symlink (--symlinks skip)$' "$W/6.err")" = 5 ] || fail "skip names: $(cat "$W/6.err")"
$CLI ls -d "$W/d0" /skip/absolute >/dev/null 2>&1 && fail "--symlinks skip made a link"
ing --symlinks follow "$S" /x >/dev/null 2>&1; [ $? = 2 ] || fail "--symlinks follow not a usage error"
pass "--symlinks skip names each link as skipped; a bad value is a usage error"
