# Thin wrapper: the build is CMake, the tests are ctest.
BUILD ?= build
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?=
# New build trees (these, the fuzz tree, the RPM's) use Ninja when it is
# there: ~20 % less CPU than Makefiles for the same objects (the make
# generator's recursive makes and per-object helper processes;
# docs/testing.md). A tree keeps the generator it was made with.
ifeq ($(origin CMAKE_GENERATOR),undefined)
ifneq ($(shell command -v ninja 2>/dev/null),)
export CMAKE_GENERATOR = Ninja
endif
endif
# A tree configured right after install-deps.sh installed ninja: Ninja too.
GEN = $(if $(CMAKE_GENERATOR),,$$(command -v ninja >/dev/null 2>&1 && echo -GNinja))
# Tests run with the build's test-bin/ (Debian's python3) first on PATH.
TEST_PATH = PATH=$(abspath $(1))/test-bin:$$PATH

.PHONY: all build build-demo deps-demo check check-stream-vm check-stream-host check-vm check-plain check-rest asan-check tsan-check demo demo-offline deps clean asan tsan fuzz

all: build

# Dependency profiles (scripts/install-deps.sh): `make demo` installs the
# demo profile only (build and run), everything else the check profile.
deps:
	@./scripts/install-deps.sh check

deps-demo:
	@./scripts/install-deps.sh demo

# `make build` and `make check` build the tests; `make demo` configures a
# new tree without them (the demo profile has no cmocka) and keeps an
# existing tree as it is. famfs.ko is built only when kernel headers are
# installed (kmod/kver.cmake).
build: deps
	cmake -S . -B $(BUILD) $(GEN) -DFAMFS_BUILD_TESTS=ON -DFAMFS_CXL_PROVIDER=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

build-demo: deps-demo
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) $(GEN) -DFAMFS_BUILD_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite, then again (all but the QEMU guest tests) under
# AddressSanitizer + UBSan, as STYLE.md asks of every change, and under
# ThreadSanitizer, so that the locking is checked too.
#
# Two streams at once (docs/testing.md, "Where the time goes" and
# "Scheduling"): the QEMU guests (label vm, one at a time, each ~one core)
# then the ASan pass; beside them the rest of the plain pass then the TSan
# pass, each at -j $(JOBS). Everything but the guests is niced so that the
# guests keep their core. The guests' output goes to
# $(BUILD)/check-vm.log and is printed when they end. Each stream runs
# both of its parts whatever the first gave; a failure anywhere fails
# `make check`.
check: build
	$(MAKE) --no-print-directory -j2 check-stream-vm check-stream-host

check-stream-vm:
	@rc=0; $(MAKE) --no-print-directory check-vm || rc=1; \
		$(NICE) $(MAKE) --no-print-directory asan-check || rc=1; exit $$rc

check-stream-host:
	@rc=0; $(MAKE) --no-print-directory check-plain || rc=1; \
		$(NICE) $(MAKE) --no-print-directory tsan-check || rc=1; exit $$rc

check-vm:
	@echo "check-vm: the QEMU guests (label vm) run beside the rest; log in $(BUILD)/check-vm.log"
	@cd $(BUILD) && $(call TEST_PATH,$(BUILD)) ctest --output-on-failure -j 1 --timeout 900 -L '^vm$$' >check-vm.log 2>&1; \
		rc=$$?; echo "==== check-vm (label vm), $(BUILD)/check-vm.log:"; cat check-vm.log; exit $$rc

# The plain pass without the guests.
check-plain:
	cd $(BUILD) && $(call TEST_PATH,$(BUILD)) $(NICE) ctest --output-on-failure -j $(JOBS) --timeout 900 -LE '^vm$$'

# The plain pass without the guests, then ASan, then TSan, one after the other.
check-rest: check-plain
	$(NICE) $(MAKE) asan-check
	$(NICE) $(MAKE) tsan-check
NICE ?= nice -n 5

# The sanitizer passes leave out fuzz (its own clang ASan+UBSan build) and
# killmatrix (the *-kp copies of sources the other tests already run under
# the sanitizers; the matrix checks what survives a SIGKILL). Their trees
# build neither the -kp copies nor famfs.ko, nor the benchmarks or
# tests/vm's host programs (labels kmod/vm: no test of theirs uses them).
# Nor the Slurm plugin and its tests (label slurm): slurmstepd, srun and
# sbatch are not instrumented and cannot load a sanitizer-built plugin.
SANITIZER_TREE_FLAGS = -DFAMFS_VM_TESTS=OFF -DFAMFS_BUILD_KMOD=OFF -DFAMFS_BUILD_BENCH=OFF \
	-DFAMFS_SLURM_PLUGIN=OFF -DFAMFS_SKIP_TEST_AREAS='killmatrix;vm;slurm'
asan-check: deps
	cmake -S . -B build-asan -DFAMFS_SANITIZE=ON $(SANITIZER_TREE_FLAGS) $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && $(call TEST_PATH,build-asan) ctest --output-on-failure -j $(JOBS) --timeout 900 -LE 'vm|kmod|pkg|fuzz|killmatrix'

# Every libFuzzer target for FUZZ_SECONDS each (clang build in build-fuzz);
# writes bench/results/fuzz.md. `make check` runs them briefly (label fuzz).
fuzz: deps
	FUZZ_BUILD=$(CURDIR)/build-fuzz JOBS=$(JOBS) ./tests/fuzz/fuzz.sh all $(FUZZ_SECONDS)

# TSan: the ASan exclusions (vm, kmod, pkg), apply (its daemons run what
# the famfsd tests cover; under TSan it alone took ~18 min of test time),
# schema and one-thread (tests that never start a second thread) and
# TSAN_EXCLUDE; docs/testing.md says why for each. A race report fails the
# test (scripts/tsan-test.sh).
TSAN_LABELS_EXCLUDE ?= vm|kmod|pkg|apply|schema|one-thread|fuzz|killmatrix
TSAN_EXCLUDE ?= ^(famfsd_fused_spawn|ingest_famfsd_job_xfs|ingest_through_fuse_mounts_xfs)$$
tsan-check: deps
	cmake -S . -B build-tsan -DFAMFS_SANITIZE=thread $(SANITIZER_TREE_FLAGS) $(CMAKE_FLAGS)
	cmake --build build-tsan -j $(JOBS)
	cd build-tsan && $(call TEST_PATH,build-tsan) ctest --output-on-failure -j $(JOBS) --timeout 900 -LE '$(TSAN_LABELS_EXCLUDE)' $(if $(TSAN_EXCLUDE),-E '$(TSAN_EXCLUDE)')

demo: build-demo
	./scripts/demo-main.sh $(BUILD)

demo-offline: build-demo
	./scripts/demo.sh $(BUILD)

asan: asan-check

tsan: tsan-check

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz
