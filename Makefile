# Thin wrapper: the build is CMake, the tests are ctest.
BUILD ?= build
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?=

.PHONY: all build check asan-check demo demo-offline deps clean asan fuzz

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite, then again (all but the QEMU guest tests) under
# AddressSanitizer + UBSan, as STYLE.md asks of every change.
check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900
	$(MAKE) asan-check

asan-check: deps
	cmake -S . -B build-asan -DFAMFS_SANITIZE=ON -DFAMFS_VM_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS) --timeout 900 -LE 'vm|kmod|pkg|fuzz'

# Every libFuzzer target for FUZZ_SECONDS each (clang build in build-fuzz);
# writes bench/results/fuzz.md. `make check` runs them briefly (label fuzz).
fuzz: deps
	FUZZ_BUILD=$(CURDIR)/build-fuzz JOBS=$(JOBS) ./tests/fuzz/fuzz.sh all $(FUZZ_SECONDS)

demo: build
	./scripts/demo-main.sh $(BUILD)

demo-offline: build
	./scripts/demo.sh $(BUILD)

asan: asan-check

clean:
	rm -rf $(BUILD) build-asan build-fuzz
