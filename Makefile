# Coulomb: `make run` and `make test` are all a newcomer needs. Every target
# first installs what is missing: Debian packages through apt-get, Python
# packages (binary wheels only, pinned) into the project-local .venv.
BUILD_DIR ?= build
VENV := .venv
# Pinocchio and Coal as C++ libraries from PyPI's cmeel wheels; the URDF
# headers are a build-time dependency the libpinocchio wheel does not pull.
PIP_PACKAGES := libpinocchio==4.1.0 libcoal==3.0.3 cmeel-urdfdom-headers==3.0.0
# MuJoCo, the peer: MJCF files run in it as a reference for Coulomb's reading
# of them (python/tests/test_mujoco_reference.py), and make bench-peers.
MUJOCO := mujoco==4.0.0
# The Python package's build, tests and examples (nanobind; numpy, pytest,
# h5py, matplotlib; MuJoCo).
PIP_PYTHON_PACKAGES := nanobind==3.1.0 scikit-build-core==1.1.2 numpy==2.2.6 pytest==8.3.4 \
  h5py==3.12.1 matplotlib==3.9.2 $(MUJOCO)
# Robot models (URDF + meshes); data only, so without its Python dependencies.
PIP_DATA_PACKAGES := example-robot-data==6.0.0
FCLIB_DIR ?= $(abspath ../shared/fclib)
APT_PACKAGES := cmake ninja-build g++ make libeigen3-dev libhdf5-dev zlib1g-dev libgtest-dev libyaml-cpp-dev \
  clang-format libcpp-httplib-dev pkg-config
# The viewer's page is bundled with Node.js (npm ci in viewer/); its tests
# drive Debian's Chromium (they skip where it cannot be installed).
NODE_APT_PACKAGES := nodejs npm
BROWSER_APT_PACKAGES := chromium
# Only for `make siconos` (the comparison with Siconos, Debian's Python).
SICONOS_APT_PACKAGES := python3-siconos python3-h5py python3-scipy
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

FUZZ_DIR ?= build-fuzz
SECONDS ?= 60
RUNS ?=
FUZZ_SEED ?= 0
.PHONY: fuzz fuzz-configure deps node-deps browser-deps venv build test test-kill-resume run fclib bench bench-clutter bench-collapse bench-irr bench-lagged bench-loose-bodies bench-ncp bench-python bench-mjcf bench-terrain bench-peers bench-stiff-peers bench-lookahead bench-viewer bench-viewer-large viewer-screenshots test-sanitize test-sanitize-core sanitize-configure test-tsan-core tsan-configure plots siconos format format-check clean

# $(call apt_install,PACKAGES): installs the Debian packages that are missing.
define apt_install
	@missing=""; for package in $(1); do \
	  dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call apt_install,$(APT_PACKAGES))
	@# Node.js: Debian's, unless one (with its npm) is installed already.
	@command -v npm >/dev/null 2>&1 || $(MAKE) --no-print-directory node-deps

node-deps:
	$(call apt_install,$(NODE_APT_PACKAGES))

# Tolerated failure: without a browser the viewer's tests skip themselves.
browser-deps:
	-$(call apt_install,$(BROWSER_APT_PACKAGES))

venv: $(VENV)/installed.stamp

$(VENV)/installed.stamp: Makefile
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --only-binary=:all: $(PIP_PACKAGES)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --only-binary=:all: \
	  $(PIP_PYTHON_PACKAGES)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --only-binary=:all: --no-deps \
	  $(PIP_DATA_PACKAGES)
	touch $@

