#!/bin/bash
# apply_bad_input: every bad-input file of tests/schema (invalid/,
# semantic/, limits/), pointed at two real famfsd instances: apply exits 1,
# prints each expected FILE:LINE:COL: KEY.PATH diagnostic, and neither
# host changes.
source "$(dirname "$0")/lib.sh"
corpus=$(cd "$(dirname "$0")/../schema" && pwd)
start_host node0
start_host node1
before=$(snapshot node0 node1)
n=0
# Per file a sed and a famfs-cli, the rest is bash's own matching (the
# ~105 files x 6 helper processes were most of this test's CPU).
for f in "$corpus"/invalid/*.yaml "$corpus"/semantic/*.yaml "$corpus"/limits/*.yaml; do
	d=${f%/*}
	c=$T/${d##*/}-${f##*/}
	# same lines and columns: only the socket paths change, on lines
	# whose columns nothing expects past the path
	sed "s#/run/famfsd/node0.sock#$T/node0/sock#; s#/run/famfsd/node1.sock#$T/node1/sock#" "$f" >"$c"
	expects=()
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line == "# expect: "* ]] && expects+=("${line#\# expect: }")
	done <"$f"
	OUT=$("$FAMFS_CLI" apply "$c" 2>&1); rc=$?
	[ $rc -eq 2 ] || fail "$f: apply exited $rc: $OUT"
	[[ $OUT == *"is not a valid cluster file; nothing was read or changed"* ]] || fail "$f: $OUT"
	for e in "${expects[@]}"; do
		# the endpoint diagnostics quote the path, which differs here
		case "$e" in *endpoint*) e=${e%%endpoint*}endpoint;; esac
		[[ $OUT == *"$c:$e"* ]] || fail "$f: missing '$e' in: $OUT"
	done
	n=$((n + 1))
done
[ "$before" = "$(snapshot node0 node1)" ] || fail "a bad file changed a host"
pass "$n bad files: exit 2, every diagnostic with file:line:col and key path, no host changed"
