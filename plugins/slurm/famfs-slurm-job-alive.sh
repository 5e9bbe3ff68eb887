#!/bin/sh
# famfs-slurm-job-alive OWNER: famfsd's holds.owner_check for the holds the
# famfs-slurm plugin takes (docs/slurm.md, "Reaping"). OWNER is
# slurm:<jobid>. Exit status, as famfsd reads it:
#   0  the job has not ended: pending, running, suspended, or completing
#      (its epilog is still to release its holds);
#   1  the job is gone: it ended, or slurmctld no longer knows it;
#   2  unknown: not a slurm: owner, or slurmctld did not answer.
# famfsd releases the holds of an owner only on 1.
set -u
me=famfs-slurm-job-alive
case ${1:-} in
slurm:[0-9]*) job=${1#slurm:} ;;
*) echo "$me: '${1:-}' is not slurm:<jobid>" >&2; exit 2 ;;
esac
case $job in
*[!0-9]*) echo "$me: '$1' is not slurm:<jobid>" >&2; exit 2 ;;
esac

# scontrol retries an unreachable slurmctld for a long time: bound it
# below the 30 s after which famfsd kills an owner check
out=$(LC_ALL=C timeout 20 scontrol --oneliner show job "$job" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	case $out in
	*"Invalid job id specified"*) exit 1 ;;
	esac
	echo "$me: scontrol show job $job (exit $rc): $out" >&2
	exit 2
fi
state=$(printf '%s\n' "$out" | sed -n 's/.*[[:space:]]JobState=\([A-Z_]*\).*/\1/p' | head -n 1)
case $state in
PENDING | RUNNING | SUSPENDED | COMPLETING | CONFIGURING | RESIZING | \
	REQUEUED | REQUEUE_FED | REQUEUE_HOLD | SPECIAL_EXIT | SIGNALING | \
	STAGE_OUT | STOPPED | RESV_DEL_HOLD | POWER_UP_NODE | UPDATE_DB)
	exit 0 ;;
COMPLETED | CANCELLED | FAILED | TIMEOUT | NODE_FAIL | PREEMPTED | \
	BOOT_FAIL | DEADLINE | OUT_OF_MEMORY | REVOKED)
	exit 1 ;;
esac
echo "$me: job $job: state '$state' not understood: $out" >&2
exit 2
