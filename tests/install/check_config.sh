#!/bin/bash
# check_config: `famfsd --check-config` accepts a good file (exit 0, the
# settings printed), refuses bad ones naming file:line and key or the key
# whose path is missing (exit 1), and starts nothing (no state dir, no
# socket). `--version` of every installed binary prints NAME VERSION.
set -u
T=$(mktemp -d /tmp/famfs-checkcfg.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

cat >"$T/good.yaml" <<EOT
state_dir: $T/state
socket: $T/sock
plugin_dir: $PLUGINS
fused_path: $FAMFS_FUSED
log_level: debug
EOT
out=$("$FAMFSD" --check-config -c "$T/good.yaml" 2>"$T/err") || fail "good config refused: $(cat "$T/err")"
grep -qx "plugin_dir: $PLUGINS" <<<"$out" || fail "settings not printed: $out"
grep -qx "log_level: debug" <<<"$out" || fail "log_level not printed: $out"
[ ! -e "$T/state" ] && [ ! -e "$T/sock" ] || fail "--check-config created the state dir or socket"
pass "good config: exit 0, settings printed, nothing started"

printf 'threads: 4\nbogus_key: 1\n' >"$T/unknown.yaml"
"$FAMFSD" --check-config -c "$T/unknown.yaml" >/dev/null 2>"$T/err" && fail "unknown key accepted"
grep -q "$T/unknown.yaml:2: unknown key 'bogus_key'" "$T/err" || fail "unknown key: $(cat "$T/err")"
printf 'threads: lots\n' >"$T/badval.yaml"
"$FAMFSD" --check-config -c "$T/badval.yaml" >/dev/null 2>"$T/err" && fail "bad value accepted"
grep -q "bad value 'lots' for 'threads'" "$T/err" || fail "bad value: $(cat "$T/err")"
sed "s#^plugin_dir: .*#plugin_dir: $T/nope#" "$T/good.yaml" >"$T/noplug.yaml"
"$FAMFSD" --check-config -c "$T/noplug.yaml" >/dev/null 2>"$T/err" && fail "missing plugin_dir accepted"
grep -q "^plugin_dir: $T/nope: not a directory" "$T/err" || fail "missing plugin_dir: $(cat "$T/err")"
"$FAMFSD" --check-config -c "$T/good.yaml" --fused "$T/nofused" >/dev/null 2>"$T/err" && fail "missing fused accepted"
grep -q "^fused_path: $T/nofused: not an executable" "$T/err" || fail "missing fused: $(cat "$T/err")"
"$FAMFSD" --check-config -c "$T/absent.yaml" >/dev/null 2>"$T/err" && fail "missing named config accepted"
grep -q "cannot read $T/absent.yaml" "$T/err" || fail "missing config: $(cat "$T/err")"
pass "bad configs: exit 1, naming file:line and key"

for b in "$FAMFSD:famfsd" "$FAMFS_CLI:famfs-cli" "$FAMFS_FUSED:famfs-fused"; do
	v=$("${b%%:*}" --version) || fail "${b#*:} --version failed"
	[ "$v" = "${b#*:} $VERSION" ] || fail "${b#*:} --version: '$v', want '${b#*:} $VERSION'"
done
pass "--version: famfsd, famfs-cli, famfs-fused $VERSION"
