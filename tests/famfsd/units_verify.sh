#!/bin/bash
# famfsd_units_verify: the systemd units in packaging/systemd pass
# `systemd-analyze verify` (the unit as generated for this build's prefix,
# with ExecStart pointed at the built famfsd).
source "$(dirname "$0")/lib.sh"
command -v systemd-analyze >/dev/null || { echo "no systemd-analyze"; exit 77; }
src=$(dirname "$0")/../../packaging/systemd
sed "s|^ExecStart=[^ ]*/famfsd |ExecStart=$FAMFSD |" "$PACKAGING_GEN/famfsd.service" >"$T/famfsd.service"
grep -q "^ExecStart=$FAMFSD " "$T/famfsd.service" || fail "no ExecStart=.../famfsd in the generated unit"
cp "$src/famfsd.socket" "$T/"
out=$(systemd-analyze verify "$T/famfsd.service" "$T/famfsd.socket" 2>&1)
[ -z "$out" ] || fail "systemd-analyze verify: $out"
grep -q '^Type=notify$' "$T/famfsd.service" || fail "not Type=notify"
pass "units verify"
