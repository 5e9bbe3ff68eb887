#!/bin/bash
# slurm_dataset_jobs: jobs that ask for dataset demo with --famfs-dataset.
#  1. srun: the task reads every file through $FAMFS_DATASET_demo,
#     byte-identical to the source; FAMFS_DATASET_demo_GENERATION is 1;
#     while it runs famfsd has the job's hold (owner slurm:<id>, note
#     "step 0 on <node>"); the job epilog releases it;
#  2. sbatch (#SBATCH --famfs-dataset=demo): the batch script and a step
#     it starts see the same pinned path;
#  3. a job holding generation 1 reads it in a loop while apply publishes
#     generations 2 and 3 with keep: 1: every read matches generation 1,
#     also reads begun after generation 3 serves; once the job ends
#     generation 1 is removed, its pin unmounted, and a file written
#     through the master mount is allocated in its space (the device has
#     less room elsewhere).
source "$(dirname "$0")/lib.sh"
# 48 MiB: 44 MiB for files, three generations of 12.6 MiB and 4 MiB free
FS_DEVICE_SIZE=48MiB setup_all timeout=20
tree_sums "$SRC/tree" >"$T/gen1.sums"
export SRC

# 1. srun; the task waits for the go file, so the hold is seen mid-job
srun --famfs-dataset=demo --chdir="$T" bash -c '
	echo "$SLURM_JOB_ID" >job1.id
	(cd "$FAMFS_DATASET_demo" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >job1.sums
	diff -r "$FAMFS_DATASET_demo" "$SRC/tree" >job1.diff 2>&1
	echo "$FAMFS_DATASET_demo $FAMFS_DATASET_demo_GENERATION $?" >job1.env
	touch job1.read
	while [ ! -e job1.go ]; do sleep 0.05; done' >"$T/job1.out" 2>&1 &
JOB1=$!
BG_PIDS+=("$JOB1")
wait_for 60 "job 1 to read the dataset" test -e "$T/job1.read"
id=$(cat "$T/job1.id")
read -r path gen diffrc <"$T/job1.env"
[ "$diffrc" = 0 ] || fail "diff -r of the pin and the source: $(cat "$T/job1.diff")"
[ "$path" = "$T/pins/demo/1" ] || fail "FAMFS_DATASET_demo is '$path', not the pin $T/pins/demo/1"
[ "$gen" = 1 ] || fail "FAMFS_DATASET_demo_GENERATION is '$gen'"
cmp -s "$T/gen1.sums" "$T/job1.sums" || fail "the job read other bytes: $(diff "$T/gen1.sums" "$T/job1.sums")"
[ "$(wc -l <"$T/job1.sums")" = 6 ] || fail "the job read $(wc -l <"$T/job1.sums") files, not 6"
[ "$(holds "slurm:$id")" = 1 ] || fail "no hold of slurm:$id while it runs: $(get /v1/holds)"
note=$(json "/v1/holds?owner=slurm:$id" 'v["items"][0]["note"]')
[ "$note" = "step 0 on $(hostname)" ] || fail "the hold's note is '$note'"
touch "$T/job1.go"
wait "$JOB1" || fail "srun exited $?: $(cat "$T/job1.out")"
wait_for 20 "the epilog to release slurm:$id" no_holds
pass "srun --famfs-dataset=demo reads every file through \$FAMFS_DATASET_demo as the source has it; the hold lives as long as the job"

# 2. sbatch: the batch script and its step see the same path
cat >"$T/batch.sh" <<'EOF'
#!/bin/bash
#SBATCH --famfs-dataset=demo
echo "batch $FAMFS_DATASET_demo $FAMFS_DATASET_demo_GENERATION"
srun bash -c 'echo "step $FAMFS_DATASET_demo $FAMFS_DATASET_demo_GENERATION"; cat "$FAMFS_DATASET_demo/sub/deeper/gen.txt"'
EOF
id=$(sbatch --parsable --chdir="$T" -o "$T/batch-%j.out" "$T/batch.sh") || fail "sbatch"
wait_for 60 "batch job $id to end" job_ended "$id"
[ "$(job_state "$id")" = COMPLETED ] || fail "batch job $id: $(job_state "$id"): $(cat "$T/batch-$id.out")"
printf 'batch %s 1\nstep %s 1\ngeneration 1\n' "$T/pins/demo/1" "$T/pins/demo/1" |
	cmp -s - "$T/batch-$id.out" || fail "batch job output: $(cat "$T/batch-$id.out")"
wait_for 20 "the epilog to release slurm:$id" no_holds
pass "#SBATCH --famfs-dataset=demo: the batch script and its steps see one pinned path"

# 3. a reader of generation 1 across two refreshes
cat >"$T/loop.sh" <<'EOF'
#!/bin/bash
# reads the tree until $T/stop is there, and once more after
cd "$1"
echo "$SLURM_JOB_ID" >loop.id
n=0 bad=0
while :; do
	last=0
	[ -e stop ] && last=1
	(cd "$FAMFS_DATASET_demo" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >loop.sums
	cmp -s loop.sums gen1.sums || { bad=$((bad + 1)); cp loop.sums "bad.$bad"; }
	n=$((n + 1))
	echo "$n" >loop.count
	[ $last = 1 ] && break
done
echo "reads=$n bad=$bad" >loop.result
EOF
srun --famfs-dataset=demo bash "$T/loop.sh" "$T" >"$T/loop.out" 2>&1 &
LOOP=$!
BG_PIDS+=("$LOOP")
wait_for 60 "the reading job to start" test -s "$T/loop.count"
id=$(cat "$T/loop.id")
# gen 1's strips (device offsets), through the pin
for f in f1.bin f2.bin f3.bin; do
	"$FAMFS_CLI" getmap -o json "$T/pins/demo/1/$f" >"$T/gen1.$f.map" || fail "getmap of generation 1's $f"
done
for g in 2 3; do
	head -c 1500017 /dev/urandom >"$SRC/tree/f1.bin"
	echo "generation $g" >"$SRC/tree/sub/deeper/gen.txt"
	apply_cluster
	[ "$(json /v1/datasets/demo 'v["generation"]')" = $g ] || fail "demo is not at generation $g: $(get /v1/datasets/demo)"
done
gens=$(json /v1/datasets/demo '" ".join("%d:%s:%d" % (g["generation"], g["state"], g["held"]) for g in v["generations"])')
[ "$gens" = "3:serving:0 2:kept:0 1:kept:1" ] || fail "generations after two refreshes: $gens"
c=$(cat "$T/loop.count")
touch "$T/stop"
wait "$LOOP" || fail "the reading job failed: $(cat "$T/loop.out")"
read -r result <"$T/loop.result"
[ "${result#reads=* }" = "bad=0" ] || fail "reads of generation 1 changed: $result ($(diff "$T/gen1.sums" "$T/bad.1"))"
n=${result#reads=}; n=${n%% *}
[ "$n" -gt "$c" ] || fail "no read after generation 3 served ($result, $c before)"
pass "a job holding generation 1 read it $n times across generations 2 and 3, every read as generation 1"

wait_for 20 "the epilog to release slurm:$id" no_holds
generations() { json /v1/datasets/demo '" ".join(str(g["generation"]) for g in v["generations"])'; }
gen1_removed() { [ "$(generations)" = "3 2" ]; }
wait_for 30 "generation 1 to be removed (now: $(generations))" gen1_removed
mountpoint -q "$T/pins/demo/1" && fail "generation 1's pin is still mounted"
# 8 MiB: more than the device's free space outside generation 1's
head -c 8388608 /dev/urandom >"$T/reuse.bin"
cp "$T/reuse.bin" "$T/mnt/reuse.bin" || fail "an 8 MiB file does not fit where generation 1 was: $(json /v1/filesystems/fs0 'v["space"]')"
cmp -s "$T/reuse.bin" "$T/mnt/reuse.bin" || fail "the 8 MiB file reads back other bytes"
"$FAMFS_CLI" getmap -o json "$T/mnt/reuse.bin" >"$T/new.reuse.map" || fail "getmap of the new file"
python3 - "$T" <<'EOF' || fail "the new file is not in generation 1's space"
import glob, json, sys
def strips(pattern):
    out = []
    for p in glob.glob(pattern):
        m = json.load(open(p))["map"]
        out += [(s["device"], s["offset"], s["offset"] + s["length"])
                for s in m.get("strips", m.get("extents", []))]
    return out
old, new = strips(sys.argv[1] + "/gen1.*.map"), strips(sys.argv[1] + "/new.*.map")
assert old and new, (old, new)
reused = [n for n in new for o in old if n[0] == o[0] and n[1] < o[2] and o[1] < n[2]]
assert reused, "generation 1: %s; the new file: %s" % (old, new)
EOF
pass "after the job, generation 1 is removed and its space reused (a new file lies in it)"
