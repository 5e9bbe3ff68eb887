#!/bin/sh
# Install the Debian 12 packages a profile needs, with apt-get only.
#
#   scripts/install-deps.sh [demo|check|package]   install (default: check)
#   scripts/install-deps.sh --print PROFILE        list, one a line; install nothing
#
# demo    build famfs and run `make demo`: gcc, CMake, Ninja, the libraries,
#         FUSE, XFS tools, curl, python3 (the demo's scripts use the last
#         three). No C++, no liburing (ingest then reads with plain
#         system calls), no kernel, no guests, no test tools.
# package build the .deb/.rpm packages: demo plus build-essential,
#         debhelper, dkms, rpm, lintian, scdoc, liburing-dev, libslurm-dev
#         (spank.h, for famfs-slurm).
# check   everything `make check` runs: package plus cmocka, clang, the
#         QEMU guests and their kernels, promtool, git, sqlite3,
#         linux-source-6.1 (for checkpatch.pl), and Slurm (slurmctld,
#         slurmd, slurm-client, munge) for the plugin's tests
#         (docs/slurm.md).
#
# Idempotent: packages already present are skipped; apt-get runs only when
# something is missing. Needs root (or sudo) when it has to install.
set -eu

# The second kernel the module and the VM tests run on (docs/kmod.md,
# "Kernels"): Debian 12's 6.12 from bookworm-security, pinned because
# bookworm has no metapackage for it. kmod/kver.cmake picks the newest
# 6.12.*+deb12-amd64 installed; the main run stays on linux-image-amd64's.
KERNEL_612=6.12.115+deb12-amd64

DEMO="gcc libc6-dev cmake ninja-build pkgconf
 libfuse3-dev fuse3
 libsqlite3-dev
 libmicrohttpd-dev libgnutls28-dev
 libjson-c-dev libyaml-dev libcurl4-openssl-dev
 libxxhash-dev libsystemd-dev
 xfsprogs curl python3"

# The CXL provider's libraries: the demo runs on emulated devices and
# builds without it (plugins/CMakeLists.txt, FAMFS_CXL_PROVIDER=AUTO).
PACKAGE="$DEMO
 libcxl-dev libdaxctl-dev libndctl-dev uuid-dev
 build-essential debhelper dh-dkms dkms fakeroot lintian rpm rpmlint scdoc
 bash-completion liburing-dev libslurm-dev"

# prometheus is here for promtool only (its service is not started).
CHECK="$PACKAGE
 libcmocka-dev clang libclang-rt-14-dev git sqlite3 util-linux
 python3-jsonschema python3-yaml
 ndctl daxctl bc rsync systemd e2fsprogs kmod cpio
 prometheus
 qemu-system-x86 busybox-static mmdebstrap
 linux-image-amd64 linux-headers-amd64
 linux-image-$KERNEL_612-unsigned linux-headers-$KERNEL_612
 linux-source-6.1
 slurmctld slurmd slurm-client munge"

usage() {
	echo "usage: $0 [demo|check|package] | --print demo|check|package" >&2
	exit 2
}

profile_packages() {
	case "$1" in
	demo) echo $DEMO ;;
	package) echo $PACKAGE ;;
	check) echo $CHECK ;;
	*) echo "install-deps: unknown profile '$1' (demo, check or package)" >&2
	   usage ;;
	esac
}

if [ "${1:-}" = "--print" ]; then
	[ $# -eq 2 ] || usage
	PKGS=$(profile_packages "$2") || exit 2
	for p in $PKGS; do echo "$p"; done
	exit 0
fi
[ $# -le 1 ] || usage
PROFILE=${1:-check}
PKGS=$(profile_packages "$PROFILE") || exit 2

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

echo "install-deps ($PROFILE): installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends $missing
