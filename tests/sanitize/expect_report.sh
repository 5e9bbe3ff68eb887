#!/bin/sh
# expect_report.sh CANARY WHAT: the canary must die of WHAT with the
# sanitizer's report on stderr.
CANARY=$1 WHAT=$2
case $WHAT in
ub_exe)	want='canary.c:.*runtime error: signed integer overflow' ;;
ub_lib)	want='canary_lib.c:.*runtime error: signed integer overflow' ;;
leak)	want='ERROR: LeakSanitizer: detected memory leaks' ;;
*)	echo "unknown $WHAT"; exit 2 ;;
esac
err=$("$CANARY" "$WHAT" 2>&1 >/dev/null)
rc=$?
[ "$rc" -ne 0 ] || { echo "FAIL: $WHAT: exit status 0"; exit 1; }
echo "$err" | grep -q "$want" || { echo "FAIL: $WHAT: no '$want' in:"; echo "$err"; exit 1; }
echo "ok: $WHAT: exit status $rc, '$want'"