build: deps venv
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCOULOMB_PYTHON=ON -DPython_EXECUTABLE=$(abspath $(VENV))/bin/python \
	  -DCMAKE_PREFIX_PATH="$$($(VENV)/bin/python -m cmeel cmake 2>/dev/null)" \
	  -DCOULOMB_ROBOT_DATA_DIR="$$($(VENV)/bin/python -m cmeel cmake 2>/dev/null)/share/example-robot-data/robots"
	cmake --build $(BUILD_DIR) -j 2
	@# The package of this build importable from the project venv (import coulomb).
	echo "$(abspath $(BUILD_DIR))/python" > "$$($(VENV)/bin/python -c \
	  'import sysconfig; print(sysconfig.get_paths()["purelib"])')/coulomb-build.pth"

# FCLIB tests read the problems from COULOMB_FCLIB_DIR (skipped, with a
# message, when the folder is absent).
test: build browser-deps
	cd $(BUILD_DIR) && COULOMB_FCLIB_DIR=$(FCLIB_DIR) ctest --output-on-failure -j 2

# SIGKILL at random moments and --resume under a timeout, ROUNDS times (make
# test runs 3 rounds; a round takes a few seconds).
ROUNDS ?= 100
test-kill-resume: build
	bash tests/kill_resume_test.sh $(BUILD_DIR)/coulomb $(BUILD_DIR)/tests/fclib_tool $(ROUNDS)

# The viewer on the 160-body clutter of 10 s: load time and frame rate in
# headless Chromium (software WebGL), served and exported.
bench-viewer: build browser-deps
	$(BUILD_DIR)/coulomb run clutter --set bodies=160 --duration 10 --out $(BUILD_DIR)/runs/clutter160
	node viewer/test/load_bench.mjs $(BUILD_DIR)/coulomb $(BUILD_DIR)/runs/clutter160

# The same on a synthetic run of 10⁵ frames × 1000 spheres (5.6 GB).
bench-viewer-large: build browser-deps venv
	$(VENV)/bin/python bench/viewer_large_run.py $(BUILD_DIR)/runs/large --bodies 1000 --frames 100000
	node viewer/test/load_bench.mjs $(BUILD_DIR)/coulomb $(BUILD_DIR)/runs/large --served-only

# docs/viewer_clutter.png and docs/viewer_quadruped.png.
viewer-screenshots: build browser-deps
	$(BUILD_DIR)/coulomb run clutter --duration 3 --out $(BUILD_DIR)/runs/clutter40
	$(BUILD_DIR)/coulomb view $(BUILD_DIR)/runs/clutter40 --export $(BUILD_DIR)/runs/clutter40.html
	node viewer/test/screenshot.mjs file://$(abspath $(BUILD_DIR))/runs/clutter40.html 120 docs/viewer_clutter.png
	$(BUILD_DIR)/coulomb run scenes/quadruped.yaml --duration 1 --out $(BUILD_DIR)/runs/quadruped
	$(BUILD_DIR)/coulomb view $(BUILD_DIR)/runs/quadruped --export $(BUILD_DIR)/runs/quadruped.html
	node viewer/test/screenshot.mjs file://$(abspath $(BUILD_DIR))/runs/quadruped.html 150 docs/viewer_quadruped.png
	$(BUILD_DIR)/coulomb run bolt_nut --duration 0.5 --set torque=0.3 --out $(BUILD_DIR)/runs/bolt_nut
	$(BUILD_DIR)/coulomb view $(BUILD_DIR)/runs/bolt_nut --export $(BUILD_DIR)/runs/bolt_nut.html
	node viewer/test/screenshot.mjs file://$(abspath $(BUILD_DIR))/runs/bolt_nut.html 300 docs/viewer_bolt_nut.png
	$(BUILD_DIR)/coulomb run scenes/mjcf_arm.yaml --duration 1 --out $(BUILD_DIR)/runs/mjcf_arm
	$(BUILD_DIR)/coulomb view $(BUILD_DIR)/runs/mjcf_arm --export $(BUILD_DIR)/runs/mjcf_arm.html
	node viewer/test/screenshot.mjs file://$(abspath $(BUILD_DIR))/runs/mjcf_arm.html 150 docs/viewer_mjcf_arm.png
	$(BUILD_DIR)/coulomb run scenes/arm_over_a_table.xml --duration 2 --out $(BUILD_DIR)/runs/arm_over_a_table
	$(BUILD_DIR)/coulomb view $(BUILD_DIR)/runs/arm_over_a_table --export $(BUILD_DIR)/runs/arm_over_a_table.html
	node viewer/test/screenshot.mjs file://$(abspath $(BUILD_DIR))/runs/arm_over_a_table.html 300 docs/viewer_mjcf_scene.png
	$(BUILD_DIR)/coulomb run scenes/table.yaml --duration 1.5 --out $(BUILD_DIR)/runs/table
	$(BUILD_DIR)/coulomb view $(BUILD_DIR)/runs/table --export $(BUILD_DIR)/runs/table.html
	node viewer/test/screenshot.mjs file://$(abspath $(BUILD_DIR))/runs/table.html 60 docs/viewer_table.png
	$(BUILD_DIR)/coulomb run scenes/parallel_gripper.xml --duration 0.5 --out $(BUILD_DIR)/runs/parallel_gripper
	$(BUILD_DIR)/coulomb view $(BUILD_DIR)/runs/parallel_gripper --export $(BUILD_DIR)/runs/parallel_gripper.html
	node viewer/test/screenshot.mjs file://$(abspath $(BUILD_DIR))/runs/parallel_gripper.html 200 docs/viewer_sensors.png sensors
	$(BUILD_DIR)/coulomb run scenes/terrain.xml --duration 3 --out $(BUILD_DIR)/runs/terrain
	$(BUILD_DIR)/coulomb view $(BUILD_DIR)/runs/terrain --export $(BUILD_DIR)/runs/terrain.html
	node viewer/test/screenshot.mjs file://$(abspath $(BUILD_DIR))/runs/terrain.html 600 docs/viewer_terrain.png

