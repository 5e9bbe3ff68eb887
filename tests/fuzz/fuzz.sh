#!/bin/bash
# The libFuzzer targets' driver (README.md), used by ctest and `make fuzz`:
#   fuzz.sh build           configure + build the clang build in $FUZZ_BUILD
#   fuzz.sh replay TARGET   run every committed corpus and regression input once
#   fuzz.sh run TARGET SEC  fuzz TARGET for SEC seconds from the corpus
#                           (or until FUZZ_RUNS inputs, if set and sooner)
#   fuzz.sh all SEC         build, then run every target SEC seconds and
#                           write bench/results/fuzz.md (report.sh)
# New inputs go to a temporary corpus, never into the tree; a crash leaves
# its input in $FUZZ_BUILD/artifacts/TARGET/ and fails.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
FUZZ_BUILD=${FUZZ_BUILD:-$SRC/build-fuzz}
CC=${CC:-clang}
case "$CC" in *clang*) ;; *) CC=clang ;; esac
TARGETS="cluster replay fsck api mapjson kmod_map"
# ASan's quarantine holds freed memory back 256 MiB deep, so every input's
# allocations were fresh pages (faults and cold caches: half of replay's
# CPU after its pools). 16 MiB is still many inputs deep: a use after
# free within an input, or of the previous input's memory, is reported
# (an ASAN_OPTIONS of the caller comes later and wins).
export ASAN_OPTIONS=quarantine_size_mb=16${ASAN_OPTIONS:+:$ASAN_OPTIONS}

# Inputs above the 4 KiB default: the image targets' seeds are ~15 KiB.
max_len() {
	case "$1" in
	replay|fsck) echo 65536 ;;
	*) echo 16384 ;;
	esac
}

have_libfuzzer() {
	local t
	t=$(mktemp -d)
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$t/p.c"
	if ! "$CC" -fsanitize=fuzzer,address,undefined "$t/p.c" -o "$t/p" \
		>"$t/log" 2>&1; then
		echo "fuzz: $CC cannot link -fsanitize=fuzzer (libFuzzer is in" \
		     "Debian's libclang-rt-14-dev; scripts/install-deps.sh):" >&2
		cat "$t/log" >&2
		rm -rf "$t"
		return 1
	fi
	rm -rf "$t"
}

build() {
	command -v "$CC" >/dev/null || { echo "fuzz: no $CC" >&2; exit 77; }
	have_libfuzzer || exit 77
	if [ ! -f "$FUZZ_BUILD/CMakeCache.txt" ]; then
		cmake -S "$SRC" -B "$FUZZ_BUILD" -DCMAKE_C_COMPILER="$CC" \
			-DFAMFS_FUZZ=ON -DFAMFS_BUILD_KMOD=OFF \
			-DFAMFS_VM_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			>"$FUZZ_BUILD.configure.log" 2>&1 ||
			{ cat "$FUZZ_BUILD.configure.log" >&2; exit 1; }
	fi
	cmake --build "$FUZZ_BUILD" --target fuzz_targets -j "${JOBS:-2}"
}

bin() {
	local b="$FUZZ_BUILD/tests/fuzz/fuzz_$1"
	[ -x "$b" ] || { echo "fuzz: $b is not built (fuzz.sh build)" >&2; exit 1; }
	echo "$b"
}

dict_of() {
	[ -f "$HERE/dict/$1.dict" ] && echo "-dict=$HERE/dict/$1.dict"
	return 0
}

replay() {
	local b files
	b=$(bin "$1")
	mapfile -t files < <(find "$HERE/corpus/$1" "$HERE/regressions/$1" \
		-type f 2>/dev/null | sort)
	if [ ${#files[@]} -eq 0 ]; then
		echo "fuzz: no corpus for $1" >&2
		exit 1
	fi
	echo "fuzz: replaying ${#files[@]} inputs of $1"
	"$b" -rss_limit_mb=4096 "${files[@]}" || exit 1
	coverage "$1" "$b" "${files[@]}"
}

# coverage TARGET BIN FILES...: the edges FILES reach, run once as a
# corpus, against tests/fuzz/coverage.floor.
coverage() {
	local t=$1 b=$2 dir cov floor
	shift 2
	floor=$(awk -v t="$t" '$1 == t { print $2 }' "$HERE/coverage.floor")
	[ -n "$floor" ] || { echo "fuzz: no floor for $t in coverage.floor" >&2; exit 1; }
	dir=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-cov-$t.XXXXXX")
	cp "$@" "$dir/"
	cov=$("$b" -runs=0 -rss_limit_mb=4096 -max_len="$(max_len "$t")" "$dir" 2>&1 |
		sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' | tail -1)
	rm -rf "$dir"
	if [ -z "$cov" ] || [ "$cov" -lt "$floor" ]; then
		echo "fuzz: $t's corpus reaches ${cov:-no} edges, under its floor $floor" \
		     "(coverage.floor): the inputs no longer reach the code" >&2
		exit 1
	fi
	echo "fuzz: $t's corpus reaches $cov edges (floor $floor)"
}

run() {
	local b work rc=0 t=$1 secs=$2
	b=$(bin "$t")
	work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-$t.XXXXXX")
	mkdir -p "$work/corpus" "$FUZZ_BUILD/artifacts/$t"
	# shellcheck disable=SC2046
	"$b" -max_total_time="$secs" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} \
		-timeout=20 -rss_limit_mb=4096 \
		-max_len="$(max_len "$t")" -print_final_stats=1 \
		-artifact_prefix="$FUZZ_BUILD/artifacts/$t/" $(dict_of "$t") \
		"$work/corpus" "$HERE/corpus/$t" || rc=$?
	rm -rf "$work"
	if [ $rc -ne 0 ]; then
		# libFuzzer's own failure code is 77, ctest's "skipped"
		echo "fuzz: $t failed ($rc); the input is in $FUZZ_BUILD/artifacts/$t/" \
		     "(keep it under tests/fuzz/regressions/$t/ once fixed)" >&2
		return 1
	fi
}

all() {
	local secs=$1 t rc=0
	build
	mkdir -p "$FUZZ_BUILD/logs"
	for t in $TARGETS; do
		echo "fuzz: $t for $secs s"
		run "$t" "$secs" >"$FUZZ_BUILD/logs/$t.log" 2>&1 || {
			rc=1
			tail -30 "$FUZZ_BUILD/logs/$t.log" >&2
		}
	done
	"$HERE/report.sh" "$FUZZ_BUILD/logs" "$secs" >"$SRC/bench/results/fuzz.md"
	echo "fuzz: wrote bench/results/fuzz.md"
	return $rc
}

case "${1:-}" in
build) build ;;
replay) replay "$2" ;;
run) run "$2" "$3" ;;
all) all "${2:-60}" ;;
*) sed -n '2,9p' "$0" >&2; exit 2 ;;
esac
