#!/bin/sh
# Run one ctest test under ThreadSanitizer (cmake/sanitize.cmake):
#   tsan-test.sh REPORT_DIR SUPPRESSIONS COMMAND [ARGS...]
# Every instrumented process the test starts writes its race reports to
# REPORT_DIR/tsan.<pid> and stops at the first one with exit code 66
# (halt_on_error). The test fails when any report was written, whatever
# its own exit code: a daemon that died of a race, or was killed after
# one, does not always make the test script itself fail.
dir=$1 supp=$2
shift 2
rm -rf "$dir"
mkdir -p "$dir" || exit 1
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 log_path=$dir/tsan suppressions=$supp${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
export TSAN_OPTIONS
"$@"
rc=$?
for f in "$dir"/tsan.*; do
	[ -e "$f" ] || continue
	echo "==== ThreadSanitizer report $f (test exit code $rc) ===="
	cat "$f"
	rc=66
done
exit $rc
