#!/bin/sh
# Run a command against a generated tree on a real loop-mounted XFS image.
# Usage: with_xfs.sh SIZE_MB SCALE CMD... ; CMD gets the tree path appended.
set -eu
size=$1; scale=$2; shift 2
here=$(dirname "$0")
w=$(mktemp -d "${TMPDIR:-/tmp}/famfs-xfs.XXXXXX")
cleanup() { umount "$w/mnt" 2>/dev/null || umount -l "$w/mnt" 2>/dev/null || true; rm -rf "$w"; }
trap cleanup EXIT INT TERM
truncate -s "${size}M" "$w/xfs.img"
mkfs.xfs -q "$w/xfs.img"
mkdir "$w/mnt"
mount -o loop "$w/xfs.img" "$w/mnt"
python3 "$here/make_tree.py" "$w/mnt/tree" "$scale"
"$@" "$w/mnt/tree"
