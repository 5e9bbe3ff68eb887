#!/bin/bash
# The offline read commands speak the same -o as get (issue 15): table,
# wide, name, json, yaml (+ their own human text) through one helper;
# --no-headers drops the header; an unknown -o is a usage error naming the
# value and the valid ones; a usage error prints the synopsis and a pointer
# to --help, not the whole help; validate reads - and prints -o json.
# Usage: output_formats.sh FAMFS_CLI
set -u
CLI=$1
. "$(dirname "$0")/lib.sh"
cli_workdir cli-out /tmp
# run RC what cmd...: stdout in $W/out, stderr in $W/err
run() {
	local want=$1 what=$2; shift 2
	"$@" >"$W/out" 2>"$W/err"; local rc=$?
	[ $rc -eq "$want" ] && return 0
	bad "$what: rc $rc, want $want: $(head -5 "$W/err")"
	return 1
}
is_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
# yaml parsed by python3-yaml when present, else a structural look (asked
# once: a python start is ~0.1 CPU-s, docs/testing.md)
HAVE_YAML=no
python3 -c 'import yaml' 2>/dev/null && HAVE_YAML=yes
is_yaml() {
	if [ $HAVE_YAML = yes ]; then
		python3 -c 'import yaml,sys; d=yaml.safe_load(open(sys.argv[1])); sys.exit(0 if isinstance(d,(dict,list)) else 1)' "$1"
	else
		grep -Eq '^[a-z_]+:' "$1" && ! grep -q '^{' "$1"
	fi
}
# JSON file $1 and YAML file $2 hold the same (YAML not just JSON text)
same_data() {
	[ $HAVE_YAML = yes ] || { [ -s "$2" ] && ! grep -q '^{' "$2"; return; }
	python3 -c 'import json,yaml,sys
j = json.load(open(sys.argv[1])); t = open(sys.argv[2]).read()
sys.exit(not (yaml.safe_load(t) == j and (t.strip() == "[]" or t[0] not in "{[")))' "$1" "$2"
}
json_get() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v)' "$@"; }

$CLI mkemul --size 64MiB "$W/d0" "$W/d1" >/dev/null || { echo "FAIL mkemul"; exit 1; }
$CLI mkfs --log-size 4MiB "$W/d0" "$W/d1" >/dev/null || { echo "FAIL mkfs"; exit 1; }
head -c 3000000 /dev/urandom >"$W/w.bin"
D=(-d "$W/d0" -d "$W/d1")
$CLI create "${D[@]}" --from "$W/w.bin" --strips 2 /w.bin >/dev/null || { echo "FAIL create"; exit 1; }
$CLI mkdir "${D[@]}" /dir >/dev/null || { echo "FAIL mkdir"; exit 1; }

# each offline read command, each format
declare -A CMD=(
	[fsck]="fsck $W/d0 $W/d1"
	[ls]="ls ${D[*]} /"
	[log]="log $W/d0 $W/d1"
	[getmap]="getmap ${D[*]} /w.bin"
	[clients]="clients ${D[*]}"
)
for c in fsck ls log getmap clients; do
	# shellcheck disable=SC2086
	set -- ${CMD[$c]}
	run 0 "$c -o json" "$CLI" "$@" -o json &&
		{ is_json "$W/out" && ok "$c -o json parses" || bad "$c -o json: $(head -3 "$W/out")"; }
	cp "$W/out" "$W/json"
	run 0 "$c -o yaml" "$CLI" "$@" -o yaml &&
		{ is_yaml "$W/out" && same_data "$W/json" "$W/out" && ok "$c -o yaml parses, same data as json" ||
		  bad "$c -o yaml is not YAML: $(head -3 "$W/out")"; }
	run 0 "$c -o table" "$CLI" "$@" -o table &&
		{ head -1 "$W/out" | grep -Eq '^[A-Z_]+  +[A-Z_]+' && ok "$c -o table has a header" ||
		  bad "$c -o table: $(head -2 "$W/out")"; }
	cp "$W/out" "$W/table"
	run 0 "$c -o table --no-headers" "$CLI" "$@" -o table --no-headers &&
		{ [ "$(tail -n +2 "$W/table")" = "$(cat "$W/out")" ] && ok "$c --no-headers drops the header only" ||
		  bad "$c --no-headers: $(head -2 "$W/out")"; }
	run 0 "$c -o wide" "$CLI" "$@" -o wide &&
		# fsck's findings have no more to show
		{ [ "$(head -1 "$W/out" | wc -w)" -gt "$(head -1 "$W/table" | wc -w)" ] ||
		  { [ $c = fsck ] && [ "$(head -1 "$W/out")" = "$(head -1 "$W/table")" ]; } &&
		  ok "$c -o wide has more columns" || bad "$c -o wide: $(head -1 "$W/out") vs $(head -1 "$W/table")"; }
	run 0 "$c -o name" "$CLI" "$@" -o name
	usage_rc=2; [ $c = fsck ] && usage_rc=16
	run $usage_rc "$c -o xml" "$CLI" "$@" -o xml &&
		{ grep -q "'xml'.*valid: .*table, wide, name, json, yaml" "$W/err" && ok "$c -o xml: usage error naming it" ||
		  bad "$c -o xml message: $(cat "$W/err")"; }
