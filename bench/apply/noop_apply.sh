#!/bin/bash
# bench_noop_apply: a no-op `famfs-cli apply` of a file naming ~1,000
# resources over 8 famfsd instances (each its own state dir and socket).
# Goal (issue 6): < 1 s. Prints the apply-from-nothing time and the median
# of 5 no-op applies. Not part of ctest (it creates ~2.6 GiB of emulated
# devices); run: FAMFSD=... PLUGINS=... FAMFS_CLI=... bash bench_noop_apply.sh
source "$(dirname "$0")/../../tests/apply/lib.sh"
HOSTS=${HOSTS:-8}
PER_HOST=${PER_HOST:-42}   # devices, sets and filesystems per host
F=$T/cluster.yaml

{
	echo "apiVersion: famfs.io/v1alpha1"
	echo "kind: Cluster"
	echo "metadata: {name: bench}"
	echo "hosts:"
	for h in $(seq 0 $((HOSTS - 1))); do
		echo "  - {name: h$h, endpoint: $T/h$h/sock, role: master}"
	done
	echo "devices:"
	for h in $(seq 0 $((HOSTS - 1))); do for i in $(seq 0 $((PER_HOST - 1))); do
		echo "  - {name: d$h-$i, emul: {path: $T/dev-$h-$i, size: 8MiB}}"
	done; done
	echo "sets:"
	for h in $(seq 0 $((HOSTS - 1))); do for i in $(seq 0 $((PER_HOST - 1))); do
		echo "  - {name: s$h-$i, devices: [d$h-$i]}"
	done; done
	echo "filesystems:"
	for h in $(seq 0 $((HOSTS - 1))); do for i in $(seq 0 $((PER_HOST - 1))); do
		echo "  - {name: f$h-$i, set: s$h-$i, master: h$h, logSize: 2MiB}"
	done; done
} >"$F"
# Each set and device goes with its filesystem's master: host h$h.
for h in $(seq 0 $((HOSTS - 1))); do start_host h$h; done
n=$((HOSTS * PER_HOST * 3))
"$FAMFS_CLI" validate -q "$F" || fail "bench file invalid"

t0=$(date +%s.%N)
run_cli 0 apply "$F"
t1=$(date +%s.%N)
grep -q "Apply complete: $n created" <<<"$OUT" || fail "apply: $(tail -3 <<<"$OUT")"
echo "apply from nothing: $n resources on $HOSTS hosts: $(echo "$t1 - $t0" | bc) s"

times=()
for _ in 1 2 3 4 5; do
	t0=$(date +%s.%N)
	run_cli 0 apply "$F"
	t1=$(date +%s.%N)
	grep -q "^No changes" <<<"$OUT" || fail "not a no-op: $OUT"
	times+=("$(echo "$t1 - $t0" | bc)")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
echo "no-op apply: $n resources on $HOSTS hosts: median $median s (runs: ${times[*]}); goal < 1 s"
