#!/bin/bash
# famfs-cli against a real famfsd the way kubectl is used (issue 15): get
# KIND NAME... (an unknown name is an error naming it, the others still
# printed), -o table|wide|name|json|yaml and --no-headers on get, describe
# and job list, an unknown -o a usage error, apply/diff/validate reading -.
set -u
. "$(dirname "$0")/../apply/lib.sh"
[ -x "${FAMFSD:-}" ] || { echo "no famfsd: skipped"; exit 77; }
cli=$FAMFS_CLI
start_host n1
export FAMFS_HOST=$T/n1/sock
cat >"$T/c.yaml" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: k}
hosts:
  - {name: n1, endpoint: $T/n1/sock, role: master}
devices:
  - {name: e0, emul: {path: $T/e0, size: 64MiB}}
  - {name: e1, emul: {path: $T/e1, size: 64MiB}}
  - {name: e2, emul: {path: $T/e2, size: 64MiB}}
sets:
  - {name: set0, devices: [e0, e1], chunk: 2MiB, strips: 2}
filesystems:
  - {name: fs0, set: set0, master: n1, logSize: 4MiB}
EOT
# - for stdin: validate, diff, apply
OUT=$("$cli" validate - <"$T/c.yaml" 2>&1) || fail "validate -: $OUT"
grep -q "^<stdin>: valid" <<<"$OUT" || fail "validate - names <stdin>: $OUT"
OUT=$("$cli" diff - <"$T/c.yaml" 2>&1); [ $? -eq 1 ] || fail "diff - before apply: changes expected: $OUT"
OUT=$("$cli" apply - <"$T/c.yaml" 2>&1) || fail "apply -: $OUT"
OUT=$("$cli" diff - <"$T/c.yaml" 2>&1) || fail "diff - after apply: $OUT"
sed 's/role: master}/role: boss}/' "$T/c.yaml" >"$T/bad.yaml"
OUT=$("$cli" apply - <"$T/bad.yaml" 2>&1); [ $? -eq 2 ] || fail "apply - of a bad file: $OUT"
grep -q "^<stdin>:5:[0-9]*: hosts\[0\].role: " <<<"$OUT" || fail "apply - diagnostics name <stdin>: $OUT"
pass "validate -, diff -, apply - read the standard input"

# get KIND NAME...
"$cli" get devices e0 e2 >"$T/out" 2>"$T/err" || fail "get devices e0 e2: $(cat "$T/err")"
[ "$(awk 'NR > 1 { print $1 }' "$T/out" | tr '\n' ' ')" = "e0 e2 " ] || fail "get devices e0 e2: $(cat "$T/out")"
"$cli" get device e0 nosuch e2 >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "get with an unknown name: exit $rc"
grep -q "nosuch" "$T/err" || fail "the unknown name is not named: $(cat "$T/err")"
[ "$(awk 'NR > 1 { print $1 }' "$T/out" | tr '\n' ' ')" = "e0 e2 " ] ||
	fail "the names found are not all printed: $(cat "$T/out")"
pass "get KIND NAME...: several names; an unknown one named, exit 1, the others printed"
"$cli" get device e1 -o json >"$T/out" || fail "get device e1 -o json"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$T/out")" = e1 ] ||
	fail "get device e1 -o json is not the object: $(cat "$T/out")"
"$cli" get devices e0 e1 -o json >"$T/out" || fail "get devices e0 e1 -o json"
[ "$(jq -r '[.items[].name] | join(" ")' "$T/out")" = "e0 e1" ] || fail "two names -o json: $(cat "$T/out")"
"$cli" get device e0 nosuch -o name >"$T/out" 2>/dev/null; [ $? -eq 1 ] || fail "-o name with an unknown name"
[ "$(cat "$T/out")" = "device/e0" ] || fail "get -o name: $(cat "$T/out")"
pass "get NAME... -o json (the object; several: items), -o name"

