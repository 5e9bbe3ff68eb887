#!/bin/bash
# wait_for: the one polling helper of the shell tests. Sourced by
# tests/famfsd/lib.sh and tests/apply/lib.sh; the sourcing script defines
# fail().

# wait_for SECONDS WHAT COMMAND...: run COMMAND every 50 ms until it
# succeeds; fail the test, naming WHAT, when SECONDS pass first. A poll
# that falls through on its deadline would let the next check pass
# vacuously (or fail far from the cause).
wait_for() {
	local secs=$1 what=$2 end
	shift 2
	end=$(($(date +%s%N) + secs * 1000000000))
	until "$@"; do
		[ "$(date +%s%N)" -lt "$end" ] || fail "timed out after ${secs}s waiting for $what"
		sleep 0.05
	done
}