# The whole C++ suite under AddressSanitizer and UndefinedBehaviorSanitizer
# (GCC; a separate build folder, no Python package; the allocation-counting
# tests skip themselves: ASan owns malloc). About 15 minutes on two cores.
# Flags: GCC's maybe-uninitialized warnings are false positives under the
# sanitizers; Eigen assumes unaligned malloc under ASan, unlike the
# (uninstrumented) Pinocchio and Coal libraries it shares matrices with, so
# EIGEN_MALLOC_ALREADY_ALIGNED=1 keeps both sides freeing alike (ASan's malloc
# is 16-byte aligned); -fno-sanitize=enum: Eigen's LLT copies its
# uninitialized `info` when a default-constructed one is copied (ours in
# vectors, Pinocchio's in Data), a benign load UBSan would stop on.
# The fuzz runs' leak suppressions (urdfdom's, tests/fuzz/lsan_suppressions.txt)
# hold for the URDF corpus replayed here too.
SANITIZE_DIR ?= build-sanitize
SANITIZE_ENV := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan_suppressions.txt \
  COULOMB_FCLIB_DIR=$(FCLIB_DIR)
sanitize-configure: deps venv
	cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -fno-sanitize=enum -Wno-maybe-uninitialized -DEIGEN_MALLOC_ALREADY_ALIGNED=1" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DCMAKE_PREFIX_PATH="$$($(VENV)/bin/python -m cmeel cmake 2>/dev/null)" \
	  -DCOULOMB_ROBOT_DATA_DIR="$$($(VENV)/bin/python -m cmeel cmake 2>/dev/null)/share/example-robot-data/robots"

