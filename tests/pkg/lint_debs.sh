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
[ "$n" = 5 ] || { echo "FAIL: $n packages, want 5 (libfamfs0 famfs famfsd famfs-slurm famfs-dkms)"; exit 1; }
# famfs-cli dlopens libcurl: no shlibs scan sees it (packaging/README.md)
dep=$(dpkg-deb -f ./famfs_*.deb Depends)
grep -qE '(^|, )libcurl4 \(>= ' <<<"$dep" || { echo "FAIL: famfs Depends lacks libcurl4: $dep"; exit 1; }
# a SPANK plugin loads only into the Slurm release it was built against
dep=$(dpkg-deb -f ./famfs-slurm_*.deb Depends)
grep -qE 'slurm-wlm-basic-plugins \(>= [0-9]+\.[0-9]+\), slurm-wlm-basic-plugins \(<< [0-9]+\.[0-9]+~\)' <<<"$dep" ||
	{ echo "FAIL: famfs-slurm Depends lacks its Slurm release: $dep"; exit 1; }
echo "ok: lintian clean on $n packages (+dbgsym); famfs depends on libcurl4, famfs-slurm on its Slurm release"
