#!/bin/bash
# cli_usage: diff and apply exit codes that need no famfsd. diff exits as
# kubectl diff (0 none, 1 changes, 2 error); apply 0 done, 1 failed, 2
# error; an invalid file is refused before any host is read; an
# unreachable host is named, an error (2), and never "No changes".
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
expect 2 "diff without a file (usage)" "$cli" diff
expect 2 "diff -o yaml (usage)" "$cli" diff -o yaml x.yaml
expect 2 "apply without a file" "$cli" apply
expect 2 "apply --force-delete-data without --prune" "$cli" apply --force-delete-data x.yaml
expect 2 "diff of an invalid file" "$cli" diff "$corpus/semantic/dangling-mount-host.yaml"
grep -q "mounts\[1\].host: no host is named 'node9'" <<<"$OUT" || fail "diagnostic: $OUT"
grep -q "not a valid cluster file; nothing was read or changed" <<<"$OUT" || fail "refusal: $OUT"
expect 2 "apply of an invalid file" "$cli" apply "$corpus/invalid/many-errors.yaml"
[ "$(grep -c 'many-errors.yaml:[0-9]*:[0-9]*: ' <<<"$OUT")" = 5 ] || fail "all five problems: $OUT"
cat >"$T/c.yaml" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: u}
hosts:
  - {name: gone, endpoint: $T/nobody.sock, role: master}
EOT
expect 2 "diff with an unreachable host" "$cli" diff "$T/c.yaml"
grep -q "famfs-cli diff: host gone: $T/nobody.sock: GET /v1/host: " <<<"$OUT" || fail "names the host: $OUT"
expect 2 "apply with an unreachable host" "$cli" apply "$T/c.yaml"
grep -q "No changes" <<<"$OUT" && fail "an unreachable host and 'No changes': $OUT"
grep -q "^! error: host gone: " <<<"$OUT" || fail "error line: $OUT"
