#!/bin/bash
# bench/results/fuzz.md from the logs `fuzz.sh all SEC` leaves: per target
# the executions, exec/s, coverage (cov: edges, ft: features) and corpus
# size of libFuzzer's final stats, and whether it found a crash.
#   report.sh LOGDIR SECONDS
set -euo pipefail
dir=$1
secs=$2

echo "# Fuzzing (libFuzzer, clang $(clang --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p'), ASan + UBSan)"
echo
echo "\`make fuzz FUZZ_SECONDS=$secs\` on $(nproc) CPUs, $(date -u +%Y-%m-%d);"
echo "each target starts from its committed corpus (tests/fuzz/corpus/)."
echo "cov = code edges reached, ft = libFuzzer features, corpus = inputs kept."
echo
echo "| target | seconds | execs | exec/s | cov | ft | corpus | result |"
echo "|---|---|---|---|---|---|---|---|"
for log in "$dir"/*.log; do
	t=$(basename "$log" .log)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	# the last status line: "#N  DONE cov: C ft: F corp: K/..." (or REDUCE...)
	last=$(grep -E '^#[0-9]+' "$log" | grep ' cov: ' | tail -1 || true)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
	if grep -q -E '^==[0-9]+==ERROR|^SUMMARY: |deadly signal|fuzz: .*:[0-9]+: ' "$log"; then
		result="crash (see $(basename "$dir")/$t.log)"
	else
		result="no crash"
	fi
	echo "| $t | $secs | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $result |"
done
