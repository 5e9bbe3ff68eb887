#!/bin/bash
# pkg.rpm DEBDIR WORK: packaging/rpm/famfs.spec builds with rpmbuild
# (Debian's rpm), rpmlint has nothing to say (with the explained filters
# in packaging/rpm/famfs.rpmlintrc), and every RPM holds the same files as
# its Debian counterpart (famfs, famfsd, famfs-slurm, famfs-dkms; famfs-libs =
# libfamfs0), after the layout differences packaging/README.md lists:
# %{_libdir} /usr/lib64 = /usr/lib/x86_64-linux-gnu, units in
# /usr/lib/systemd/system = /lib/systemd/system, and each format's own
# changelog/copyright/license files left out.
set -u
for t in rpmbuild rpmlint; do command -v $t >/dev/null || { echo "skip: no $t"; exit 77; }; done
DEBS=$(cd "$1" && pwd)
W=$(mkdir -p "$2" && cd "$2" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
"$SRC/packaging/build-rpms.sh" "$W" || fail "rpmbuild"
lint=$(rpmlint -c "$SRC/packaging/rpm/rpmlint.toml" -r "$SRC/packaging/rpm/famfs.rpmlintrc" \
	"$SRC/packaging/rpm/famfs.spec" "$W"/RPMS/*.rpm 2>&1)
echo "$lint" | tail -3
grep -q " 0 errors, 0 warnings" <<<"$lint" || { echo "$lint"; fail "rpmlint"; }

debfiles() {  # files (not directories) of a .deb, normalised
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' |
		sed -e 's#^/usr/lib/x86_64-linux-gnu/#/usr/lib64/#' -e 's#^/lib/systemd/#/usr/lib/systemd/#' |
		grep -Ev '^/usr/share/doc/[^/]+/(changelog\.gz|copyright)$|^/usr/share/lintian/overrides/' | sort
}
rpmfiles() {
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" | awk '$1 !~ /^d/ { print $2 }' |
		grep -Ev '^/usr/share/licenses/|^/usr/share/doc/famfs-(dkms|slurm)[-/]' | sort
}
total=0
for pair in famfs:famfs famfsd:famfsd libfamfs0:famfs-libs famfs-slurm:famfs-slurm famfs-dkms:famfs-dkms; do
	d=$(ls "$DEBS/${pair%%:*}"_*.deb) r=$(ls "$W/RPMS/${pair#*:}"-[0-9]*.rpm)
	debfiles "$d" >"$W/deb.list"; rpmfiles "$r" >"$W/rpm.list"
	n=$(wc -l <"$W/deb.list")
	[ "$n" -gt 0 ] || fail "${pair%%:*}: no files"
	diff -u "$W/deb.list" "$W/rpm.list" >"$W/diff" || { cat "$W/diff"; fail "${pair%%:*}.deb and ${pair#*:}.rpm differ"; }
	total=$((total + n))
done
# famfs-cli dlopens libcurl: rpm's dependency scan does not see it
req=$(rpm -qp --requires "$(ls "$W"/RPMS/famfs-[0-9]*.rpm)")
grep -q '^libcurl' <<<"$req" || fail "famfs.rpm does not require libcurl: $req"
req=$(rpm -qp --requires "$(ls "$W"/RPMS/famfs-slurm-[0-9]*.rpm)")
grep -qE '^slurm\(x86-64\) < [0-9]+\.[0-9]+\.999$' <<<"$req" || fail "famfs-slurm.rpm does not require its Slurm release: $req"
echo "ok: rpmbuild, rpmlint clean; rpm -qlp = the .debs' file lists ($total files in 5 package pairs); famfs requires libcurl, famfs-slurm its Slurm release"
