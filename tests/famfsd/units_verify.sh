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

# Hardened as far as mounts allow: systemd-analyze's exposure score at most
# 5.0 (9.6 before the hardening), and no setting that gives the service its
# own mount namespace (its FUSE/kernel mounts would be invisible to the host).
score=$(systemd-analyze security --offline=yes "$T/famfsd.service" 2>&1 |
	sed -n 's/.*Overall exposure level for famfsd.service: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || fail "systemd-analyze security printed no score"
echo "systemd-analyze security famfsd.service: $score"
awk -v s="$score" 'BEGIN { exit !(s <= 5.0) }' || fail "exposure $score > 5.0"
ns=$(grep -E '^(ProtectSystem|ProtectHome|PrivateTmp|PrivateMounts|PrivateDevices|ProtectKernel[A-Za-z]*|ProtectControlGroups|ProtectProc|ProcSubset|ReadOnlyPaths|InaccessiblePaths|ReadWritePaths|RootDirectory|MountFlags)=' "$T/famfsd.service" || true)
[ -z "$ns" ] || fail "a mount-namespace setting would hide famfsd's mounts: $ns"
pass "units verify"
