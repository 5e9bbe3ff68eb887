#!/bin/bash
# famfsd_holds: holds pin a dataset's generation (docs/api.md, "Holds").
# On a real FUSE master mount: the API's good and bad cases; a held
# generation survives two refreshes with keep 1 while a reader reads
# through its pin and sees generation 1's bytes every time (the pin is a
# bind mount: the kernel moves its dentry with the switch's exchange and
# rename); a dataset_delete of a held dataset is refused; a famfsd restart
# keeps the holds and makes a lost pin again; a release removes the
# generation and its space comes back; the reaper releases an owner its
# owner_check says is gone and counts it; an undo then a refresh keeps the
# generation that stopped serving.
source "$(dirname "$0")/lib.sh"
[ -x "${FAMFS_FUSED:-}" ] || { echo "famfs-fused not built"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "pins are bind mounts: needs root"; exit 77; }

PINS=$T/pins
cat >"$T/alive" <<'EOS'
#!/bin/sh
# test owner_check: slurm:dead* is gone, slurm:odd* cannot be told
case "$1" in
slurm:dead*) exit 1 ;;
slurm:odd*) exit 3 ;;
*) exit 0 ;;
esac
EOS
chmod +x "$T/alive"
# bad holds.* values are refused, naming the key
printf 'holds:\n  reap_interval: 4\n' >"$T/bad1.yaml"
printf 'holds:\n  reap_interval: 86401\n' >"$T/bad2.yaml"
printf 'holds:\n  pin_dir: run/pins\n' >"$T/bad3.yaml"
printf 'holds:\n  owner_check: alive.sh\n' >"$T/bad4.yaml"
printf 'holds:\n  reap_interval: soon\n' >"$T/bad5.yaml"
for i in 1 2 3 4 5; do
	"$FAMFSD" --check-config --config "$T/bad$i.yaml" >"$T/out" 2>&1 && fail "bad$i.yaml accepted"
	grep -q "bad value '.*' for 'holds\.[a-z_]*'" "$T/out" || fail "bad$i.yaml: $(cat "$T/out")"
done
printf 'holds:\n  pin_dir: /run/x\n  owner_check: /bin/true\n  reap_interval: 5\n' >"$T/good.yaml"
"$FAMFSD" --check-config --config "$T/good.yaml" --plugin-dir "$PLUGINS" --fused "$FAMFS_FUSED" >"$T/out" 2>&1 || fail "good holds config: $(cat "$T/out")"
grep -q '^holds.reap_interval: 5$' "$T/out" || fail "check-config: $(cat "$T/out")"
pass "holds.* config: bad values refused naming the key"

ARGS=(--fused "$FAMFS_FUSED" --set "holds.pin_dir=$PINS"
      --set "holds.owner_check=$T/alive" --set holds.reap_interval=5)
start_famfsd "${ARGS[@]}"
make_devices 2 64MiB
api POST /v1/interleave-sets '{"name":"s0","devices":["emul0","emul1"]}'; expect 201
api POST /v1/filesystems '{"name":"fs0","set":"s0","log_size":"8MiB"}'; expect 201
mkdir -p "$T/mnt"
api POST /v1/mounts "{\"name\":\"m0\",\"filesystem\":\"fs0\",\"path\":\"$T/mnt\",\"role\":\"master\"}"
expect 201

# generation G of the source: a 4 MiB file of its own bytes, and a marker
mkdir -p "$T/src"
gen_source() {
	head -c 4194304 /dev/urandom >"$T/src/data.bin"
	cp "$T/src/data.bin" "$T/gen$1.bin"
	echo "generation $1" >"$T/src/marker"
}
ingest() {
	run_job "{\"kind\":\"ingest\",\"params\":{\"dataset\":\"ds\",\"filesystem\":\"fs0\",\"source\":\"$T/src\",\"dest\":\"/ds\",\"keep\":1}}"
	[ "$JOB_STATE" = succeeded ] || fail "ingest: $BODY"
}
gens() {   # "GEN:STATE:HELD ..." of ds, newest first
	api GET /v1/datasets/ds
	python3 -c 'import json,sys; print(" ".join("%d:%s:%d" % (g["generation"], g["state"], g["held"]) for g in json.loads(sys.argv[1])["generations"]))' "$BODY"
}

