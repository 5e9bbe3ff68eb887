#!/bin/bash
# pkg.dkms DEBDIR WORK: the famfs-dkms package's /usr/src/famfs-VERSION
# builds famfs.ko with dkms for the guest kernel whose headers are
# installed (/usr/src/linux-headers-KVER). dkms runs with its tree, source
# tree and signing key under WORK, so nothing on the host changes and no
# module is loaded.
set -eu
command -v dkms >/dev/null || { echo "skip: no dkms"; exit 77; }
DEBS=$(cd "$1" && pwd)
W=$2
# the newest kernel that has headers (an image alone cannot build)
KVER=
for k in $(ls /lib/modules | grep -- '-amd64$' | sort -rV); do
	[ -f "/usr/src/linux-headers-$k/Makefile" ] && { KVER=$k; break; }
done
[ -n "$KVER" ] || { echo "skip: no kernel with headers"; exit 77; }
rm -rf "$W" && mkdir -p "$W/x" "$W/tree"
W=$(cd "$W" && pwd)
dpkg-deb -x "$DEBS"/famfs-dkms_*_all.deb "$W/x"
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$W"/x/usr/src/famfs-*/dkms.conf)
[ -n "$VER" ] && [ "$VER" != "#MODULE_VERSION#" ] || { echo "FAIL: dkms.conf version '$VER'"; exit 1; }
cd "$W"
mok_signing_key=$W/mok.key mok_certificate=$W/mok.pub \
	dkms build -m famfs -v "$VER" -k "$KVER" --dkmstree "$W/tree" \
	--sourcetree "$W/x/usr/src" --kernelsourcedir "/usr/src/linux-headers-$KVER" \
	>"$W/dkms.log" 2>&1 || { cat "$W/dkms.log"; cat "$W"/tree/famfs/*/build/make.log 2>/dev/null | tail -30; echo "FAIL: dkms build"; exit 1; }
ko=$(ls "$W/tree/famfs/$VER/$KVER"/*/module/famfs.ko*)
[ "$(modinfo -F name "$ko")" = famfs ] || { echo "FAIL: $ko is not famfs"; exit 1; }
vm=$(modinfo -F vermagic "$ko")
[ "${vm%% *}" = "$KVER" ] || { echo "FAIL: vermagic '$vm', want $KVER"; exit 1; }
dkms status -m famfs --dkmstree "$W/tree" --sourcetree "$W/x/usr/src" | grep -q "famfs/$VER, $KVER, .*: built" \
	|| { echo "FAIL: dkms status: $(dkms status --dkmstree "$W/tree" --sourcetree "$W/x/usr/src")"; exit 1; }
echo "ok: dkms built famfs $VER for $KVER ($ko, vermagic $vm)"
