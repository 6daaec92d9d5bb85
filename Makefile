# Coulomb: `make run` and `make test` are all a newcomer needs. Every target
# first installs what is missing (Debian packages through apt-get).
BUILD_DIR ?= build
FCLIB_DIR ?= $(abspath ../shared/fclib)
APT_PACKAGES := cmake ninja-build g++ make libeigen3-dev libhdf5-dev libgtest-dev clang-format
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build test run bench format format-check clean

deps:
	@missing=""; for package in $(APT_PACKAGES); do \
	  dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD_DIR) -j 2

# FCLIB tests read the problems from COULOMB_FCLIB_DIR (skipped, with a
# message, when the folder is absent).
test: build
	cd $(BUILD_DIR) && COULOMB_FCLIB_DIR=$(FCLIB_DIR) ctest --output-on-failure -j 2

run: build
	@if [ -d "$(FCLIB_DIR)" ]; then ./$(BUILD_DIR)/coulomb solve "$(FCLIB_DIR)"; \
	else ./$(BUILD_DIR)/coulomb solve --example; fi

bench: build
	@if [ -d "$(FCLIB_DIR)" ]; then ./$(BUILD_DIR)/coulomb bench solve --fclib-dir "$(FCLIB_DIR)"; \
	else ./$(BUILD_DIR)/coulomb bench solve; fi

format: deps
	git ls-files '*.h' '*.cc' | xargs clang-format -i

format-check: deps
	git ls-files '*.h' '*.cc' | xargs clang-format --dry-run -Werror

clean:
	rm -rf $(BUILD_DIR)