gens_are() { [ "$(gens)" = "$1" ]; }
# the space of the removed files goes to the release rule: free, or
# pending (reused once no client or open file can still reach it)
released_at_least() {
	api GET /v1/filesystems/fs0
	[ $(($(jq_get "$BODY" space.free) + $(jq_get "$BODY" space.pending))) -ge "$1" ]
}
holds_none() {
	api GET "/v1/holds?owner=$1"
	[ "$(jq_get "$BODY" items)" = "[]" ]
}

api POST /v1/datasets/ds/holds '{"owner":"slurm:1"}'; expect 404 not_found
gen_source 1
ingest
[ "$(gens)" = "1:serving:0" ] || fail "generation 1: $(gens)"

# bad requests change nothing
for b in '{}' '{"owner":""}' '{"owner":"-x"}' '{"owner":"a b"}' \
	 "{\"owner\":\"$(printf 'a%.0s' $(seq 1 129))\"}" '{"owner":"x","timeout_seconds":-1}' \
	 '{"owner":"x","timeout_seconds":3601}' '{"owner":"x","extra":1}' \
	 '{"owner":7}' '{"owner":"x","timeout_seconds":"5"}'; do
	api POST /v1/datasets/ds/holds "$b"
	[ "$STATUS" = 400 ] || fail "bad body $b: $STATUS $BODY"
done
api POST '/v1/datasets/bad%20name/holds' '{"owner":"x"}'; expect 404 not_found
api DELETE /v1/datasets/ds/holds; expect 400 missing_field
api DELETE '/v1/datasets/ds/holds?owner=slurm:1'; expect 404 not_found
api DELETE '/v1/holds?owner=a%20b'; expect 400 invalid_value
api DELETE /v1/holds; expect 400 missing_field
api PUT /v1/holds '{}'; expect 405
api PATCH /v1/datasets/ds/holds '{}'; expect 405
api GET '/v1/datasets?owner=x'; expect 400 unknown_parameter
api GET '/v1/holds?drift=true'; expect 400 unknown_parameter
api GET /v1/holds/7; expect 404
api GET /v1/holds
[ "$(jq_get "$BODY" items)" = "[]" ] || fail "bad requests held something: $BODY"
pass "bad hold requests: 400/404/405, nothing held"

api POST /v1/datasets/ds/holds '{"owner":"slurm:1","note":"step 0","timeout_seconds":5}'
expect 201
id=$(jq_get "$BODY" id)
[ "$(jq_get "$BODY" generation)" = 1 ] || fail "held generation: $BODY"
[ "$(jq_get "$BODY" path)" = "$PINS/ds/1" ] || fail "pin path: $BODY"
[ "$(jq_get "$BODY" mount)" = m0 ] || fail "mount: $BODY"
[ "$(jq_get "$BODY" note)" = "step 0" ] || fail "note: $BODY"
api POST /v1/datasets/ds/holds '{"owner":"slurm:1"}'; expect 200
[ "$(jq_get "$BODY" id)" = "$id" ] || fail "a second POST of the owner: $BODY"
api GET '/v1/holds?owner=slurm:1'
[ "$(jq_get "$BODY" items.0.id)" = "$id" ] || fail "GET ?owner: $BODY"
api GET '/v1/holds?owner=slurm:2'
[ "$(jq_get "$BODY" items)" = "[]" ] || fail "another owner: $BODY"
api GET /v1/datasets/ds/holds
[ "$(jq_get "$BODY" items.0.owner)" = slurm:1 ] || fail "dataset holds: $BODY"
cmp -s "$PINS/ds/1/data.bin" "$T/gen1.bin" || fail "pin content"
findmnt -n -o OPTIONS "$PINS/ds/1" | grep -q '^ro' || fail "pin not read-only: $(findmnt "$PINS/ds/1")"
touch "$PINS/ds/1/x" 2>/dev/null && fail "wrote into the pin"
[ "$(gens)" = "1:serving:1" ] || fail "held: $(gens)"
pass "a hold pins the serving generation read-only at $PINS/ds/1; a second POST gets it back (200)"

