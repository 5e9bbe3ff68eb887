#!/bin/sh
# A long differential-test campaign (tests/fuse/difftest.c): random
# sequences of 150 steps on tmpfs and a famfs master for SECONDS, starting
# at seed FIRST (default: the current time, printed), a client checked
# after each. Same checks as fuse_difftest in make check; prints how many
# seeds and steps ran clean, or the seed and shortest failing sequence.
# usage: tests/fuse/difftest-campaign.sh [BUILD_DIR] [SECONDS] [FIRST]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
seconds=${2:-300}
first=${3:-$(date +%s)}
echo "difftest campaign: $seconds s from seed $first"
exec sh "$here/difftest.sh" "$build/fused/famfs-fused" "$build/famfs-cli/famfs-cli" \
	"$build/tests/fuse/famfs-difftest" "$here/../../docs/fuse.md" \
	--seeds "$first-$first" --seconds "$seconds" --steps 150
