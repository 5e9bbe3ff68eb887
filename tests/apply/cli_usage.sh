#!/bin/bash
# cli_usage: diff and apply exit codes that need no famfsd. diff never
# exits 2 on an error (2 means "there are changes"); an invalid file is
# refused before any host is read; an unreachable host is named.
set -u
cli=$FAMFS_CLI
corpus=$(dirname "$0")/../schema
T=$(mktemp -d /tmp/famfs-apply-usage.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() { # rc what cmd...
	local want=$1 what=$2; shift 2
	OUT=$("$@" 2>&1); local got=$?
	[ $got -eq "$want" ] || fail "$what: exit $got, expected $want: $OUT"
	echo "ok: $what"
}
expect 0 "diff --help" "$cli" diff --help
expect 0 "apply --help" "$cli" apply --help
expect 1 "diff without a file (usage is 1, not 2)" "$cli" diff
expect 1 "diff -o yaml (usage)" "$cli" diff -o yaml x.yaml
expect 2 "apply without a file" "$cli" apply
expect 2 "apply --force-delete-data without --prune" "$cli" apply --force-delete-data x.yaml
expect 1 "diff of an invalid file" "$cli" diff "$corpus/semantic/dangling-mount-host.yaml"
grep -q "mounts\[1\].host: no host is named 'node9'" <<<"$OUT" || fail "diagnostic: $OUT"
grep -q "not a valid cluster file; nothing was read or changed" <<<"$OUT" || fail "refusal: $OUT"
expect 1 "apply of an invalid file" "$cli" apply "$corpus/invalid/many-errors.yaml"
[ "$(grep -c 'many-errors.yaml:[0-9]*:[0-9]*: ' <<<"$OUT")" = 5 ] || fail "all five problems: $OUT"
cat >"$T/c.yaml" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: u}
hosts:
  - {name: gone, endpoint: $T/nobody.sock, role: master}
EOT
expect 1 "diff with an unreachable host" "$cli" diff "$T/c.yaml"
grep -q "famfs-cli diff: host gone: $T/nobody.sock: GET /v1/host: " <<<"$OUT" || fail "names the host: $OUT"
expect 1 "apply with an unreachable host" "$cli" apply "$T/c.yaml"