# a reader through the pin across two refreshes (keep 1)
: >"$T/reads"
reader() {
	while [ ! -e "$T/stop" ]; do
		if cmp -s "$PINS/ds/1/data.bin" "$T/gen1.bin" &&
		   [ "$(cat "$PINS/ds/1/marker")" = "generation 1" ]; then
			echo ok
		else
			echo BAD
		fi
	done >>"$T/reads"
}
reader & BG_PIDS+=($!)
wait_for 30 "the reader" test -s "$T/reads"
gen_source 2
ingest
gen_source 3
ingest
touch "$T/stop"
wait "${BG_PIDS[-1]}"
reads=$(grep -c ok "$T/reads"); bad=$(grep -c BAD "$T/reads")
[ "$bad" = 0 ] || fail "$bad of $((reads + bad)) reads through the pin saw other bytes"
[ "$reads" -gt 0 ] || fail "no reads"
[ "$(gens)" = "3:serving:0 2:kept:0 1:kept:1" ] || fail "after two refreshes: $(gens)"
cmp -s "$T/mnt/ds/data.bin" "$T/gen3.bin" || fail "generation 3 does not serve"
cmp -s "$T/mnt/.famfs-retired/ds.1/data.bin" "$T/gen1.bin" || fail "generation 1 not at its retired path"
cmp -s "$PINS/ds/1/data.bin" "$T/gen1.bin" || fail "pin after the refreshes"
pass "a held generation survives two refreshes with keep 1 (listed held beyond keep); $reads reads through the pin all saw generation 1"

api DELETE /v1/mounts/m0; expect 409 in_use
grep -q 'slurm:1' <<<"$BODY" || fail "mount delete refusal names no owner: $BODY"
mountpoint -q "$T/mnt" || fail "the refused delete unmounted"
pass "a mount with pins on it is not deleted (409 in_use naming the owners)"

