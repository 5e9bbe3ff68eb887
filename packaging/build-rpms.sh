#!/bin/bash
# build-rpms.sh OUT: build the RPMs from this source tree with rpmbuild
# (Debian's rpm works: --nodeps, since the build dependencies are Debian
# packages, not in an rpm database). The .rpms land in OUT/RPMS/.
set -eu
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
"$SRC/scripts/install-deps.sh" package
SPEC=$SRC/packaging/rpm/famfs.spec
VER=$(sed -n 's/^Version: *//p' "$SPEC")
rm -rf "$OUT/rpmbuild" "$OUT/RPMS"
mkdir -p "$OUT/rpmbuild/SOURCES" "$OUT/stage/famfs-$VER"
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 tar -c --no-recursion -f - ) | tar -x -C "$OUT/stage/famfs-$VER"
tar -C "$OUT/stage" -czf "$OUT/rpmbuild/SOURCES/famfs-$VER.tar.gz" "famfs-$VER"
rm -rf "$OUT/stage"
# famfs-slurm requires the Slurm release its plugin was built against
SLURM_RELEASE=$(dpkg-query -W -f='${Version}' libslurm-dev | cut -d. -f1,2)
rpmbuild -bb --nodeps --define "_topdir $OUT/rpmbuild" \
	--define "slurm_release $SLURM_RELEASE" \
	--define "_smp_mflags -j${JOBS:-2}" "$SPEC" >"$OUT/rpmbuild.log" 2>&1 || {
	tail -40 "$OUT/rpmbuild.log"; echo "rpmbuild failed (log: $OUT/rpmbuild.log)" >&2; exit 1; }
mkdir -p "$OUT/RPMS"
find "$OUT/rpmbuild/RPMS" -name '*.rpm' -exec mv {} "$OUT/RPMS/" \;
ls "$OUT"/RPMS/*.rpm