# libFuzzer harnesses (tests/fuzz/, docs/reliability.md) built with Debian's
# clang 19 under ASan + UBSan in build-fuzz/ and run SECONDS each (default 60),
# or RUNS executions each (the campaign of docs/reliability.md: RUNS=1000000;
# CI: RUNS=5000 FUZZ_SEED=1, a fixed budget). Findings land in build-fuzz/fuzz-findings/.
FUZZ_APT_PACKAGES := clang-19 libclang-rt-19-dev libomp-19-dev llvm-19
# Line tables only (the fuzzing and ThreadSanitizer builds): the reports'
# stack traces keep their files and lines, and CI's two builds take 0.6 GB of
# disk instead of -g's 3.2 GB (the fuzzing build with the core tests 521 MB
# against 2.6 GB, ThreadSanitizer's 65 MB against 585 MB): CI's disk is shared.
LINE_TABLES_ONLY := -O2 -gline-tables-only -DNDEBUG
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
  -fno-sanitize=enum,vptr -fno-omit-frame-pointer -DEIGEN_MALLOC_ALREADY_ALIGNED=1
fuzz-configure: deps venv
	$(call apt_install,$(FUZZ_APT_PACKAGES))
	CC=clang-19 CXX=clang++-19 cmake -S . -B $(FUZZ_DIR) -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOULOMB_FUZZ=ON \
	  -DCMAKE_C_FLAGS="$(FUZZ_FLAGS)" -DCMAKE_CXX_FLAGS="$(FUZZ_FLAGS)" \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$(LINE_TABLES_ONLY)" \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(LINE_TABLES_ONLY)" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DCMAKE_PREFIX_PATH="$$($(VENV)/bin/python -m cmeel cmake 2>/dev/null)" \
	  -DCOULOMB_ROBOT_DATA_DIR="$$($(VENV)/bin/python -m cmeel cmake 2>/dev/null)/share/example-robot-data/robots"

fuzz: fuzz-configure
	cmake --build $(FUZZ_DIR) -j 2 --target scene_fuzzer fclib_fuzzer urdf_fuzzer mjcf_fuzzer png_fuzzer snapshot_fuzzer
	bash tests/fuzz/run_fuzzers.sh $(FUZZ_DIR) $(SECONDS) "$(RUNS)" $(FUZZ_SEED)

test-sanitize: sanitize-configure
	cmake --build $(SANITIZE_DIR) -j 2
	cd $(SANITIZE_DIR) && $(SANITIZE_ENV) ctest --output-on-failure -j 2 -E install_test

# The math, contact, solvers and FCLIB layers' tests under AddressSanitizer
# and UBSan: a subset of test-sanitize without Pinocchio, Coal or the viewer.
# Built in the fuzzing build (clang 19, the harnesses' sanitizers), so that
# CI compiles the core layers under the sanitizers once for both; .ci/run
# runs it after make test. The FCLIB tests use the problems they generate
# (the real files take over ten minutes under ASan: test-sanitize runs them).
# It skips two sweeps of CANAL over hundreds of random problems (four minutes
# under ASan, 13 s without; test-sanitize runs them): a short test takes the
# ADMM fallback's path, and every CANAL test the relaxed update's.
SANITIZE_CORE_TESTS := math_test contact_test sap_solver_test fclib_test
SANITIZE_CORE_SKIPPED := CanalSolver.AdmmFallbackSolvesMostProblemsCanalLeavesUnsolved:CanalSolver.RelaxedDeSaxceTermSolvesProblemsWhereThePlainUpdateStalls
test-sanitize-core: fuzz-configure
	cmake --build $(FUZZ_DIR) -j 2 --target $(SANITIZE_CORE_TESTS)
	for test in $(SANITIZE_CORE_TESTS); do \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 COULOMB_FCLIB_DIR= \
	  bash tests/run_in_two_shards.sh $(FUZZ_DIR)/tests/$$test --gtest_brief=1 \
	    --gtest_filter=-$(SANITIZE_CORE_SKIPPED) || exit 1; done

