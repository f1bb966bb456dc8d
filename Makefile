# Thin wrapper over CMake. `make run` and `make test` are the README's quick start: both
# install any missing Debian 12 packages first (as root, with apt-get), then configure,
# build, and run the default scenario or every test.
SHELL := /bin/bash
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

# Everything gcsim needs to build, test and plot, from Debian 12's archive.
PACKAGES := cmake ninja-build g++ make pkg-config \
  libeigen3-dev libboost-graph-dev libboost-iostreams-dev libboost-filesystem-dev \
  libhdf5-dev libdeflate-dev hdf5-tools libcli11-dev catch2 libgnuplot-iostream-dev gnuplot-nox \
  libyaml-cpp-dev python3-h5py python3-numpy libopenmpi-dev openmpi-bin prometheus

.PHONY: fuzz-build fuzz-explore all deps configure build run test test-fast sanitize tsan fuzz bench clean

all: build

deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "gcsim: installing missing packages:" $$missing; \
	  if [ "$$(id -u)" != 0 ]; then echo "gcsim: run as root (or install them yourself) to continue" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/cli/gcsim run -o out
	$(BUILD)/cli/gcsim analyze out/quickstart.h5 --plot out

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Unit, model and scenario tests without the [.slow] ones.
test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow

sanitize: deps
	$(MAKE) test BUILD=build-asan BUILD_TYPE=Debug CMAKE_FLAGS="-DGCSIM_SANITIZE=ON -DGCSIM_BUILD_BENCH=OFF"

# make tsan: the concurrent-runs tests (eight runs on eight threads at once, and the
# others of tests/scenarios/test_concurrent_runs.cpp), and the trace reader's block tests
# (tests/analysis/test_trace_blocks.cpp: chunks decoded on a second thread) and the page
# prefaulting helpers (tests/sim/test_prefault.cpp), under
# ThreadSanitizer. Only that test and the libraries it links are built (-O1 -g1: TSan's usual optimisation, line tables
# for the reports, the quickest to compile). tests/tsan.supp is for HDF5's own internals
# only (Debian does not build it for TSan; it holds no rule today, see the file); any
# report fails the run.
TSAN_FLAGS = -DGCSIM_SANITIZE=thread -DGCSIM_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
tsan: deps
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(TSAN_FLAGS) $(CMAKE_FLAGS)
	cmake --build build-tsan -j $(JOBS) --target test_concurrent_runs
	cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  tests/test_concurrent_runs

# make fuzz: a reproducible check of each fuzz target (seed FUZZ_SEED, FUZZ_RUNS inputs
# grown from its kept corpus), the same inputs on every machine, as CI runs it. The default
# runs give each target about a minute on one core of the CI machine (2026-12-01: 61 s,
# 57 s and 57 s); FUZZ_RUNS sets all three.
# make fuzz-explore: fresh random seeds, FUZZ_SECONDS per target, to look for new findings
# (keep each in the target's corpus folder with its fix and a test).
FUZZ_CORPUS = $(wildcard scenarios/examples tests/fuzz/corpus)
FUZZ_ARGS = -max_len=8192
# Traces are binary files of some tens of KB (tests/fuzz/make_trace_corpus.sh makes the
# corpus), and each input opens an HDF5 file (about 25 ms a run): 4000 runs by default.
TRACE_FUZZ_ARGS = -max_len=131072
fuzz-build: deps
	CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGCSIM_FUZZ=ON -DGCSIM_BUILD_BENCH=OFF
	cmake --build build-fuzz -j $(JOBS) --target scenario_fuzz csv_fuzz trace_fuzz

fuzz: fuzz-build
	rm -rf fuzz-out && mkdir -p fuzz-out/scenario fuzz-out/csv fuzz-out/trace
	build-fuzz/tests/fuzz/scenario_fuzz -seed=$${FUZZ_SEED:-1} -runs=$${FUZZ_RUNS:-34000} $(FUZZ_ARGS) \
	  fuzz-out/scenario $(FUZZ_CORPUS)
	build-fuzz/tests/fuzz/csv_fuzz -seed=$${FUZZ_SEED:-1} -runs=$${FUZZ_RUNS:-300000} $(FUZZ_ARGS) \
	  fuzz-out/csv tests/fuzz/csv_corpus
	build-fuzz/tests/fuzz/trace_fuzz -seed=$${FUZZ_SEED:-1} -runs=$${FUZZ_RUNS:-4000} $(TRACE_FUZZ_ARGS) \
	  fuzz-out/trace tests/fuzz/trace_corpus

fuzz-explore: fuzz-build
	mkdir -p fuzz-out/scenario fuzz-out/csv fuzz-out/trace
	build-fuzz/tests/fuzz/scenario_fuzz -max_total_time=$${FUZZ_SECONDS:-600} $(FUZZ_ARGS) fuzz-out/scenario $(FUZZ_CORPUS)
	build-fuzz/tests/fuzz/csv_fuzz -max_total_time=$${FUZZ_SECONDS:-600} $(FUZZ_ARGS) fuzz-out/csv tests/fuzz/csv_corpus
	build-fuzz/tests/fuzz/trace_fuzz -max_total_time=$${FUZZ_SECONDS:-600} $(TRACE_FUZZ_ARGS) fuzz-out/trace tests/fuzz/trace_corpus

bench: build
	$(BUILD)/bench/engine_bench
	@if [ -x $(BUILD)/bench/network_bench ]; then $(BUILD)/bench/network_bench; fi
	@if [ -x $(BUILD)/bench/load_bench ]; then $(BUILD)/bench/load_bench --dir $(BUILD)/load-bench; fi

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz out fuzz-out
