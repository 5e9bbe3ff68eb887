#!/bin/bash
# pkg.lintian DEBDIR: lintian on the .changes of the package build, with
# info, pedantic and experimental tags shown; any tag fails. The tags that
# remain by design are overridden in packaging/debian/*.lintian-overrides,
# each with its reason (packaging/README.md).
set -u
command -v lintian >/dev/null || { echo "skip: no lintian"; exit 77; }
cd "$1" || exit 1
ch=$(ls ./*.changes 2>/dev/null | head -1)
[ -n "$ch" ] || { echo "FAIL: no .changes in $1"; exit 1; }
out=$(lintian --display-info --pedantic --display-experimental "$ch" 2>&1)
echo "$out"
tags=$(grep -E '^[EWIPX]: ' <<<"$out")
[ -z "$tags" ] || { echo "FAIL: lintian tags:"; echo "$tags"; exit 1; }
n=$(ls ./*.deb | grep -vc dbgsym)
[ "$n" = 4 ] || { echo "FAIL: $n packages, want 4 (libfamfs0 famfs famfsd famfs-dkms)"; exit 1; }
# famfs-cli dlopens libcurl: no shlibs scan sees it (packaging/README.md)
dep=$(dpkg-deb -f ./famfs_*.deb Depends)
grep -qE '(^|, )libcurl4 \(>= ' <<<"$dep" || { echo "FAIL: famfs Depends lacks libcurl4: $dep"; exit 1; }
echo "ok: lintian clean on $n packages (+dbgsym); famfs depends on libcurl4"