# The thread pool and the solvers' threaded loops under ThreadSanitizer
# (clang 19, in build-tsan): the pool's tests (loops back to back, a task
# that throws) and the thread-count tests of SAP and SubADMM, whose results
# must not depend on the split. .ci/run runs it after test-sanitize-core.
TSAN_DIR ?= build-tsan
tsan-configure: deps venv
	$(call apt_install,$(FUZZ_APT_PACKAGES))
	CC=clang-19 CXX=clang++-19 cmake -S . -B $(TSAN_DIR) -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="-fsanitize=thread" \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$(LINE_TABLES_ONLY)" \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(LINE_TABLES_ONLY)" \
	  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
	  -DCMAKE_PREFIX_PATH="$$($(VENV)/bin/python -m cmeel cmake 2>/dev/null)" \
	  -DCOULOMB_ROBOT_DATA_DIR="$$($(VENV)/bin/python -m cmeel cmake 2>/dev/null)/share/example-robot-data/robots"

test-tsan-core: tsan-configure
	cmake --build $(TSAN_DIR) -j 2 --target math_test sap_solver_test
	TSAN_OPTIONS=halt_on_error=1 $(TSAN_DIR)/tests/math_test --gtest_filter='ThreadPool.*'
	TSAN_OPTIONS=halt_on_error=1 $(TSAN_DIR)/tests/sap_solver_test \
	  --gtest_filter='*ThreadCount*'

# The built-in clutter scene (SAP §VI-C), with a progress bar on a terminal.
run: build
	./$(BUILD_DIR)/coulomb run

# SAP on the FCLIB problems in ../shared/fclib (a built-in example without them).
fclib: build
	@if [ -d "$(FCLIB_DIR)" ]; then ./$(BUILD_DIR)/coulomb solve "$(FCLIB_DIR)"; \
	else ./$(BUILD_DIR)/coulomb solve --example; fi

bench: build
	@if [ -d "$(FCLIB_DIR)" ]; then ./$(BUILD_DIR)/coulomb bench solve --fclib-dir "$(FCLIB_DIR)"; \
	else ./$(BUILD_DIR)/coulomb bench solve; fi

# SAP §VI-C clutter at 10…160 bodies, with and without walls (~2 min).
bench-clutter: build
	./$(BUILD_DIR)/coulomb bench clutter

# The IRR studies (a few minutes): docs/irr_benchmarks.md holds one run.
bench-irr: build
	./$(BUILD_DIR)/coulomb bench irr

# The contact models at coarse and fine steps in the 40-body clutter
# (docs/lagged_coarse_step.md holds one run; seconds).
bench-lagged: build
	$(VENV)/bin/python bench/lagged_coarse_step.py --coulomb $(BUILD_DIR)/coulomb

# Loose objects of welded bodies, off their centres of mass, in closed form
# and on a tree's general path, beside MuJoCo (docs/robots.md holds a run;
# seconds).
bench-loose-bodies: build
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/loose_bodies.py

# The AL single-step test on the dish pile (docs/ncp_single_step.md).
bench-ncp: build
	./$(BUILD_DIR)/coulomb bench ncp

# The Python layer's cost per step and per state read (bench/python_overhead.py).
bench-python: build
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/python_overhead.py

# One MuJoCo MJCF file in Coulomb and in MuJoCo, side by side (a robot: a
# tree of a few dozen dofs; bench/peers/mjcf_side_by_side.py).
MJCF ?= scenes/four_legged_walker.xml
bench-mjcf: build
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/peers/mjcf_side_by_side.py $(MJCF)

# 40 boxes on height fields of 32² to 192² elevations, in Coulomb and in
# MuJoCo (bench/peers/terrain_sizes.py; about two minutes).
bench-terrain: build
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/peers/terrain_sizes.py

# The 320-body collapse phase by phase, with and without speculative contacts
# (bench/collapse_phases.py; docs/peers.md holds one run; about a minute).
bench-collapse: build
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/collapse_phases.py

# Speed against depth in the collapsing piles: Coulomb's look-ahead swept beside
# MuJoCo's step (bench/peers/penetration_tradeoff.py); rewrites
# docs/lookahead.md and docs/peers_penetration_tradeoff.png (about 5 minutes).
bench-lookahead: build
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/peers/penetration_tradeoff.py \
	  --write-docs

