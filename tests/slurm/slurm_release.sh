#!/bin/bash
# slurm_release: how a job's holds go when it ends other than normally
# (docs/slurm.md, "Release and reaping").
#  1. scancel of a running job: slurmd runs the job epilog, which
#     releases the hold;
#  2. SIGKILL of the step's slurmstepd: the job stays RUNNING (srun waits
#     for it) and so does the hold; scancel then ends it and the epilog
#     releases the hold;
#  3. famfsd stopped while a job ends: the epilog cannot release; famfsd,
#     started again, has the hold (SQLite) and its owner check
#     (famfs-slurm-job-alive) reaps it, counted in famfs_holds_reaped_total;
#     a running job's hold is not reaped;
#  4. famfs-slurm-job-alive's answers: 0 running, 1 ended or unknown to
#     slurmctld, 2 not a Slurm owner or slurmctld not answering.
source "$(dirname "$0")/lib.sh"
setup_all timeout=20
JOB_LOG=$T/slurm/slurmd.log
has_hold() { [ "$(holds "slurm:$1")" = 1 ]; }
job_named() { [ -n "$(squeue -h -n "$1" -o %i)" ]; }

# start_held_job NAME: srun of a sleeping task holding demo, in the
# background; sets JOB (its id) once famfsd has its hold.
start_held_job() {
	srun --famfs-dataset=demo --job-name="$1" sleep 600 >"$T/$1.out" 2>&1 &
	BG_PIDS+=($!)
	wait_for 60 "job $1 to start" job_named "$1"
	JOB=$(squeue -h -n "$1" -o %i)
	wait_for 60 "job $1 ($JOB) to hold demo" has_hold "$JOB"
}

# 1. scancel
start_held_job cancelled
scancel "$JOB"
wait_for 30 "the hold of cancelled job $JOB to go" no_holds
grep -q "famfs-slurm: slurm:$JOB: released 1 hold(s)" "$JOB_LOG" ||
	fail "slurmd's log has no epilog release of job $JOB"
pass "scancel of a running job: the job epilog releases its hold"

# 2. SIGKILL of slurmstepd
start_held_job killed
stepd=
for p in $(our_stepds); do
	tr '\0' ' ' <"/proc/$p/cmdline" | grep -q "\[$JOB\.0\]" && stepd=$p
done
[ -n "$stepd" ] || fail "no slurmstepd of step $JOB.0"
kill -KILL "$stepd"
[ "$(job_state "$JOB")" = RUNNING ] || fail "job $JOB is $(job_state "$JOB") after SIGKILL of its slurmstepd"
has_hold "$JOB" || fail "the hold of job $JOB went with its slurmstepd"
scancel "$JOB"
wait_for 30 "the hold of killed job $JOB to go" no_holds
grep -q "famfs-slurm: slurm:$JOB: released 1 hold(s)" "$JOB_LOG" ||
	fail "slurmd's log has no epilog release of job $JOB"
pass "SIGKILL of slurmstepd: the job and its hold stay until scancel, whose epilog releases it"

# 3. the epilog misses famfsd; the owner check reaps
start_held_job alive
alive=$JOB
start_held_job orphan
stop_famfsd
scancel "$JOB"
wait_for 30 "job $JOB to end" job_ended "$JOB"
grep -q "famfs-slurm: slurm:$JOB: no famfsd here" "$JOB_LOG" ||
	fail "slurmd's log does not show the epilog missing famfsd: $(grep famfs-slurm "$JOB_LOG" | tail -3)"
start_famfsd
has_hold "$JOB" || fail "famfsd lost the hold of job $JOB across its restart: $(get /v1/holds)"
reaped() { [ "$(holds "slurm:$JOB")" = 0 ]; }
wait_for 60 "famfsd to reap the hold of ended job $JOB" reaped
get /metrics | grep -q '^famfs_holds_reaped_total 1$' ||
	fail "famfs_holds_reaped_total: $(get /metrics | grep holds_reaped)"
has_hold "$alive" || fail "the hold of running job $alive was reaped"
pass "a hold whose epilog found no famfsd survives famfsd's restart and is reaped once its job has ended (counted); a running job's is kept"

# 4. famfs-slurm-job-alive
alive_rc() { "$JOB_ALIVE" "$1" >"$T/alive.out" 2>&1; echo $?; }
[ "$(alive_rc "slurm:$alive")" = 0 ] || fail "running job $alive: $(cat "$T/alive.out")"
scancel "$alive"
wait_for 30 "the hold of job $alive to go" no_holds
wait_for 30 "job $alive to end" job_ended "$alive"
[ "$(alive_rc "slurm:$alive")" = 1 ] || fail "ended job $alive: $(cat "$T/alive.out")"
[ "$(alive_rc slurm:999999)" = 1 ] || fail "a job slurmctld does not know: $(cat "$T/alive.out")"
[ "$(alive_rc other:12)" = 2 ] || fail "a non-Slurm owner: $(cat "$T/alive.out")"
grep -q "'other:12' is not slurm:<jobid>" "$T/alive.out" || fail "message: $(cat "$T/alive.out")"
[ "$(alive_rc slurm:12x)" = 2 ] || fail "slurm:12x: $(cat "$T/alive.out")"
stop_pid "$SLURMCTLD_PID"
SLURMCTLD_PID=
[ "$(alive_rc "slurm:$alive")" = 2 ] || fail "slurmctld stopped: $(cat "$T/alive.out")"
grep -q "scontrol show job $alive" "$T/alive.out" || fail "message: $(cat "$T/alive.out")"
pass "famfs-slurm-job-alive: 0 running, 1 ended or unknown, 2 not slurm:<id> or slurmctld not answering"
