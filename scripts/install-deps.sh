#!/bin/sh
# Install everything the build, the tests and the demo need (Debian 12).
# Idempotent: packages already present are skipped, apt-get runs only when
# something is missing. Needs root (or sudo) when it has to install.
set -eu

# The second kernel the module and the VM tests run on (docs/kmod.md,
# "Kernels"): Debian 12's 6.12 from bookworm-security, pinned because
# bookworm has no metapackage for it. kmod/kver.cmake picks the newest
# 6.12.*+deb12-amd64 installed; the main run stays on linux-image-amd64's.
KERNEL_612=6.12.115+deb12-amd64

PKGS="build-essential cmake ninja-build pkg-config git
 libfuse3-dev fuse3
 libsqlite3-dev sqlite3
 libmicrohttpd-dev libgnutls28-dev
 libjson-c-dev libyaml-dev libcurl4-openssl-dev
 libcmocka-dev libxxhash-dev libsystemd-dev liburing-dev
 libcxl-dev libdaxctl-dev libndctl-dev ndctl daxctl
 xfsprogs util-linux curl bc systemd rsync
 prometheus python3 python3-jsonschema python3-yaml
 qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static
 linux-image-$KERNEL_612-unsigned linux-headers-$KERNEL_612
 kmod cpio
 clang libclang-rt-14-dev
 debhelper dh-dkms dkms lintian rpm rpmlint mmdebstrap scdoc bash-completion fakeroot e2fsprogs"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# prometheus is pulled in only for promtool; do not start its service.
$SUDO apt-get install -y -q --no-install-recommends $missing
