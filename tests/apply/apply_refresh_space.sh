#!/bin/bash
# apply_refresh_space: the plan of a dataset's refresh places its whole
# new generation (in the staging tree) while the generation that serves
# and the kept ones still hold their space, as the job will. Two 64 MiB
# devices: generation 1 holds a file over half the room; a changed
# source of the same size is refused by `diff`, `apply --dry-run` and
# `apply`, naming the dataset, the generation, the sizes and the room on
# each device, and nothing changes (no job, generation 1 serves, no
# staging tree); a smaller changed source fits and converges to
# generation 2 with generation 1 kept.
source "$(dirname "$0")/lib.sh"
start_host h0
F=$T/cluster.yaml
U=2097152
mkdir -p "$T/src/sub"
cat >"$F" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: refresh-space}
hosts:
  - {name: h0, endpoint: $T/h0/sock, role: master}
devices:
  - {name: e0, emul: {path: $T/e0, size: 64MiB}}
  - {name: e1, emul: {path: $T/e1, size: 64MiB}}
sets:
  - {name: s0, devices: [e0, e1]}
filesystems:
  - {name: fs0, set: s0, master: h0, logSize: 4MiB}
EOT
run_cli 0 apply "$F"
largest=$(field h0 /v1/filesystems/fs0 space.largest_file)
big=$(( (largest / 2 / U + 1) * U ))
truncate -s "$big" "$T/src/sub/big"
echo small >"$T/src/small.txt"
cat >>"$F" <<EOT
datasets:
  - {name: ref, source: $T/src, filesystem: fs0}
EOT
run_cli 0 apply "$F"
[ "$(field h0 /v1/datasets/ref generation)" = 1 ] || fail "generation 1: $(get h0 /v1/datasets/ref)"
if [ "$(field h0 '/v1/datasets/ref' generations.0.path)" != /ref ]; then
	fail "generation 1 is not at /ref: $(get h0 /v1/datasets/ref)"
fi
echo "two 64 MiB devices: the largest file $largest bytes; generation 1 holds $big"

touch -d '2020-01-02' "$T/src/sub/big"   # changed: the same size again
jobs=$(count h0 /v1/jobs)
before=$(snapshot h0)
run_cli 2 diff "$F"
grep -q "dataset ref: its refresh (generation 2, beside the generations that stay) cannot be placed in fs0 (2 files, $((big + 6)) bytes to copy): sub/big does not fit (.*a file of $big bytes.*room on each device (free, largest run): dev0 [0-9]*, [0-9]*; dev1 [0-9]*, [0-9]*" <<<"$OUT" ||
	fail "diff: no refusal naming the refresh, sizes and room: $OUT"
pass "diff refuses a refresh that does not fit beside generation 1, naming sizes and room"
for dry in --dry-run ""; do
	# shellcheck disable=SC2086
	run_cli 1 apply $dry "$F"
	grep -q "its refresh (generation 2, beside the generations that stay) cannot be placed in fs0" <<<"$OUT" &&
		grep -q "^Apply refused: 1 conflict above; nothing was changed" <<<"$OUT" ||
		fail "apply $dry did not refuse: $OUT"
	[ "$before" = "$(snapshot h0)" ] || fail "a refused apply $dry changed the state"
	[ "$(count h0 /v1/jobs)" = "$jobs" ] || fail "a refused apply $dry started a job: $(get h0 /v1/jobs)"
	[ "$(field h0 /v1/datasets/ref generation)" = 1 ] || fail "generation: $(get h0 /v1/datasets/ref)"
	api h0 GET /v1/files/fs0/.famfs-staging/ref.2
	[ "$STATUS" = 404 ] || fail "a refused apply $dry made a staging tree: $STATUS $BODY"
	pass "apply ${dry:-(no flag)} refuses it up front, nothing changed"
done

truncate -s $((2 * U)) "$T/src/sub/big"
run_cli 1 diff "$F"
grep -q "dataset ref: the 2 files to copy ($((2 * U + 6)) bytes) place in fs0 with the allocator's rule, beside the generations that stay" <<<"$OUT" ||
	fail "diff of a refresh that fits: $OUT"
run_cli 0 apply "$F"
[ "$(field h0 /v1/datasets/ref generation)" = 2 ] || fail "generation 2: $(get h0 /v1/datasets/ref)"
[ "$(field h0 /v1/datasets/ref generations.1.state)" = kept ] || fail "generation 1 kept: $(get h0 /v1/datasets/ref)"
[ "$(field h0 /v1/files/fs0/ref/sub/big size)" = $((2 * U)) ] || fail "generation 2's file"
run_cli 0 apply "$F"
grep -q "^No changes" <<<"$OUT" || fail "after the refresh: $OUT"
pass "a refresh that fits beside generation 1 is planned as such and converges"