metrics=$(curl -s --unix-socket "$SOCK" http://famfsd/metrics)
grep -q '^famfs_dataset_holds{dataset="ds"} 1$' <<<"$metrics" || fail "holds metric: $(grep hold <<<"$metrics")"
grep -q '^famfs_dataset_hold_oldest_age_seconds{dataset="ds"} [0-9]' <<<"$metrics" || fail "age metric"
grep -q '^famfs_holds_reaped_total 0$' <<<"$metrics" || fail "reaped metric"
if command -v promtool >/dev/null; then
	lint=$(promtool check metrics <<<"$metrics" 2>&1)
	grep -i hold <<<"$lint" && fail "promtool on the holds metrics: $lint"
fi
pass "metrics: famfs_dataset_holds, famfs_dataset_hold_oldest_age_seconds, famfs_holds_reaped_total"

api POST /v1/jobs '{"kind":"dataset_delete","params":{"dataset":"ds"}}'
expect 409 conflict
grep -q 'slurm:1' <<<"$BODY" || fail "delete refusal names no owner: $BODY"
pass "a dataset_delete of a held dataset: 409 naming the owners"

# a famfsd restart keeps holds; a pin lost meanwhile is made again
stop_famfsd || fail "famfsd stop"
umount -l "$PINS/ds/1"
start_famfsd "${ARGS[@]}"
api GET /v1/holds
[ "$(jq_get "$BODY" items.0.id)" = "$id" ] || fail "hold after restart: $BODY"
wait_for 60 "the pin made again after the restart" cmp -s "$PINS/ds/1/data.bin" "$T/gen1.bin"
findmnt -n -o OPTIONS "$PINS/ds/1" | grep -q '^ro' || fail "re-made pin not read-only"
pass "a famfsd restart keeps the hold and makes its lost pin again"

# the mount's FUSE server dies: the supervisor restarts it, the pin (a
# bind mount of the dead connection) is made again from the new mount
api GET /v1/mounts/m0; fpid=$(jq_get "$BODY" pid)
kill -KILL "$fpid"
mounted_again() {
	api GET /v1/mounts/m0
	[ "$(jq_get "$BODY" state)" = mounted ] && [ "$(jq_get "$BODY" pid)" != "$fpid" ]
}
wait_for 60 "the mount back" mounted_again
wait_for 60 "the pin made again after the remount" cmp -s "$PINS/ds/1/data.bin" "$T/gen1.bin"
[ "$(cat "$PINS/ds/1/marker")" = "generation 1" ] || fail "re-made pin shows $(cat "$PINS/ds/1/marker")"
pass "after the FUSE server died and came back, the pin shows generation 1 again"

# release: the pin goes, generation 1 is removed (beyond keep), its space
# goes to the release rule
api GET /v1/filesystems/fs0
free0=$(($(jq_get "$BODY" space.free) + $(jq_get "$BODY" space.pending)))
fbytes0=$(jq_get "$BODY" space.file_bytes)
api DELETE '/v1/datasets/ds/holds?owner=slurm:1'; expect 204
mountpoint -q "$PINS/ds/1" && fail "pin still mounted after the release"
wait_for 60 "generation 1 removed" gens_are "3:serving:0 2:kept:0"
[ -e "$T/mnt/.famfs-retired/ds.1" ] && fail "generation 1's tree still there"
wait_for 60 "generation 1's space released" released_at_least $((free0 + 4194304))
[ "$(jq_get "$BODY" space.file_bytes)" -le $((fbytes0 - 4194304)) ] || fail "file bytes after the removal: $BODY"
api GET '/v1/jobs?state=failed'
grep -q dataset_expire <<<"$BODY" && fail "expire job failed: $BODY"
pass "the release unmounts the pin, removes generation 1 (beyond keep), its space to the release rule"

# the reaper
for o in slurm:odd1 slurm:live1; do
	api POST /v1/datasets/ds/holds "{\"owner\":\"$o\"}"; expect 201
done
[ "$(gens)" = "3:serving:2 2:kept:0" ] || fail "two holds: $(gens)"
api POST /v1/datasets/ds/holds '{"owner":"slurm:dead1"}'; expect 201
wait_for 60 "the dead owner reaped" holds_none slurm:dead1
curl -s --unix-socket "$SOCK" http://famfsd/metrics | grep -q '^famfs_holds_reaped_total 1$' ||
	fail "reaped count: $(curl -s --unix-socket "$SOCK" http://famfsd/metrics | grep reaped)"
wait_for 30 "exit 3 logged" grep -q 'slurm:odd1 exited with 3' "$LOG"
api GET /v1/holds
[ "$(python3 -c 'import json,sys; print(",".join(h["owner"] for h in json.loads(sys.argv[1])["items"]))' "$BODY")" = "slurm:odd1,slurm:live1" ] ||
	fail "holds after reaping: $BODY"
pass "the reaper releases an owner that owner_check says is gone (exit 1) and counts it; exit 3 is logged, kept"

# famfs-cli get holds / release
if [ -x "${FAMFS_CLI:-}" ]; then
	out=$("$FAMFS_CLI" get holds --host "$SOCK") || fail "get holds: $out"
	grep -q '^ID  *DATASET  *GENERATION  *OWNER  *CREATED' <<<"$out" || fail "get holds header: $out"
	grep -q ' ds  *3  *slurm:odd1 ' <<<"$out" || fail "get holds row: $out"
	out=$("$FAMFS_CLI" get holds -o wide --host "$SOCK") || fail "get holds -o wide: $out"
	grep -q "$PINS/ds/3" <<<"$out" || fail "wide has no pin path: $out"
	out=$("$FAMFS_CLI" rollout history dataset ds --host "$SOCK") || fail "rollout history: $out"
	grep -q '^GENERATION .* HELD$' <<<"$out" && grep -q '^3  *serving .* 2$' <<<"$out" &&
		grep -q '^2  *kept .* 0$' <<<"$out" || fail "rollout history HELD: $out"
	out=$("$FAMFS_CLI" get holds -o json --host "$SOCK") || fail "get holds -o json: $out"
	[ "$(jq_get "$out" items.1.owner)" = slurm:live1 ] || fail "json: $out"
	"$FAMFS_CLI" release hold ds --host "$SOCK" >/dev/null 2>&1; [ $? = 2 ] || fail "release without --owner: not a usage error"
	"$FAMFS_CLI" release hold --owner x --host "$SOCK" >/dev/null 2>&1; [ $? = 2 ] || fail "release hold without a dataset: not a usage error"
	"$FAMFS_CLI" release hold ds --owner slurm:nobody --host "$SOCK" >/dev/null 2>&1; [ $? = 1 ] || fail "release of nothing: not 1"
	out=$("$FAMFS_CLI" release hold ds --owner slurm:odd1 --host "$SOCK") || fail "release hold: $out"
	out=$("$FAMFS_CLI" release holds --owner slurm:live1 --host "$SOCK") || fail "release holds: $out"
	grep -q '^released 1 hold' <<<"$out" || fail "release holds: $out"
	pass "famfs-cli get holds (table, wide, json) and release hold/holds"
fi
api DELETE '/v1/holds?owner=slurm:odd1'; expect 200
[ "$(jq_get "$BODY" released)" = 0 ] || [ ! -x "${FAMFS_CLI:-}" ] || fail "released again: $BODY"
api DELETE '/v1/holds?owner=slurm:live1'; expect 200
api GET /v1/holds
[ "$(jq_get "$BODY" items)" = "[]" ] || fail "holds left: $BODY"

# undo, then refresh: the generation that stopped serving is the one kept
run_job '{"kind":"dataset_undo","params":{"dataset":"ds"}}'
[ "$JOB_STATE" = succeeded ] || fail "undo: $BODY"
[ "$(gens)" = "3:kept:0 2:serving:0" ] || fail "after the undo: $(gens)"
gen_source 4
ingest
[ "$(gens)" = "4:serving:0 2:kept:0" ] || fail "undo then refresh kept the wrong one: $(gens)"
cmp -s "$T/mnt/.famfs-retired/ds.2/data.bin" "$T/gen2.bin" || fail "generation 2 not whole"
pass "undo then refresh: generation 2 (which stopped serving) is kept, 3 removed"

# a held generation through an undo: the pin follows it; a refresh keeps
# it beyond keep; an undo switches back to the one that stopped serving
# last, not the held older one; its release then removes it
api POST /v1/datasets/ds/holds '{"owner":"slurm:u"}'; expect 201
[ "$(jq_get "$BODY" generation)" = 4 ] || fail "hold of 4: $BODY"
run_job '{"kind":"dataset_undo","params":{"dataset":"ds"}}'
[ "$JOB_STATE" = succeeded ] || fail "undo of a held one: $BODY"
[ "$(gens)" = "4:kept:1 2:serving:0" ] || fail "after the undo of a held one: $(gens)"
cmp -s "$PINS/ds/4/data.bin" "$T/gen4.bin" || fail "the pin after the undo"
gen_source 5
ingest
[ "$(gens)" = "5:serving:0 4:kept:1 2:kept:0" ] || fail "held 4 beyond keep: $(gens)"
cmp -s "$PINS/ds/4/data.bin" "$T/gen4.bin" || fail "the pin after the undo and a refresh"
run_job '{"kind":"dataset_undo","params":{"dataset":"ds"}}'
[ "$JOB_STATE" = succeeded ] || fail "second undo: $BODY"
[ "$(gens)" = "5:kept:0 4:kept:1 2:serving:0" ] || fail "undo back to 2: $(gens)"
api DELETE '/v1/datasets/ds/holds?owner=slurm:u'; expect 204
wait_for 60 "generation 4 removed after its release" gens_are "5:kept:0 2:serving:0"
cmp -s "$T/mnt/ds/data.bin" "$T/gen2.bin" || fail "generation 2 does not serve"
pass "a held generation through undo and refresh: pinned, kept beyond keep, removed at its release; undo takes the last to stop serving"

api DELETE /v1/mounts/m0; expect 204
api POST /v1/datasets/ds/holds '{"owner":"slurm:9"}'; expect 409 conflict
grep -q 'no mount' <<<"$BODY" || fail "no mount: $BODY"
pass "a hold without a mount of the dataset's filesystem: 409"
