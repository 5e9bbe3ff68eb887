#!/bin/bash
# famfsd_regions_bad_input: every bad POST /v1/regions (unknown memdev,
# ways that do not match the memdevs, a bad granularity or alignment, a
# taken name, a provider that cannot make regions) is a 4xx whose message
# names the key or device, and changes nothing. Runs with the real cxl
# provider on a machine without CXL: bad input never reaches hardware.
source "$(dirname "$0")/lib.sh"
start_famfsd
make_devices 1
grep -q "loaded provider 'cxl'" "$LOG" || fail "the cxl provider did not load"

check() {  # check STATUS CODE MESSAGE-PART BODY
	local st=$1 code=$2 part=$3 before after
	before=$(db_state)
	api POST /v1/regions "$4"
	expect "$st" "$code"
	after=$(db_state)
	[ "$before" = "$after" ] || fail "database changed by: $4 -> $BODY"
	case "$BODY" in *"$part"*) ;; *) fail "message does not say '$part': $BODY" ;; esac
	echo "ok: $st $code '$part' <- ${4:0:70}"
}

check 400 missing_field memdevs '{"name":"r0"}'
check 400 invalid_type "memdevs[0]" '{"name":"r0","memdevs":[7]}'
check 400 invalid_value "'memdevs' must name 1 to 16" '{"name":"r0","memdevs":[]}'
check 400 invalid_value "ways 1 does not match the 2 memdevs" \
	'{"name":"r0","memdevs":["mem0","mem1"],"ways":1}'
check 400 invalid_value "memdev 'mem0' is named twice" \
	'{"name":"r0","memdevs":["mem0","mem0"]}'
check 400 invalid_value "granularity 1000" \
	'{"name":"r0","memdevs":["mem0"],"granularity":1000}'
check 400 invalid_value "granularity 32768" \
	'{"name":"r0","memdevs":["mem0"],"granularity":"32KiB"}'
check 400 invalid_value "align 3000" \
	'{"name":"r0","memdevs":["mem0"],"align":3000}'
check 400 invalid_value "region" '{"name":"bad name","memdevs":["mem0"]}'
check 409 already_exists "'emul0' already exists" \
	'{"name":"emul0","memdevs":["mem0"]}'
check 422 provider_not_loaded "no provider 'emul' that creates regions" \
	'{"name":"r0","memdevs":["mem0"],"provider":"emul"}'
# valid as far as famfsd can tell: the provider finds no such memdev
check 400 invalid_value "memdev 'mem9' not found" '{"name":"r0","memdevs":["mem9"]}'
check 400 invalid_value "memdev '0x9999' not found" '{"name":"r0","memdevs":["0x9999"]}'

api GET /v1/regions; expect 200
[ "$(jq_get "$BODY" items)" = "[]" ] || fail "regions listed: $BODY"
api GET /v1/regions/r0; expect 404 not_found
api DELETE /v1/regions/r0; expect 404 not_found
api PUT /v1/regions; expect 405
api GET /v1/host; expect 200
case "$BODY" in *'"name": "cxl", "abi": 2, "can_create": false, "can_region": true'*|*'"name":"cxl","abi":2,"can_create":false,"can_region":true'*) ;;
*) fail "GET /v1/host does not say cxl can make regions: $BODY" ;; esac
pass "bad region requests refused, naming the key or memdev; nothing changed"
