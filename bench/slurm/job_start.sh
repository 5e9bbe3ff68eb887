#!/bin/bash
# bench/slurm/job_start.sh [ROUNDS]: the time from srun to the first
# instruction of the task (bench/results/slurm.md), on the one-node Slurm
# and famfsd of tests/slurm/lib.sh, in three kinds of job, interleaved
# round by round:
#   plain    srun true, no dataset (the baseline)
#   mounted  srun --famfs-dataset=demo with the filesystem mounted
#   mount    the same right after the mount's famfs-fused was SIGKILLed,
#            so that the hold mounts the filesystem first
# Prints each kind's median and range, and the medians' ratios to plain.
# Needs what tests/slurm needs (run from a build tree: FAMFSD, PLUGINS,
# FAMFS_CLI, FAMFS_FUSED, SPANK_PLUGIN, JOB_ALIVE; see tests/slurm).
ROUNDS=${1:-7}
source "$(dirname "$0")/../../tests/slurm/lib.sh"
setup_all timeout=60

# start_to_task [srun args]: seconds from srun's start to the task's start
start_to_task() {
	local t0 t1
	t0=$(date +%s.%N)
	t1=$(srun "$@" date +%s.%N) || fail "srun $*: $t1"
	python3 -c 'import sys; print("%.3f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$t0" "$t1"
}
fused_pid() { json /v1/mounts/fs0-master 'v["pid"]'; }
not_mounted() { [ "$(json /v1/mounts/fs0-master 'v["state"]')" != mounted ]; }

: >"$T/plain" >"$T/mounted" >"$T/mount"
for r in $(seq 1 "$ROUNDS"); do
	start_to_task >>"$T/plain"
	start_to_task --famfs-dataset=demo >>"$T/mounted"
	kill -KILL "$(fused_pid)"
	wait_for 30 "famfsd to see the mount gone" not_mounted
	start_to_task --famfs-dataset=demo >>"$T/mount"
	wait_for 30 "the holds to go" no_holds
	echo "round $r: plain $(tail -1 "$T/plain") s, mounted $(tail -1 "$T/mounted") s, mount $(tail -1 "$T/mount") s"
done
python3 - "$T" <<'EOF'
import statistics, sys
v = {k: [float(x) for x in open(sys.argv[1] + "/" + k)] for k in ("plain", "mounted", "mount")}
base = statistics.median(v["plain"])
for k, xs in v.items():
    m = statistics.median(xs)
    print("%-8s median %.3f s (%.3f-%.3f), %.2f x plain" % (k, m, min(xs), max(xs), m / base))
EOF
