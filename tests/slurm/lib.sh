#!/bin/bash
# The harness of the famfs-slurm tests: a one-node Slurm of the test's own
# (munged with a fresh key, slurmctld, slurmd; own slurm.conf, ports,
# state and spool under $T) whose plugstack.conf loads the built plugin,
# and a famfsd serving dataset "demo" ingested from a loop-mounted XFS
# image into a FUSE-mounted famfs. cleanup (trap) stops every job and
# daemon and unmounts everything under $T, also when a check fails.
# Needs FAMFSD, PLUGINS, FAMFS_CLI, FAMFS_FUSED, SPANK_PLUGIN, JOB_ALIVE
# (ctest sets them).
set -u

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
source "$(dirname "${BASH_SOURCE[0]}")/../lib/wait_for.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../lib/famfsd_api.sh"

missing=
for p in munged slurmctld slurmd srun sbatch salloc scontrol scancel squeue; do
	command -v $p >/dev/null || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "skip: Slurm is not installed (missing:$missing); scripts/install-deps.sh check installs slurmctld slurmd slurm-client munge"
	exit 77
fi
[ -n "${SPANK_PLUGIN:-}" ] && [ -f "$SPANK_PLUGIN" ] ||
	fail "famfs_slurm.so was not built (SPANK_PLUGIN='${SPANK_PLUGIN:-}'): install libslurm-dev and reconfigure"
[ "$(id -u)" = 0 ] || fail "the Slurm tests run as root (slurmd, loop and FUSE mounts)"
[ -n "${FAMFS_FUSED:-}" ] && [ -e /dev/fuse ] || fail "famfs-fused and /dev/fuse are needed"

mkdir -p "${SLURM_TEST_WORK:-/tmp}"
T=$(mktemp -d "${SLURM_TEST_WORK:-/tmp}/famfs-slurm.XXXXXX")
chmod 755 "$T"
SOCK=$T/famfsd/sock
FAMFSD_PID=
MUNGED_PID=
SLURMCTLD_PID=
SLURMD_PID=
BG_PIDS=()
export SLURM_CONF=$T/slurm/slurm.conf
trap cleanup EXIT
# an interrupted run (timeout(1), ^C) cleans up too
trap 'exit 143' TERM
trap 'exit 130' INT

