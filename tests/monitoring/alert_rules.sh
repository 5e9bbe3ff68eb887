#!/bin/bash
# monitoring_alert_rules DIR: DIR/famfs-alerts.yml passes `promtool check
# rules` (syntax, templates, for:/labels/annotations) and its unit tests
# DIR/famfs-alerts.test.yml pass; every rule has a for:, a severity and
# summary/description annotations, and the unit tests evaluate every rule
# at least once firing and once silent.
set -u
DIR=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v promtool >/dev/null || { echo "skip: promtool not installed"; exit 77; }
promtool check rules "$DIR/famfs-alerts.yml" || fail "promtool check rules"
(cd "$DIR" && promtool test rules famfs-alerts.test.yml) || fail "promtool test rules"
python3 - "$DIR/famfs-alerts.yml" "$DIR/famfs-alerts.test.yml" <<'PY' || fail "rule coverage"
import sys, yaml
rules = [r for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"]]
tests = yaml.safe_load(open(sys.argv[2]))["tests"]
bad = []
for r in rules:
    a = r["alert"]
    if not r.get("for") or r.get("labels", {}).get("severity") not in ("warning", "critical"):
        bad.append(f"{a}: needs for: and severity warning|critical")
    if not {"summary", "description"} <= set(r.get("annotations", {})):
        bad.append(f"{a}: needs summary and description")
    evals = [e for t in tests for e in t.get("alert_rule_test", []) if e["alertname"] == a]
    if not any(e["exp_alerts"] for e in evals) or not any(not e["exp_alerts"] for e in evals):
        bad.append(f"{a}: the unit tests must see it both firing and silent")
for b in bad:
    print("FAIL:", b)
print(f"{len(rules)} rules, each with for:, severity, annotations, tested firing and silent")
sys.exit(1 if bad else 0)
PY
echo "ok: promtool check rules and promtool test rules pass"
