#!/bin/bash
# famfsd_discovery_opens: a rescan does not re-open the devices its own
# discovery just reported (each re-open of a cxl device is a full libndctl
# walk: quadratic in the namespaces), and still re-checks a known device
# discovery no longer reports, which then shows as missing.
source "$(dirname "$0")/lib.sh"
mkdir "$T/plugins"
cp "$PLUGINS"/emul.so "$T/plugins/"
cp "$COUNT_PLUGIN" "$T/plugins/count.so"
export FAMFS_TEST_COUNT_DEVICES=$T/listed FAMFS_TEST_COUNT_OPENS=$T/opens
printf '%s\n' /count/c0 /count/c1 /count/c2 >"$T/listed"
PLUGINS=$T/plugins start_famfsd
api GET /v1/devices
expect 200
for d in c0 c1 c2; do
	grep -q "\"/count/$d\"" <<<"$BODY" || fail "device $d not discovered: $BODY"
done

: >"$T/opens"
api POST /v1/devices/rescan '{}'
expect 200
[ -s "$T/opens" ] && fail "the rescan re-opened devices it had just discovered: $(tr '\n' ' ' <"$T/opens")"
pass "a rescan opens none of the 3 devices it discovered"

printf '%s\n' /count/c0 /count/c2 >"$T/listed"
api POST /v1/devices/rescan '{}'
expect 200
[ "$(cat "$T/opens")" = /count/c1 ] ||
	fail "expected one re-check, of /count/c1; opens: $(tr '\n' ' ' <"$T/opens")"
api GET /v1/devices/c1
expect 200
[ "$(jq_get "$BODY" .state)" = missing ] || fail "c1 is not missing: $BODY"
api GET /v1/devices/c0
[ "$(jq_get "$BODY" .state)" != missing ] || fail "c0 is missing: $BODY"
pass "a device discovery stopped reporting is re-checked and missing"