# Processes of this test's Slurm: its slurmstepds and the job tasks carry
# its SLURM_CONF in their environment (slurmd and srun pass it on).
# our_procs [NAME]: their pids (those named NAME), this shell left out.
our_procs() {
	local p pids
	if [ $# -gt 0 ]; then pids=$(pgrep -x "$1"); else pids=$(ls /proc | grep -E '^[0-9]+$'); fi
	for p in $pids; do
		[ "$p" = $$ ] && continue
		{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "SLURM_CONF=$SLURM_CONF" && echo "$p"
	done
}
our_stepds() { our_procs slurmstepd; }

stop_pid() {  # stop_pid PID: TERM, then KILL after 5 s
	local p=$1
	[ -n "$p" ] && kill -0 "$p" 2>/dev/null || return 0
	kill -TERM "$p" 2>/dev/null
	for _ in $(seq 1 100); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	return 0
}

cleanup() {
	local rc=$? p m
	for p in "${BG_PIDS[@]}"; do stop_pid "$p"; done
	[ -n "$SLURMCTLD_PID" ] && timeout 10 scancel --full --quiet -u root 2>/dev/null
	stop_pid "$SLURMD_PID"
	for p in $(our_stepds); do kill -KILL "$p" 2>/dev/null; done
	stop_pid "$SLURMCTLD_PID"
	stop_pid "$MUNGED_PID"
	stop_pid "$FAMFSD_PID"
	# pins and FUSE mounts of famfsd, then the XFS source (deepest first)
	for m in $(awk -v t="$T" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
		umount "$m" 2>/dev/null || fusermount3 -u -z "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	# what is left with this test's SLURM_CONF: the tasks of a step whose
	# slurmstepd was killed, a famfs-fused whose mount is gone
	for p in $(our_procs); do kill -KILL "$p" 2>/dev/null; done
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		for l in "$T"/famfsd/famfsd.log "$T"/slurm/slurmctld.log "$T"/slurm/slurmd.log; do
			[ -f "$l" ] && { echo "---- $l ----"; tail -40 "$l"; }
		done
	fi
	rm -rf "$T"
	exit $rc
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_munge: munged with a key made now, its socket, state and log in $T.
start_munge() {
	local m=$T/munge
	mkdir -p "$m"
	chmod 700 "$m"
	dd if=/dev/urandom of="$m/munge.key" bs=1024 count=1 status=none
	chmod 400 "$m/munge.key"
	munged --foreground --force --key-file="$m/munge.key" --socket="$m/munge.sock" \
		--pid-file="$m/munged.pid" --log-file="$m/munged.log" \
		--seed-file="$m/munged.seed" >>"$m/munged.out" 2>&1 &
	MUNGED_PID=$!
	wait_for 10 "munged's socket" test -S "$m/munge.sock"
}

# write_slurm_conf PLUGSTACK_ARGS: slurm.conf and plugstack.conf for one
# node (this host), free ports, everything under $T/slurm.
write_slurm_conf() {
	local s=$T/slurm host
	host=$(hostname -s)
	mkdir -p "$s/state" "$s/spool" "$s/tmp"
	SLURM_NODE=$host
	cat >"$s/slurm.conf" <<EOF
ClusterName=famfstest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
TmpFS=$s/tmp
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
SlurmctldDebug=info
SlurmdDebug=debug
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=2
MinJobAge=300
InactiveLimit=0
PlugStackConfig=$s/plugstack.conf
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 RealMemory=512 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	echo "required $SPANK_PLUGIN $*" >"$s/plugstack.conf"
}

slurmctld_up() { scontrol ping 2>/dev/null | grep -q "is UP"; }
node_state() { sinfo -h -N -o %T 2>/dev/null | head -1; }
node_idle() { [ "$(node_state)" = idle ]; }

# start_slurm PLUGSTACK_ARGS: munged, slurmctld and slurmd; returns when
# the node is idle.
start_slurm() {
	start_munge
	write_slurm_conf "$@"
	slurmctld -D -i >>"$T/slurm/slurmctld.out" 2>&1 &
	SLURMCTLD_PID=$!
	wait_for 20 "slurmctld to answer" slurmctld_up
	slurmd -D -N "$SLURM_NODE" >>"$T/slurm/slurmd.out" 2>&1 &
	SLURMD_PID=$!
	wait_for 30 "node $SLURM_NODE to be idle (now '$(node_state)')" node_idle
}

# start_famfsd: famfsd on $SOCK, pins in $T/pins, the built job-alive
# script as its owner check every 5 s.
start_famfsd() {
	mkdir -p "$T/famfsd" "$T/pins"
	"$FAMFSD" --config /dev/null --state-dir "$T/famfsd/state" \
		--set "paths.devices=$T" --set "paths.mounts=$T" --set "paths.sources=$T" \
		--set "holds.pin_dir=$T/pins" --set "holds.owner_check=$JOB_ALIVE" \
		--set "holds.reap_interval=5" \
		--socket "$SOCK" --plugin-dir "$PLUGINS" --host-name h0 \
		--fused "$FAMFS_FUSED" >>"$T/famfsd/famfsd.log" 2>&1 &
	FAMFSD_PID=$!
	for _ in $(seq 1 200); do
		curl -s --unix-socket "$SOCK" http://famfsd/healthz >/dev/null 2>&1 && return 0
		kill -0 "$FAMFSD_PID" 2>/dev/null || fail "famfsd exited at start"
		sleep 0.05
	done
	fail "famfsd did not answer on $SOCK"
}

stop_famfsd() { stop_pid "$FAMFSD_PID"; FAMFSD_PID=; }

# api METHOD PATH [JSON]: sets STATUS and BODY.
api() { api_at "$SOCK" "$@"; }
get() { curl -s --unix-socket "$SOCK" "http://famfsd$1"; }

# jq-like: json PATH EXPR -> python expression on the parsed body as v
json() {
	get "$1" | python3 -c 'import json, sys; v = json.load(sys.stdin); print(eval(sys.argv[1]))' "$2"
}

# holds [OWNER]: the number of holds (of OWNER) on this famfsd.
holds() {
	json "/v1/holds${1:+?owner=$1}" 'len(v["items"])'
}

no_holds() { [ "$(holds)" = 0 ]; }

# make_source: an XFS image, loop-mounted at $SRC, with a tree of files.
make_source() {
	SRC=$T/src
	mkdir -p "$SRC"
	truncate -s 300M "$T/src.img"
	mkfs.xfs -q "$T/src.img" || fail "mkfs.xfs"
	mount -o loop "$T/src.img" "$SRC" || fail "loop mount of the XFS source"
	mkdir -p "$SRC/tree/sub/deeper"
	for i in 1 2 3; do
		head -c $((i * 1500000 + 17)) /dev/urandom >"$SRC/tree/f$i.bin"
	done
	head -c 4097 /dev/urandom >"$SRC/tree/sub/small.bin"
	echo "generation 1" >"$SRC/tree/sub/deeper/gen.txt"
	: >"$SRC/tree/empty"
}

# write_cluster KEEP: the cluster file of one host, a FUSE master mount,
# and dataset demo from $SRC/tree.
write_cluster() {
	CLUSTER=$T/cluster.yaml
	cat >"$CLUSTER" <<EOF
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: slurm}
hosts:
  - {name: h0, endpoint: $SOCK, role: master}
devices:
  - {name: e0, emul: {path: $T/e0, size: ${FS_DEVICE_SIZE:-64MiB}}}
sets:
  - {name: s0, devices: [e0]}
filesystems:
  - {name: fs0, set: s0, master: h0, logSize: 4MiB}
mounts:
  - {filesystem: fs0, host: h0, path: $T/mnt, role: master}
datasets:
  - {name: demo, source: $SRC/tree, filesystem: fs0, keep: $1}
EOF
}

apply_cluster() {
	OUT=$("$FAMFS_CLI" apply "$CLUSTER" 2>&1) || fail "famfs-cli apply: $OUT"
}

# setup_all PLUGSTACK_ARGS: famfsd with demo at generation 1, then Slurm.
setup_all() {
	start_famfsd
	make_source
	write_cluster 1
	apply_cluster
	[ "$(json /v1/datasets/demo 'v["generation"]')" = 1 ] || fail "demo is not at generation 1: $(get /v1/datasets/demo)"
	start_slurm socket="$SOCK" "$@"
}

# tree_sums DIR: "sha256  ./path" of every regular file under DIR, sorted.
tree_sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# job_state ID: JobState of a job as scontrol sees it.
job_state() {
	scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*[[:space:]]JobState=\([A-Z_]*\).*/\1/p'
}
job_ended() {
	case $(job_state "$1") in
	COMPLETED | CANCELLED | FAILED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) return 0 ;;
	esac
	return 1
}
