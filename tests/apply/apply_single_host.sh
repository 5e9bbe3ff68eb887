#!/bin/bash
# apply_single_host: one real famfsd. Apply from nothing, apply again (no
# changes), --dry-run changes nothing, a policy default changes, --prune
# never without the flag and never a filesystem holding files without
# --force-delete-data, and an invalid file changes nothing.
source "$(dirname "$0")/lib.sh"
start_host h0
F=$T/cluster.yaml

write_file() { # $1: chunk default; $2: "fs" to include the filesystem
	cat >"$F" <<EOT
# yaml-language-server: \$schema=../schemas/cluster.schema.json
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: single}
hosts:
  - {name: h0, endpoint: $T/h0/sock, role: master}
defaults: {chunk: $1}
EOT
	[ "$2" = fs ] || return 0
	cat >>"$F" <<EOT
devices:
$(for i in 0 1 2 3; do echo "  - {name: emul$i, emul: {path: $T/dev$i, size: 16MiB}}"; done)
sets:
  - {name: set0, devices: [emul0, emul1, emul2, emul3], chunk: 2MiB, strips: 4}
filesystems:
  - {name: fs0, set: set0, master: h0, logSize: 4MiB}
EOT
	if have_fused; then
		cat >>"$F" <<EOT
mounts:
  - {filesystem: fs0, host: h0, path: $T/mnt/master, role: master}
  - {filesystem: fs0, host: h0, path: $T/mnt/client, role: client}
EOT
	fi
}

write_file 2MiB fs
run_cli 0 validate "$F"
run_cli 1 diff "$F"
grep -q '+ create device emul0 on h0 (emul, '"$T"'/dev0, 16 MiB)' <<<"$OUT" || fail "diff: $OUT"
grep -q '+ create filesystem fs0 on h0 (mkfs on set set0, log 4 MiB)' <<<"$OUT" || fail "diff: $OUT"
pass "diff from nothing lists the creates, exit 1"

before=$(snapshot h0)
run_cli 0 apply --dry-run "$F"
grep -q "Dry run: nothing was changed." <<<"$OUT" || fail "dry-run: $OUT"
[ "$before" = "$(snapshot h0)" ] || fail "--dry-run changed famfsd's state"
[ -e "$T/dev0" ] && fail "--dry-run created a device file"
pass "--dry-run changes nothing"

run_cli 0 apply "$F"
grep -q "Apply complete:" <<<"$OUT" || fail "apply: $OUT"
# creates come in dependency order
order=$(grep -o 'done: *create [a-z]* ' <<<"$OUT" | awk '{print $3}' | uniq | tr '\n' ' ')
case "$order" in
"device set filesystem "|"device set filesystem mount ") ;;
*) fail "apply order: $order";;
esac
[ "$(count h0 /v1/devices)" = 4 ] || fail "devices after apply"
[ "$(field h0 /v1/interleave-sets/set0 strips)" = 4 ] || fail "set strips"
[ "$(field h0 /v1/filesystems/fs0 master)" = h0 ] || fail "fs master"
[ "$(field h0 /v1/filesystems/fs0 log_size)" = 4194304 ] || fail "log size"
pass "apply from nothing"

before=$(snapshot h0)
run_cli 0 apply "$F"
grep -q "^No changes. The cluster matches $F.$" <<<"$OUT" || fail "second apply: $OUT"
[ "$before" = "$(snapshot h0)" ] || fail "a no-op apply changed the state"
run_cli 0 diff "$F"
run_cli 0 apply -o json "$F"
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["result"]=="no-changes" and d["steps"]==[], d' "$OUT" \
	|| fail "apply -o json: $OUT"
pass "second apply is a no-op (exit 0), diff exit 0"

write_file 4MiB fs
run_cli 1 diff "$F"
grep -q '~ update policy defaults on h0 (chunk 2 MiB -> 4 MiB)' <<<"$OUT" || fail "policy diff: $OUT"
run_cli 0 apply "$F"
[ "$(field h0 /v1/host policy.chunk)" = 4194304 ] || fail "policy chunk not applied"
run_cli 0 diff "$F"
pass "a changed policy default is updated"

# The filesystem holds a file; the file stops naming it.
api h0 POST /v1/files '{"filesystem":"fs0","path":"/keep.bin","size":"2MiB"}'
[ "$STATUS" = 201 ] || fail "create a file: $STATUS $BODY"
write_file 4MiB nofs
before=$(snapshot h0)
run_cli 0 apply "$F"
grep -q "^No changes" <<<"$OUT" || fail "apply without --prune: $OUT"
grep -q "not in the file; kept (--prune deletes them)" <<<"$OUT" || fail "kept note: $OUT"
run_cli 1 apply --prune "$F"
grep -q "filesystem fs0, which is not empty (1 files and directories); refusing without --force-delete-data" <<<"$OUT" \
	|| fail "prune guard: $OUT"
grep -q "Apply refused: 1 conflict above; nothing was changed." <<<"$OUT" || fail "refused: $OUT"
[ "$before" = "$(snapshot h0)" ] || fail "a refused prune changed the state"
pass "--prune only with the flag, never a filesystem holding files"

run_cli 0 apply --prune --force-delete-data "$F"
order=$(grep -o 'done: *delete [a-z]* ' <<<"$OUT" | awk '{print $3}' | uniq | tr '\n' ' ')
case "$order" in
"filesystem set device "|"mount filesystem set device ") ;;
*) fail "prune order: $order ($OUT)";;
esac
[ "$(count h0 /v1/devices)" = 0 ] || fail "devices left after prune"
[ "$(count h0 /v1/filesystems)" = 0 ] || fail "filesystems left after prune"
[ -e "$T/dev0" ] && fail "prune left the device file (prune is the inverse of create)"
pass "--prune --force-delete-data deletes in reverse order"

# An invalid file: every problem reported with its place; nothing changes.
write_file 2MiB fs
sed -i 's/strips: 4}/strips: 4, stripes: 2}/; s/set: set0, master: h0/set: set9, master: h0/' "$F"
before=$(snapshot h0)
run_cli 2 apply "$F"
grep -q "^$F:[0-9]*:[0-9]*: sets\[0\].stripes: unknown key 'stripes'" <<<"$OUT" || fail "bad input message: $OUT"
grep -q "^$F:[0-9]*:[0-9]*: filesystems\[0\].set: no set is named 'set9'" <<<"$OUT" || fail "dangling ref message: $OUT"
[ "$before" = "$(snapshot h0)" ] || fail "an invalid file changed the state"
run_cli 2 diff "$F"
pass "an invalid file: file:line:col messages, exit 2, nothing changed"