# Coulomb beside MuJoCo and Drake (pip, binary wheels, pinned; Drake installed
# only for this target) on the same scenes in one run; rewrites docs/peers.md and
# its plot and saves the measurements in build/bench-peers.json (`run_peers.py
# --from-results FILE --write-docs` rewrites the page from them; about 10
# minutes with Drake here).
# Drake has wheels for Python 3.12 and later only (none for Debian's 3.11):
# it gets a venv of its own, made by the first Python 3.12 or 3.13 found on
# the PATH or in pyenv (DRAKE_BASE_PYTHON=... to choose); without one,
# bench-peers leaves Drake out and says so.
DRAKE := drake==1.58.0
DRAKE_VENV := .venv-drake
DRAKE_BASE_PYTHON ?= $(shell for python in $$(command -v python3.12 python3.13) \
  $(HOME)/.pyenv/versions/3.1[23]*/bin/python3.1[23]; do \
  "$$python" -c "import venv" >/dev/null 2>&1 && { echo "$$python"; break; }; done)

$(DRAKE_VENV)/installed.stamp: Makefile
	$(DRAKE_BASE_PYTHON) -m venv $(DRAKE_VENV)
	$(DRAKE_VENV)/bin/pip install --quiet --disable-pip-version-check --only-binary=:all: $(DRAKE)
	touch $@

bench-peers: build
ifeq ($(DRAKE_BASE_PYTHON),)
	@echo "bench-peers: no Python 3.12 or 3.13 here (DRAKE_BASE_PYTHON=...): Drake is left out"
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/peers/run_peers.py --write-docs \
	  --results $(BUILD_DIR)/bench-peers.json
else
	$(MAKE) --no-print-directory $(DRAKE_VENV)/installed.stamp
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/peers/run_peers.py --write-docs \
	  --results $(BUILD_DIR)/bench-peers.json --drake-python $(abspath $(DRAKE_VENV))/bin/python
endif

# Lagged and Similar from 1e5 to 1e14 N/m in Coulomb and Drake side by side
# (bench/peers/stiff_sweep.py; rewrites docs/stiff_contact_drake.md and its
# plot; about 5 minutes). Needs Drake's venv, made as for bench-peers.
bench-stiff-peers: build
ifeq ($(DRAKE_BASE_PYTHON),)
	@echo "bench-stiff-peers: no Python 3.12 or 3.13 here (DRAKE_BASE_PYTHON=...): Drake cannot be installed"; exit 1
else
	$(MAKE) --no-print-directory $(DRAKE_VENV)/installed.stamp
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/peers/stiff_sweep.py --write-docs \
	  --drake-python $(abspath $(DRAKE_VENV))/bin/python
endif

# The single-step benchmark's plots (docs/ncp_single_step_*.png).
plots: build
	./$(BUILD_DIR)/coulomb bench ncp --csv $(BUILD_DIR)/ncp_histories.csv
	$(VENV)/bin/python bench/plot_ncp_single_step.py $(BUILD_DIR)/ncp_histories.csv docs/ncp_single_step
	PYTHONPATH=$(BUILD_DIR)/python $(VENV)/bin/python bench/plot_bolt_nut.py docs/bolt_nut

# Siconos NSGS and PROX on the FCLIB problems, same error measure as
# `coulomb solve --solver canal|pgs` (docs/ncp_solvers.md holds one run).
siconos:
	$(call apt_install,$(SICONOS_APT_PACKAGES))
	/usr/bin/python3 bench/siconos_compare.py "$(FCLIB_DIR)"

format: deps
	git ls-files '*.h' '*.cc' | xargs clang-format -i

format-check: deps
	git ls-files '*.h' '*.cc' | xargs clang-format --dry-run -Werror

clean:
	rm -rf $(BUILD_DIR) $(VENV)
