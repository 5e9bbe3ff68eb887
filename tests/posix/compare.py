#!/usr/bin/env python3
"""Compare posix_ops outputs: tmpfs (Linux itself) against famfs mounts.

    compare.py FUSE_MD TMPFS.out MASTER.out CLIENT.out

Each step whose result differs from tmpfs must be a row of the list in
docs/fuse.md ("What famfs does not do, and the errno it returns") that is
checked by posix, for that mount, names the step's call and gives the errno
famfs returned. Every such row must happen in the run of its mount. A
refusal is never ENOSYS. Prints the differences; exit 1 on any failure.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "fuse"))
import fuse_list  # noqa: E402


def results(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                raise SystemExit("%s:%d: not STEP<TAB>CALL<TAB>RESULT: %r"
                                 % (path, n, line))
            out[parts[0]] = (parts[1], parts[2])
    return out


def calls(row):
    return set(re.findall(r"`(\w+)\(", row["operation"]))


def main(argv):
    if len(argv) != 5:
        raise SystemExit(__doc__)
    rows = [r for r in fuse_list.rows(argv[1]) if "posix" in r["checked_by"]]
    ref = results(argv[2])
    failures, hit, listed = [], {}, []
    for mount, path in (("master", argv[3]), ("client", argv[4])):
        got = results(path)
        for step, (call, want) in ref.items():
            if step not in got:
                failures.append("%s: step %s did not run" % (mount, step))
                continue
            have = got[step][1]
            if have == "ENOSYS":
                failures.append("%s: %s: %s() returned ENOSYS (tmpfs: %s); a "
                                "refusal must be EPERM or EOPNOTSUPP"
                                % (mount, step, call, want))
                continue
            if have == want:
                continue
            match = [r for r in rows if r["mount"] in (mount, "both")
                     and r["errno"] == have and call in calls(r)]
            if not match:
                failures.append("%s: %s: %s() gave %s, tmpfs %s: a difference "
                                "no posix row of the list has"
                                % (mount, step, call, have, want))
                continue
            hit.setdefault(match[0]["id"], set()).add(mount)
            listed.append("%s\t%s\t%s()\ttmpfs: %s\tfamfs: %s\trow %s"
                          % (mount, step, call, want, have, match[0]["id"]))
    for r in rows:
        need = {"master", "client"} if r["mount"] == "both" else {r["mount"]}
        if not hit.get(r["id"], set()) & need:
            failures.append("row %s (%s, %s) is checked by posix but never "
                            "happened" % (r["id"], r["mount"], r["errno"]))
    print("differences (all listed in %s):" % argv[1])
    for line in listed:
        print("  " + line)
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
