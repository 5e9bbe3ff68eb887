#!/bin/bash
# famfsd_allowed_paths: the API creates emul devices only under
# paths.devices, mounts only under paths.mounts (never on a system
# directory, on a non-empty one only with "force": true) and ingests only
# from paths.sources, judged on the path with symlinks and ".." resolved.
# Each refusal is 403 path_not_allowed naming the setting, and leaves the
# state and the filesystem as they were.
source "$(dirname "$0")/lib.sh"
mkdir -p "$T/mnt" "$T/full" "$T/src"
echo data >"$T/full/keep"
ln -s /etc "$T/etc-link"
ln -s /etc "$T/src/etc-link"
# /etc allowed for mounts on purpose: a system directory stays refused
start_famfsd --set "paths.mounts=$T/mnt:$T/full:/etc" ${FAMFS_FUSED:+--fused "$FAMFS_FUSED"}
make_devices 1 256MiB
api POST /v1/interleave-sets '{"name":"s0","devices":["emul0"],"chunk":"2MiB"}'
expect 201
api POST /v1/filesystems '{"name":"fs0","set":"s0"}'
expect 201

snapshot() {
	{ db_state
	  for r in devices mounts jobs; do api GET /v1/$r; echo "$BODY"; done
	  find "$T" -path "$STATE" -prune -o -print | grep -v '\.log$' | sort
	  ls -la /etc | grep -c famfs-x; }
}
before=$(snapshot)
refused() { # SETTING WHAT
	expect 403 path_not_allowed
	echo "$BODY" | grep -q "$1" || fail "$2: the message does not name $1: $BODY"
	[ "$(snapshot)" = "$before" ] || fail "$2 changed the state or the files"
}

api POST /v1/devices '{"name":"e1","provider":"emul","path":"/etc/famfs-x","size":"64MiB"}'
refused paths.devices "a device in /etc"
api POST /v1/devices "{\"name\":\"e1\",\"path\":\"$T/etc-link/famfs-x\",\"size\":\"64MiB\"}"
refused paths.devices "a device through a symlink to /etc"
echo "$BODY" | grep -q "resolved: /etc/famfs-x" || fail "message lacks the resolved path: $BODY"
api POST /v1/devices "{\"name\":\"e1\",\"path\":\"$T/../famfs-x\",\"size\":\"64MiB\"}"
refused paths.devices "a device through .."
api POST /v1/devices "{\"name\":\"e1\",\"path\":\"$T/no/such/../../../famfs-x\",\"size\":\"64MiB\"}"
refused paths.devices "a device through .. after a missing directory"
[ ! -e /etc/famfs-x ] && [ ! -e "$(dirname "$T")/famfs-x" ] || fail "a device file was created"
pass "paths.devices: /etc, a symlink to it, '..' out of the tree: 403, nothing created"

api POST /v1/mounts '{"name":"m1","filesystem":"nofs","path":"/opt","role":"master"}'
refused paths.mounts "a mount on /opt"
api POST /v1/mounts '{"name":"m1","filesystem":"nofs","path":"/etc","role":"master"}'
refused "system directory" "a mount on /etc"
api POST /v1/mounts "{\"name\":\"m1\",\"filesystem\":\"nofs\",\"path\":\"$T/mnt/../../etc-link\",\"role\":\"master\"}"
refused paths.mounts "a mount through .. and a symlink"
pass "paths.mounts: outside, a system directory even when listed, '..' and a symlink: 403"

api POST /v1/mounts "{\"name\":\"m1\",\"filesystem\":\"fs0\",\"path\":\"$T/full\",\"role\":\"master\"}"
expect 409 conflict
echo "$BODY" | grep -q force || fail "message does not say force: $BODY"
[ "$(snapshot)" = "$before" ] || fail "a refused mount on a full directory changed something"
[ "$(ls "$T/full")" = keep ] || fail "the full directory changed"
pass "a non-empty mount directory: 409 conflict, nothing changed"

api POST /v1/jobs '{"kind":"ingest","params":{"filesystem":"fs","source":"/etc","dest":"/x"}}'
refused paths.sources "an ingest of /etc"
api POST /v1/jobs "{\"kind\":\"ingest\",\"params\":{\"filesystem\":\"fs\",\"source\":\"$T/src/etc-link\",\"dest\":\"/x\"}}"
refused paths.sources "an ingest through a symlink to /etc"
pass "paths.sources: /etc and a symlink to it: 403"

api POST /v1/jobs "{\"kind\":\"ingest\",\"params\":{\"filesystem\":\"fs\",\"source\":\"$T/src\",\"dest\":\"/../etc\"}}"
expect 400 invalid_value
echo "$BODY" | grep -q "'/../etc' is not a normalised absolute path" || fail "dest message: $BODY"
[ "$(snapshot)" = "$before" ] || fail "a refused ingest destination changed something"
pass "an ingest destination that is not normalised: 400 naming it and the rule"

# the effective lists, as famfsd --check-config prints them
out=$("$FAMFSD" --check-config --config /dev/null --state-dir /var/lib/famfsd-x 2>&1)
grep -qx 'paths.devices: \["/dev/shm/famfs\*", "/var/lib/famfsd-x"\]' <<<"$out" || fail "check-config: $out"
grep -qx 'paths.mounts: \["/mnt/famfs\*", "/srv/famfs\*"\]' <<<"$out" || fail "check-config: $out"
grep -qx 'paths.sources: \["/srv", "/mnt", "/data"\]' <<<"$out" || fail "check-config: $out"
grep -qx 'access.write: \["famfs"\]' <<<"$out" || fail "check-config: $out"
grep -qx 'access.read: \["famfs-read"\]' <<<"$out" || fail "check-config: $out"
pass "--check-config prints the default lists"

# last (it mounts): with force the non-empty directory is accepted
api POST /v1/mounts "{\"name\":\"m1\",\"filesystem\":\"fs0\",\"path\":\"$T/full\",\"role\":\"master\",\"force\":true}"
forced=$STATUS
[ "$forced" != 409 ] && [ "$forced" != 403 ] || fail "force: $STATUS $BODY"
if [ "$forced" = 201 ]; then
	api DELETE /v1/mounts/m1
	expect 204
	wait_for 30 "the forced mount to go" sh -c "! grep -q ' $T/full ' /proc/self/mountinfo"
	[ "$(ls "$T/full")" = keep ] || fail "the directory under the forced mount changed"
fi
pass "\"force\": true mounts over a non-empty directory (HTTP $forced)"
