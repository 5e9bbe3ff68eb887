#!/bin/bash
# slurm_failures: a job whose dataset cannot be held fails before its task
# runs, with one line on its stderr naming the dataset and the reason, a
# non-zero exit, and no hold left behind; the node stays usable:
#  1. an unknown dataset (srun; sbatch: the line in the job's output, the
#     job FAILED, the node not drained);
#  2. a known and an unknown one: the known one's hold is given back;
#  3. famfsd stopped;
#  4. bad input refused by srun itself: a bad dataset name, a bad
#     plugstack.conf argument (the job is never submitted).
source "$(dirname "$0")/lib.sh"
setup_all timeout=5

# expect_failed_step OUT RC DATASET REASON: srun's exit, the one plugin
# line naming DATASET with REASON, the task not run, nothing held.
expect_failed_step() {
	local out=$1 rc=$2 ds=$3 reason=$4 lines
	[ "$rc" != 0 ] || fail "srun exited 0 for dataset $ds: $(cat "$out")"
	[ ! -e "$T/task.ran" ] || fail "the task ran although dataset $ds was not held"
	lines=$(grep -c '^famfs-slurm: ' "$out")
	[ "$lines" = 1 ] || fail "$lines plugin lines, not 1: $(cat "$out")"
	grep -q "^famfs-slurm: dataset '$ds' not held on $(hostname): .*$reason" "$out" ||
		fail "no line naming '$ds' and '$reason': $(cat "$out")"
	[ "$(holds)" = 0 ] || fail "a hold stayed: $(get /v1/holds)"
}

srun --famfs-dataset=nope touch "$T/task.ran" >"$T/nope.out" 2>&1
expect_failed_step "$T/nope.out" $? nope "no dataset 'nope' (famfsd: 404 not_found)"
cat "$T/nope.out"
pass "srun --famfs-dataset=nope: the task never runs, one line names the dataset and famfsd's answer"

cat >"$T/batch.sh" <<EOF
#!/bin/bash
#SBATCH --famfs-dataset=nope
touch $T/task.ran
EOF
id=$(sbatch --parsable -o "$T/batch-%j.out" "$T/batch.sh") || fail "sbatch"
wait_for 60 "batch job $id to end" job_ended "$id"
[ "$(job_state "$id")" = FAILED ] || fail "batch job $id is $(job_state "$id"), not FAILED"
expect_failed_step "$T/batch-$id.out" 1 nope "no dataset 'nope'"
# (Slurm may add lines of its own under load; the plugin's is one)
scontrol -o show job "$id" | grep -q ' ExitCode=1:0 ' || fail "batch job's exit code: $(scontrol -o show job "$id")"
wait_for 30 "the node to be idle again (now '$(node_state)')" node_idle
pass "sbatch with an unknown dataset: FAILED, exit 1, the one line in its output; the node is not drained"

srun --famfs-dataset=demo,nope touch "$T/task.ran" >"$T/both.out" 2>&1
expect_failed_step "$T/both.out" $? nope "no dataset 'nope'"
grep -q "slurm:.*: dataset 'demo'" "$T/slurm/slurmd.log" ||
	fail "slurmd's log does not show the demo hold taken: $(grep famfs-slurm "$T/slurm/slurmd.log")"
pass "--famfs-dataset=demo,nope: the hold taken on demo is given back"

stop_famfsd
srun --famfs-dataset=demo touch "$T/task.ran" >"$T/down.out" 2>&1
rc=$?
start_famfsd
# a stopped famfsd removes its socket: "No such file or directory"
expect_failed_step "$T/down.out" $rc demo "famfsd is not answering on $SOCK ("
pass "famfsd stopped: the job fails before its task with 'famfsd is not answering'; nothing is held"

srun --famfs-dataset='demo,../x' touch "$T/task.ran" >"$T/bad.out" 2>&1 && fail "srun accepted a bad dataset name"
grep -q "famfs-slurm: --famfs-dataset: '../x' is not a dataset name" "$T/bad.out" || fail "bad name: $(cat "$T/bad.out")"
[ ! -e "$T/task.ran" ] || fail "the task ran"
sed "s#^PlugStackConfig=.*#PlugStackConfig=$T/bad-plugstack.conf#" "$SLURM_CONF" >"$T/bad-slurm.conf"
echo "required $SPANK_PLUGIN socket=$SOCK timeout=soon" >"$T/bad-plugstack.conf"
SLURM_CONF=$T/bad-slurm.conf srun --famfs-dataset=demo touch "$T/task.ran" >"$T/badarg.out" 2>&1 &&
	fail "srun ran with a bad plugstack.conf argument"
grep -q "famfs-slurm: plugstack.conf: timeout=soon: not a number of seconds from 0 to 3600" "$T/badarg.out" ||
	fail "bad plugstack argument: $(cat "$T/badarg.out")"
[ ! -e "$T/task.ran" ] || fail "the task ran"
[ "$(holds)" = 0 ] || fail "a hold stayed: $(get /v1/holds)"
pass "srun refuses a bad dataset name and a bad plugstack.conf argument, naming them"
