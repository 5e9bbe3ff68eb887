#!/bin/bash
# build-debs.sh OUT: build the Debian packages from this source tree.
# Copies the tracked (and new, not ignored) files to OUT/src/famfs-VERSION,
# puts packaging/debian there as ./debian, runs
# `dpkg-buildpackage -b -us -uc`; the .debs land in OUT/. The CMake build
# directory of the package (prefix /usr) stays in
# OUT/src/famfs-VERSION/obj-<triplet> for the layout test.
set -eu
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
"$SRC/scripts/install-deps.sh" package
VER=$(dpkg-parsechangelog -l "$SRC/packaging/debian/changelog" -S Version)
D=$OUT/src/famfs-$VER
rm -rf "$OUT/src" "$OUT"/*.deb "$OUT"/*.buildinfo "$OUT"/*.changes
mkdir -p "$D"
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
	grep -zv '^packaging/debian/' | xargs -0 tar -c --no-recursion -f - ) | tar -x -C "$D"
# files deleted in the work tree but still in the index are skipped by tar
cp -r "$SRC/packaging/debian" "$D/debian"
cd "$D"
dpkg-buildpackage -b -us -uc -j"${JOBS:-2}" >"$OUT/build.log" 2>&1 || {
	tail -40 "$OUT/build.log"; echo "dpkg-buildpackage failed (log: $OUT/build.log)" >&2; exit 1; }
mv "$OUT"/src/*.deb "$OUT"/src/*.buildinfo "$OUT"/src/*.changes "$OUT"/
ls "$OUT"/*.deb
