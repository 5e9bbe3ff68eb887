#!/usr/bin/env python3
"""The list of intended differences in docs/fuse.md: what famfs does not
do, and the errno it returns. Tests that compare famfs with Linux (the
tests/fuse differential test, tests/posix) read it through this module.

    python3 fuse_list.py [docs/fuse.md]      # check it, print rows as TSV

Each TSV line: id, mount, operation, errno, checked_by (comma-separated).
A malformed list is an error that names the file and line; exit 1.
"""
import errno as _errno
import os
import re
import sys

HEADING = "## What famfs does not do, and the errno it returns"
COLUMNS = ["id", "mount", "operation", "errno", "checked by", "why"]
MOUNTS = {"master", "client", "both"}
CHECKERS = {"difftest", "posix"}
ERRNOS = {v for v in _errno.errorcode.values()} - {"ENOSYS"}


class ListError(Exception):
    pass


def _cells(line):
    s = line.strip()
    if not (s.startswith("|") and s.endswith("|")):
        return None
    # a `|` inside backticks or escaped as \| is part of a cell
    out, cur, tick, i = [], "", False, 1
    while i < len(s) - 1:
        c = s[i]
        if c == "\\" and i + 1 < len(s) - 1 and s[i + 1] == "|":
            cur += "|"
            i += 2
            continue
        if c == "`":
            tick = not tick
        if c == "|" and not tick:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    out.append(cur.strip())
    return out


def rows(path):
    """The rows as dicts (keys: id, mount, operation, errno, checked_by
    (a list), why, line). Raises ListError naming path:line."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    try:
        start = lines.index(HEADING)
    except ValueError:
        raise ListError("%s: no section '%s'" % (path, HEADING))
    result, seen, header_ok = [], set(), False
    for n in range(start + 1, len(lines)):
        line = lines[n]
        where = "%s:%d" % (path, n + 1)
        if line.startswith("## "):
            break
        cells = _cells(line)
        if cells is None:
            continue
        if not header_ok:
            if cells != COLUMNS:
                raise ListError("%s: the table's columns must be %s, not %s"
                                % (where, COLUMNS, cells))
            header_ok = True
            continue
        if all(re.fullmatch(r"-+", c) for c in cells):
            continue
        if len(cells) != len(COLUMNS):
            raise ListError("%s: %d cells, the table has %d"
                            % (where, len(cells), len(COLUMNS)))
        rid, mount, op, err, checked, why = cells
        if not re.fullmatch(r"[a-z0-9-]+", rid):
            raise ListError("%s: id '%s' is not [a-z0-9-]+" % (where, rid))
        if rid in seen:
            raise ListError("%s: id '%s' is listed twice" % (where, rid))
        seen.add(rid)
        if mount not in MOUNTS:
            raise ListError("%s: row %s: mount '%s' is not one of %s"
                            % (where, rid, mount, sorted(MOUNTS)))
        if err not in ERRNOS:
            raise ListError("%s: row %s: errno '%s' is not a symbolic errno"
                            " (ENOSYS is never one)" % (where, rid, err))
        by = [c.strip() for c in checked.split(",") if c.strip()]
        bad = [c for c in by if c not in CHECKERS]
        if not by or bad:
            raise ListError("%s: row %s: checked by '%s': each must be one of %s"
                            % (where, rid, checked, sorted(CHECKERS)))
        if not op:
            raise ListError("%s: row %s: no operation" % (where, rid))
        result.append({"id": rid, "mount": mount, "operation": op,
                       "errno": err, "checked_by": by, "why": why,
                       "line": n + 1})
    if not header_ok:
        raise ListError("%s: section '%s' has no table" % (path, HEADING))
    return result


def main(argv):
    path = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "fuse.md")
    try:
        for r in rows(path):
            print("\t".join([r["id"], r["mount"], r["operation"], r["errno"],
                             ",".join(r["checked_by"])]))
    except (ListError, OSError) as e:
        print("fuse_list: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
