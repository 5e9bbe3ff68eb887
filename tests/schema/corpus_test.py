#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The schema and famfs-cli validate must never disagree.

Every file of the corpus is validated twice: with python3-jsonschema
against schemas/cluster.schema.json (the YAML read by python3-yaml's
SafeLoader) and with `famfs-cli validate`. Directories say what is expected
(see README.md):

  valid/     both accept
  invalid/   both reject
  semantic/  the schema accepts, famfs-cli rejects: rules JSON Schema
             cannot express (references, duplicate names and keys, ...)
  limits/    famfs-cli rejects before validating (alias bombs); the schema
             is not run because expanding the document is the attack

`famfs-cli validate --schema-only` (the schema's rules only) must give the
schema's verdict on every file outside limits/, semantic/ included.

Files in invalid/, semantic/ and limits/ list every diagnostic famfs-cli
must print, one comment line each:

  # expect: LINE:COL: KEY.PATH: start of the message

The test fails unless famfs-cli prints exactly those diagnostics (same
count, each line matching FILE:LINE:COL: KEY.PATH: message...) and exits 1.
"""
import glob
import json
import os
import re
import subprocess
import sys

import jsonschema
import yaml

ALIAS_LIMIT = 100000  # YDOC_MAX_EXPANDED in famfs-cli/cluster/doc.h


def expanded_size(node, memo):
    """Nodes of a composed YAML node graph with aliases expanded."""
    if id(node) in memo:
        return memo[id(node)]
    memo[id(node)] = ALIAS_LIMIT + 1  # recursion: too big
    if isinstance(node, yaml.MappingNode):
        n = 1 + sum(expanded_size(k, memo) + expanded_size(v, memo)
                    for k, v in node.value)
    elif isinstance(node, yaml.SequenceNode):
        n = 1 + sum(expanded_size(v, memo) for v in node.value)
    else:
        n = 1
    memo[id(node)] = n
    return n


def schema_verdict(validator, path):
    """(ok, why) from python3-yaml + jsonschema."""
    try:
        with open(path, "rb") as f:
            data = yaml.safe_load(f)
    except Exception as e:  # a YAML error is a rejection too
        return False, "yaml: %s" % str(e).replace("\n", " ")
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        return False, "%s: %s" % ("/".join(str(p) for p in e.path),
                                  e.message[:200])
    return True, ""


def cli_verdict(cli, path, *flags):
    p = subprocess.run([cli, "validate"] + list(flags) + [path],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def expectations(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    return [m.group(1).strip()
            for m in re.finditer(r"^# expect: (.*)$", text, re.M)]


def check_diagnostics(path, output, expects):
    """Every expect matched by one diagnostic line, and nothing else."""
    prefix = path + ":"
    diags = [l[len(prefix):] for l in output.splitlines()
             if l.startswith(prefix) and re.match(r"\d+:\d+: ",
                                                  l[len(prefix):])]
    problems = []
    if len(diags) != len(expects):
        problems.append("expected %d diagnostics, got %d" %
                        (len(expects), len(diags)))
    for e in expects:
        if not any(d.startswith(e) for d in diags):
            problems.append("no diagnostic starts with '%s'" % e)
    return problems


def main():
    cli, schema_path, corpus = sys.argv[1:4]
    extra_valid = sys.argv[4:]  # e.g. examples/*.yaml
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    cases = []
    for kind in ("valid", "invalid", "semantic", "limits"):
        for p in sorted(glob.glob(os.path.join(corpus, kind, "*.yaml"))):
            cases.append((kind, p))
    for p in extra_valid:
        cases.append(("valid", p))
    if len(cases) < 10:
        print("corpus too small: %d files" % len(cases))
        return 1

    failures = 0
    counts = {}
    for kind, path in cases:
        counts[kind] = counts.get(kind, 0) + 1
        rc, out = cli_verdict(cli, path)
        msgs = []
        if kind == "limits":
            with open(path, "rb") as f:
                node = yaml.compose(f, Loader=yaml.SafeLoader)
            if expanded_size(node, {}) <= ALIAS_LIMIT:
                msgs.append("limits case is within the limit")
        else:
            ok, why = schema_verdict(validator, path)
            want_schema = kind in ("valid", "semantic")
            if ok != want_schema:
                msgs.append("schema %s it (%s)" %
                            ("accepts" if ok else "rejects", why))
            # --schema-only must give the schema's verdict exactly
            src, sout = cli_verdict(cli, path, "--schema-only")
            if src != (0 if ok else 1):
                msgs.append("validate --schema-only exited %d but the "
                            "schema %s it: %s" % (
                                src, "accepts" if ok else "rejects",
                                sout.strip()))
        want_rc = 0 if kind == "valid" else 1
        if rc != want_rc:
            msgs.append("famfs-cli validate exited %d, expected %d" %
                        (rc, want_rc))
        if kind != "valid":
            expects = expectations(path)
            if not expects:
                msgs.append("no '# expect:' lines")
            msgs += check_diagnostics(path, out, expects)
        if msgs:
            failures += 1
            print("FAIL %s [%s]" % (path, kind))
            for m in msgs:
                print("     " + m)
            print("     famfs-cli said:\n       " +
                  out.strip().replace("\n", "\n       "))
        else:
            print("ok   %s [%s]" % (path, kind))
    print("%d files (%s), %d failures" % (
        len(cases), ", ".join("%s %d" % kv for kv in sorted(counts.items())),
        failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
