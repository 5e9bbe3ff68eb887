#!/usr/bin/env python3
"""promql_names.py [--unsampled-ok NAME,...] METRICS DASHBOARD.json ALERTS.yml

Every PromQL expression of the Grafana dashboard (panel targets and
template variable queries) and of the alert rules may name only metrics
that appear as samples in METRICS, a real famfsd's /metrics output, and
select only on labels those samples carry. Prometheus's own `up` (and the
`job`/`instance` labels it adds) are the only exceptions; --unsampled-ok
names metrics that may have no sample in METRICS (the objects they are
about could not be made) but must still be declared by a # TYPE line.
Exit 1 naming every expression that does not fit, so a renamed metric or
label fails.
"""
import json
import re
import sys

import yaml

# Series and labels Prometheus makes itself, not famfsd.
SCRAPE_SERIES = {"up"}
SCRAPE_LABELS = {"job", "instance", "__name__"}
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right",
            "bool", "offset", "and", "or", "unless"}
IDENT = r"[a-zA-Z_:][a-zA-Z0-9_:]*"


def exported(path, unsampled_ok):
    """{metric name: set of label names} from the sample lines, plus the
    names in @unsampled_ok that a # TYPE line declares (no labels known)."""
    names = {}
    sample = re.compile(r"^(%s)(\{(.*)\})? \S+$" % IDENT)
    for line in open(path, encoding="utf-8"):
        t = re.match(r"^# TYPE (%s) " % IDENT, line)
        if t and t.group(1) in unsampled_ok:
            names.setdefault(t.group(1), None)
        m = sample.match(line.rstrip("\n"))
        if not m:
            continue
        labels = set(re.findall(r'(%s)="' % IDENT, m.group(3) or ""))
        if names.get(m.group(1)) is None:
            names[m.group(1)] = set()
        names[m.group(1)].update(labels)
    return names


def strip_strings(expr):
    return re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '""', expr)


def selectors(expr):
    """[(metric, {label names in its matcher})] of one expression."""
    expr = re.sub(r"\$\{?\w+\}?", "x", expr)            # Grafana variables
    out = []
    for m in re.finditer(r"(%s)\s*\{([^}]*)\}" % IDENT, strip_strings(expr)):
        labels = set(re.findall(r"(%s)\s*(?:=~|!~|!=|=)" % IDENT, m.group(2)))
        out.append((m.group(1), labels))
    return out


def metric_names(expr):
    """The metric names an expression reads (functions, keywords, label
    names, durations and numbers left out)."""
    e = strip_strings(expr)
    e = re.sub(r"\$\{?\w+\}?", " ", e)                   # Grafana variables
    e = re.sub(r"\{[^}]*\}", " ", e)                     # label matchers
    e = re.sub(r"\[[^\]]*\]", " ", e)                    # ranges
    e = re.sub(r"\boffset\s+\S+", " ", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)",
               " ", e)
    e = re.sub(r"(?<![\w:])\d+(\.\d+)?([eE][+-]?\d+)?", " ", e)
    names = set()
    for m in re.finditer(r"(%s)(\s*\()?" % IDENT, e):
        if m.group(2) or m.group(1) in KEYWORDS:
            continue                                     # a function call
        names.add(m.group(1))
    return names


def dashboard_exprs(path):
    dash = json.load(open(path, encoding="utf-8"))
    exprs = []
    for p in dash.get("panels", []):
        for t in p.get("targets", []):
            exprs.append((f'panel "{p["title"]}"', t["expr"]))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.fullmatch(r"\s*label_values\((.*),\s*(%s)\s*\)\s*" % IDENT, q)
        if not m:
            sys.exit(f'variable {v["name"]}: cannot read query {q!r}')
        # the label asked for must be on the metric too
        exprs.append((f'variable "{v["name"]}"', m.group(1)))
        exprs.append((f'variable "{v["name"]}"', f"{m.group(1).split('{')[0]}"
                      f"{{{m.group(2)}=\"\"}}"))
    return exprs


def alert_exprs(path):
    rules = yaml.safe_load(open(path, encoding="utf-8"))
    return [(f'alert {r["alert"]}', r["expr"])
            for g in rules["groups"] for r in g["rules"]]


def main():
    args = sys.argv[1:]
    unsampled_ok = set()
    if args[:1] == ["--unsampled-ok"] and len(args) > 1:
        unsampled_ok = set(args[1].split(","))
        args = args[2:]
    if len(args) != 3:
        sys.exit(__doc__)
    have = exported(args[0], unsampled_ok)
    if not have:
        sys.exit(f"{args[0]}: no samples")
    exprs = dashboard_exprs(args[1]) + alert_exprs(args[2])
    bad, used = [], set()
    for where, expr in exprs:
        names = metric_names(expr)
        if not names:
            bad.append(f"{where}: no metric found in {expr!r}")
        for n in names - SCRAPE_SERIES:
            used.add(n)
            if n not in have:
                bad.append(f"{where}: {n} is not in famfsd's /metrics")
        for n, labels in selectors(expr):
            if have.get(n) is not None:
                for label in labels - SCRAPE_LABELS - have[n]:
                    bad.append(f"{where}: {n} has no label {label}")
    for b in bad:
        print("FAIL:", b)
    if bad:
        return 1
    print(f"ok: {len(exprs)} expressions use {len(used)} metrics, all exported: "
          + ", ".join(sorted(used)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