done
# what -o name prints
$CLI ls "${D[@]}" -R -o name / >"$W/out"
[ "$(cat "$W/out")" = "$(printf 'dir/\nw.bin')" ] && ok "ls -o name: the paths" || bad "ls -o name: $(cat "$W/out")"
$CLI getmap "${D[@]}" -o name /w.bin >"$W/out"
[ "$(sort -u "$W/out")" = "$(printf '%s\n' "$W/d0" "$W/d1")" ] && ok "getmap -o name: the devices" || bad "getmap -o name: $(cat "$W/out")"
$CLI log -o name "$W/d0" "$W/d1" >"$W/out"
[ "$(cat "$W/out")" = "$(printf '1\n2')" ] && ok "log -o name: the seqs" || bad "log -o name: $(cat "$W/out")"
$CLI log -o json "$W/d0" "$W/d1" >"$W/j"
[ "$(json_get "$W/j" entries.0.path)" = /w.bin ] && ok "log -o json: entries" || bad "log -o json: $(head -5 "$W/j")"
$CLI fsck -o json "$W/d0" "$W/d1" >"$W/j"
[ "$(json_get "$W/j" clean)" = True ] && ok "fsck -o json: clean" || bad "fsck -o json: $(cat "$W/j")"

# short usage on a usage error; the whole text with --help
for c in fsck ls log getmap clients create mkdir rm cat mkfs mkemul adddev mount umount \
	 validate get describe job ingest apply diff; do
	want=2; [ $c = fsck ] && want=16
	run $want "$c --bogus-option" "$CLI" $c --bogus-option || continue
	n=$(grep -vc "unrecognized option" "$W/err")
	if grep -q "^usage: famfs-cli $c" "$W/err" && grep -q "^see 'famfs-cli $c --help'" "$W/err" && [ "$n" -le 4 ]; then
		ok "$c: a usage error prints the short usage ($n lines)"
	else
		bad "$c: usage error output: $(cat "$W/err")"
	fi
	run 0 "$c --help" "$CLI" $c --help &&
		{ [ "$(wc -l <"$W/out")" -gt "$n" ] && grep -qi "exit status" "$W/out" &&
		  ok "$c --help: the whole text with the exit status" || bad "$c --help: $(cat "$W/out")"; }
done
run 2 "no command" "$CLI" && { [ "$(wc -l <"$W/err")" -le 2 ] && ok "no command: short usage" || bad "no command: $(cat "$W/err")"; }
run 2 "unknown command" "$CLI" frobnicate &&
	{ grep -q "unknown command 'frobnicate'" "$W/err" && [ "$(wc -l <"$W/err")" -le 3 ] &&
	  ok "unknown command: named, short" || bad "unknown command: $(cat "$W/err")"; }

# validate - and validate -o json
cat >"$W/bad.yaml" <<'EOT'
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: t}
hosts:
  - name: n1
    endpoint: /run/famfsd/famfsd.sock
    role: boss
EOT
run 1 "validate - (bad, stdin)" "$CLI" validate - <"$W/bad.yaml" &&
	{ grep -q "^<stdin>:7:11: hosts\[0\].role: " "$W/err" && ok "validate -: stdin, named <stdin> with line:col" ||
	  bad "validate -: $(cat "$W/err")"; }
run 1 "validate -o json (bad)" "$CLI" validate -o json "$W/bad.yaml" &&
	python3 - "$W/out" "$W/bad.yaml" <<'PY' && ok "validate -o json: file, line, column, path of the error" || bad "validate -o json: $(cat "$W/out")"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["files"][0]
e = f["errors"][0]
assert d["valid"] is False and f["valid"] is False, d
assert f["file"] == sys.argv[2] and e["file"] == sys.argv[2], d
assert (e["line"], e["column"], e["path"]) == (7, 11, "hosts[0].role"), e
assert e["message"], e
PY
run 0 "validate -o json - (good, stdin)" "$CLI" validate -o json - <"$(dirname "$0")/../../examples/cluster.yaml" &&
	{ [ "$(json_get "$W/out" valid)" = True ] && [ "$(json_get "$W/out" files.0.file)" = "<stdin>" ] &&
	  ok "validate -o json -: valid from stdin" || bad "validate -o json -: $(cat "$W/out")"; }
run 1 "validate -o yaml (bad)" "$CLI" validate -o yaml "$W/bad.yaml" &&
	{ is_yaml "$W/out" && grep -q "line: 7" "$W/out" && ok "validate -o yaml" || bad "validate -o yaml: $(cat "$W/out")"; }
run 2 "validate -o table" "$CLI" validate -o table "$W/bad.yaml" &&
	{ grep -q "'table'.*valid: human, json, yaml" "$W/err" && ok "validate -o table: usage error listing the valid formats" ||
	  bad "validate -o table: $(cat "$W/err")"; }

[ $checks -gt 50 ] || bad "only $checks checks ran"
cli_tally
