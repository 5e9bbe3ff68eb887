#!/bin/sh
# famfs-cli validate refuses what famfsd or a job would refuse later
# (issue 13), naming the line that causes it, before anything changes.
# Usage: validate_refusals.sh FAMFS_CLI EXAMPLE_YAML
set -u
CLI=$1 EX=$2
W=$(mktemp -d "${TMPDIR:-/dev/shm}/famfs-cli-val.XXXXXX")
trap 'rm -rf "$W"' EXIT
fails=0 checks=0
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
# refused SED LINE MESSAGE what: the example edited by SED is invalid, with
# the problem reported at LINE and the message containing MESSAGE
refused() {
	checks=$((checks + 1))
	sed "$1" "$EX" > "$W/c.yaml"
	cmp -s "$W/c.yaml" "$EX" && { bad "$4: the edit changed nothing"; return; }
	"$CLI" validate "$W/c.yaml" > "$W/out" 2>&1 && { bad "$4: accepted"; return; }
	grep -q "^$W/c.yaml:$2:[0-9]*: .*$3" "$W/out" ||
		{ bad "$4: not reported at line $2 with '$3': $(cat "$W/out")"; return; }
	echo "ok   $4"
}
"$CLI" validate "$EX" >/dev/null || bad "the example itself is invalid"
refused 's/- name: emul0/- name: rescan/; s/\[emul0,/[rescan,/' 19 "reserved" "device named rescan (a route)"
refused 's/- name: set0/- name: mkfs/; s/set: set0/set: mkfs/' 29 "reserved" "set named mkfs"
refused 's/- name: fs0/- name: cancel/; s/filesystem: fs0/filesystem: cancel/' 35 "reserved" "filesystem named cancel"
refused '0,/chunk: 2MiB/s//chunk: 2TiB/' 31 "1 TiB" "set chunk above 1 TiB"
refused 's/logSize: 8MiB/logSize: 254MiB/' 38 "log" "log that leaves no data unit on device 0"
refused 's/emul0, size: 256MiB/emul0, size: 2MiB/' 20 "8 MiB" "device too small for famfs"
refused '44s/role: master/role: master\n    backend: kmod/' 45 "'kernel' or 'fuse'" "mount backend other than kernel or fuse"
[ $checks -gt 0 ] || bad "no checks ran"
[ $fails -eq 0 ] && echo "all $checks passed" || { echo "$fails of $checks failed"; exit 1; }
