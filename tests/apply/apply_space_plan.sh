#!/bin/bash
# apply_space_plan: apply's plan places every file of a dataset's tree on
# paper with the allocator's rule, on the master's famfsd (the tree is
# there), before anything is written. Two 64 MiB devices, 4 MiB log: a
# tree one unit (2 MiB) over the largest file famfsd reports is refused
# by `apply --dry-run` and `apply` naming the dataset, the file, the
# strips and the room on each device, and nothing changes (no job, no
# file, no directory); the tree of exactly that size converges. The same
# on a host where the plan also makes the devices and the filesystem
# (placed on paper as mkfs will make it): refused with nothing made,
# then made and converged.
source "$(dirname "$0")/lib.sh"
start_host h0
api h0 POST /v1/jobs '{"kind":"ingest","params":{}}'
[ "$STATUS" = 501 ] && { echo "skip: famfsd has no ingest runner"; exit 77; }
F=$T/cluster.yaml
U=2097152

H=h0
write_file() { # dataset lines... (on host $H)
	cat >"$F" <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: space}
hosts:
  - {name: $H, endpoint: $T/$H/sock, role: master}
devices:
  - {name: e0, emul: {path: $T/$H-e0, size: 64MiB}}
  - {name: e1, emul: {path: $T/$H-e1, size: 64MiB}}
sets:
  - {name: s0, devices: [e0, e1]}
filesystems:
  - {name: fs0, set: s0, master: $H, logSize: 4MiB}
EOT
	[ $# -gt 0 ] && echo "datasets:" >>"$F"
	for l in "$@"; do echo "  - $l" >>"$F"; done
}

write_file
run_cli 0 apply "$F"
largest=$(field h0 /v1/filesystems/fs0 space.largest_file)
free=$(field h0 /v1/filesystems/fs0 space.free)
[ "$largest" -gt 0 ] && [ "$largest" -lt "$free" ] ||
	fail "space: largest $largest, free $free"
echo "two 64 MiB devices, 4 MiB log: $free bytes free, the largest file $largest"

mkdir -p "$T/over/sub" "$T/at/sub"
truncate -s $((largest + U)) "$T/over/sub/big"
echo small >"$T/over/small.txt"
truncate -s "$largest" "$T/at/sub/big"

write_file "{name: over, source: $T/over, filesystem: fs0}"
before=$(snapshot h0)
for dry in --dry-run ""; do
	# shellcheck disable=SC2086
	run_cli 1 apply $dry "$F"
	grep -q "conflict: host h0: dataset over cannot be placed in fs0 (2 files, [0-9]* bytes to copy): sub/big does not fit (placed largest first, file 1 of 2: no space: a file of $((largest + U)) bytes takes 2 strips of [0-9]* bytes, each in one run; room on each device (free, largest run): dev0 [0-9]*, [0-9]*; dev1 [0-9]*, [0-9]*" <<<"$OUT" ||
		fail "apply $dry: no refusal naming the dataset, file, strips and room: $OUT"
	grep -q "nothing was copied" <<<"$OUT" && fail "a plan says what a run did: $OUT"
	refusal=$(grep -o "sub/big does not fit.*" <<<"$OUT")
	grep -q "^Apply refused: 1 conflict above; nothing was changed" <<<"$OUT" ||
		fail "apply $dry did not refuse: $OUT"
	[ "$before" = "$(snapshot h0)" ] || fail "a refused apply $dry changed the state"
	[ "$(count h0 /v1/jobs)" = 0 ] || fail "a refused apply $dry left a job: $(get h0 /v1/jobs)"
	[ "$(field h0 /v1/filesystems/fs0 space.files)" = 0 ] &&
		[ "$(count h0 /v1/files/fs0)" = 0 ] ||
		fail "a refused apply $dry wrote to fs0: $(get h0 /v1/files/fs0)"
	pass "apply ${dry:-(no flag)} refuses a tree one unit over, up front, nothing changed"
done
run_cli 2 diff "$F"
grep -q "dataset over cannot be placed in fs0" <<<"$OUT" || fail "diff: $OUT"
pass "diff shows the same refusal"

