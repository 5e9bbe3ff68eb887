#!/bin/bash
# famfsd_providers: plugins are loaded through the versioned interface: a
# plugin with the wrong ABI or without the entry symbol is refused (and
# famfsd keeps going); cxl on a machine without CXL reports no devices,
# an empty topology and no error; emul refuses a non-2MiB size.
source "$(dirname "$0")/lib.sh"
mkdir "$T/plugins"
cp "$PLUGINS"/emul.so "$PLUGINS"/cxl.so "$T/plugins/"
cp "$BAD_PLUGIN" "$T/plugins/bad.so"
printf 'not an ELF file' >"$T/plugins/junk.so"
PLUGINS=$T/plugins start_famfsd
grep -q "bad.so: wrong provider ABI (want ABI 2, it has 100)" "$LOG" || fail "ABI mismatch not reported"
grep -q "junk.so: " "$LOG" || fail "junk plugin not reported"
api GET /v1/host; expect 200
names=$(python3 -c 'import json,sys; print(",".join(p["name"] for p in json.loads(sys.argv[1])["providers"]))' "$BODY")
[ "$names" = "cxl,emul" ] || fail "providers: $names"
python3 -c '
import json, sys
h = json.loads(sys.argv[1])["health"]
assert h["status"] == "degraded", h
p = h["problems"]
assert len(p) == 2, p
assert any("bad.so: wrong provider ABI" in m for m in p), p
assert any("junk.so: " in m for m in p), p
' "$BODY" || fail "host health does not name the two broken plugins: $BODY"
api GET /healthz
expect 503
[ "$(jq_get "$BODY" .status)" = degraded ] || fail "healthz: $BODY"
pass "wrong-ABI and broken plugins refused; cxl and emul loaded; degraded, naming both"

api GET "/v1/devices?topology=1"; expect 200
python3 -c '
import json, sys
d = json.loads(sys.argv[1])
t = d["topology"]["cxl"]
for k in ("memdevs", "decoders", "regions", "dax_devices", "namespaces"):
    assert k in t, k
if not any(t[k] for k in ("memdevs", "regions", "dax_devices")):
    assert d["items"] == [], d["items"]
print("cxl topology:", json.dumps(t))
' "$BODY" || fail "cxl topology: $BODY"
grep -q "provider cxl: discovery failed" "$LOG" && fail "cxl discovery reported an error"
pass "cxl: real discovery, nothing found here, no error"

api POST /v1/devices "{\"name\":\"c\",\"provider\":\"cxl\",\"path\":\"$T/c\",\"size\":\"8MiB\"}"
expect 501 not_implemented
api POST /v1/devices "{\"name\":\"c\",\"provider\":\"cxl\",\"path\":\"/dev/null\"}"
[ "${STATUS:0:1}" = 4 ] || fail "cxl open of /dev/null: $STATUS $BODY"
api POST /v1/devices "{\"name\":\"c\",\"provider\":\"nosuch\",\"path\":\"$T/c\",\"size\":\"8MiB\"}"
expect 422 provider_not_loaded
grep -q "nosuch" <<<"$BODY" || fail "the error does not name the provider: $BODY"
truncate -s 5M "$T/short"
api POST /v1/devices "{\"name\":\"short\",\"path\":\"$T/short\"}"
expect 422 device_unusable
pass "provider errors are 4xx/5xx with messages"