# -o for each format, on get, describe and job list
head -c 3000000 /dev/urandom >"$T/src.bin"; mkdir -p "$T/src"; cp "$T/src.bin" "$T/src/a"
OUT=$("$cli" ingest -F fs0 --wait "$T/src" /ds 2>&1) || fail "ingest: $OUT"
have_yaml=no
python3 -c 'import yaml' 2>/dev/null && have_yaml=yes
for c in "get devices" "get sets" "get filesystems" "get fs fs0" "get jobs" "get files fs0" \
	 "get host" "describe filesystem fs0" "describe device e0" "job list" "job list 1"; do
	# shellcheck disable=SC2086
	"$cli" $c -o json >"$T/j" || fail "$c -o json"
	# shellcheck disable=SC2086
	"$cli" $c -o yaml >"$T/y" || fail "$c -o yaml"
	# one python per command: the JSON parses, and the YAML says the same
	# (a python start is ~0.1 CPU-s; docs/testing.md)
	python3 -c '
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit(2)
if sys.argv[3] == "no":
    sys.exit(0)
import yaml
y = yaml.safe_load(open(sys.argv[2]))
drop = {"uptime_seconds", "seen", "since"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in drop}
    return [clean(x) for x in v] if isinstance(v, list) else v
sys.exit(clean(j) != clean(y))' "$T/j" "$T/y" "$have_yaml"
	case $? in
	0) ;;
	2) fail "$c -o json: $(cat "$T/j")" ;;
	*) fail "$c -o yaml differs from json: $(cat "$T/y")" ;;
	esac
	[ "$have_yaml" = yes ] || grep -Eq '^[a-z_]+:' "$T/y" || fail "$c -o yaml: $(cat "$T/y")"
	# shellcheck disable=SC2086
	"$cli" $c -o table >"$T/t" || fail "$c -o table"
	# shellcheck disable=SC2086
	"$cli" $c -o wide >"$T/w" || fail "$c -o wide"
	# shellcheck disable=SC2086
	"$cli" $c -o table --no-headers >"$T/n" || fail "$c --no-headers"
	# the same rows without the header (host's uptime moves on)
	[ -s "$T/n" ] && [ "$(tail -n +2 "$T/t" | cut -c1-12)" = "$(cut -c1-12 "$T/n")" ] &&
		! grep -Eq '^(NAME|ID|PATH) ' "$T/n" || fail "$c --no-headers: $(cat "$T/n") vs $(cat "$T/t")"
	case $c in describe*) ;; *)
		[ "$(head -1 "$T/w" | wc -w)" -gt "$(head -1 "$T/t" | wc -w)" ] ||
			fail "$c -o wide has no more columns: $(head -1 "$T/w")";;
	esac
	# shellcheck disable=SC2086
	"$cli" $c -o name >"$T/nm" || fail "$c -o name"
	[ -s "$T/nm" ] || fail "$c -o name printed nothing"
	# shellcheck disable=SC2086
	"$cli" $c -o xml >/dev/null 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] || fail "$c -o xml: exit $rc"
	grep -q "'xml'.*valid: table, wide, name, json, yaml" "$T/err" || fail "$c -o xml: $(cat "$T/err")"
done
[ "$("$cli" job list -o name)" = "job/1" ] || fail "job list -o name: $("$cli" job list -o name)"
[ "$("$cli" get files fs0 -o name | tr '\n' ' ')" = "/ds /ds/a " ] ||
	fail "get files -o name (the paths): $("$cli" get files fs0 -o name)"
pass "-o table|wide|name|json|yaml and --no-headers on get, describe, job list; -o xml refused"

# a usage error: the synopsis and where to read more, exit 2
"$cli" get >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^usage: famfs-cli get" "$T/err" && grep -q "see 'famfs-cli get --help'" "$T/err" &&
	[ "$(wc -l <"$T/err")" -le 4 ] || fail "get without KIND: exit $rc: $(cat "$T/err")"
"$cli" get host extra >/dev/null 2>"$T/err"; [ $? -eq 2 ] || fail "get host NAME: not a usage error"
pass "usage errors are short, exit 2"