# the dry run itself: famfsd's answer, and its bad input
api h0 POST /v1/jobs "{\"kind\":\"ingest\",\"dry_run\":true,\"params\":{\"filesystem\":\"fs0\",\"source\":\"$T/over\",\"dest\":\"/over\"}}"
[ "$STATUS" = 200 ] || fail "dry run: $STATUS $BODY"
python3 -c '
import json, sys
b = json.loads(sys.argv[1])
assert b["fits"] is False and b["files_to_copy"] == 2, b
assert b["first_unplaced"] == {"path": "sub/big", "size": int(sys.argv[2])}, b
assert b["bytes_to_copy"] == int(sys.argv[2]) + 6, b' "$BODY" $((largest + U)) ||
	fail "dry run answer: $BODY"
api h0 POST /v1/jobs "{\"kind\":\"rescan\",\"dry_run\":true}"
[ "$STATUS" = 400 ] && grep -q "only an ingest job has a dry run" <<<"$BODY" ||
	fail "dry run of a rescan: $STATUS $BODY"
api h0 POST /v1/jobs "{\"kind\":\"ingest\",\"dry_run\":true,\"params\":{\"filesystem\":\"nofs\",\"source\":\"$T/over\",\"dest\":\"/x\"}}"
[ "$STATUS" = 404 ] && grep -q "no filesystem 'nofs'" <<<"$BODY" ||
	fail "dry run on a missing filesystem: $STATUS $BODY"
api h0 POST /v1/jobs "{\"kind\":\"ingest\",\"dry_run\":true,\"params\":{\"source\":\"/etc\",\"dest\":\"/x\"}}"
[ "$STATUS" = 403 ] || fail "dry run of a source outside paths.sources: $STATUS $BODY"
[ "$(count h0 /v1/jobs)" = 0 ] || fail "a dry run made a job: $(get h0 /v1/jobs)"
pass "the dry run answers fits/first_unplaced, refuses bad input, records no job"

write_file "{name: at, source: $T/at, filesystem: fs0}"
run_cli 1 diff "$F"
grep -q "Note: host h0: dataset at: the 1 files to copy (.*) place in fs0 with the allocator's rule" <<<"$OUT" ||
	fail "diff of a tree that fits: $OUT"
run_cli 0 apply "$F"
[ "$(field h0 /v1/jobs items.0.state)" = succeeded ] || fail "ingest job: $(get h0 /v1/jobs)"
[ "$(field h0 /v1/files/fs0/at/sub/big size)" = "$largest" ] ||
	fail "the file: $(get h0 /v1/files/fs0/at/sub/big)"
run_cli 0 apply "$F"
grep -q "^No changes" <<<"$OUT" || fail "second apply: $OUT"
pass "a tree of exactly the largest file is placed and converges"

# a host with nothing yet: the plan makes devices, set, filesystem and
# places the tree on what mkfs will make
start_host h1
H=h1
write_file "{name: over, source: $T/over, filesystem: fs0}"
before=$(snapshot h1)
run_cli 1 apply "$F"
grep -q "conflict: host h1: dataset over cannot be placed in fs0 (2 files, [0-9]* bytes to copy): sub/big does not fit (placed largest first, file 1 of 2: no space: a file of $((largest + U)) bytes takes 2 strips of [0-9]* bytes, each in one run; room on each device (free, largest run): dev0 [0-9]*, [0-9]*; dev1 [0-9]*, [0-9]*" <<<"$OUT" ||
	fail "apply on a new filesystem: no refusal: $OUT"
[ "$refusal" = "$(grep -o "sub/big does not fit.*" <<<"$OUT")" ] ||
	fail "on paper ($OUT) and on the real filesystem ($refusal) differ"
[ "$before" = "$(snapshot h1)" ] || fail "a refused apply changed h1"
[ ! -e "$T/h1-e0" ] && [ ! -e "$T/h1-e1" ] || fail "a refused apply made a device file"
pass "a tree one unit over a filesystem not made yet is refused, nothing made"
write_file "{name: at, source: $T/at, filesystem: fs0}"
run_cli 0 apply "$F"
[ "$(field h1 /v1/files/fs0/at/sub/big size)" = "$largest" ] ||
	fail "h1's file: $(get h1 /v1/files/fs0/at/sub/big)"
pass "the tree of the largest file is placed on a filesystem the same apply made"
