# Thin wrapper: the build is CMake, the tests are ctest.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all build check demo demo-offline deps clean asan

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

demo: build
	./scripts/demo-main.sh $(BUILD)

demo-offline: build
	./scripts/demo.sh $(BUILD)

asan:
	$(MAKE) BUILD=build-asan CMAKE_FLAGS=-DFAMFS_SANITIZE=ON check

clean:
	rm -rf $(BUILD) build-asan
