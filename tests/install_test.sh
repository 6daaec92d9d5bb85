#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds examples/cpp against the
# installed package (find_package(Coulomb), Coulomb::coulomb) and runs it.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR DEPENDENCY_PREFIX_PATH
set -euo pipefail
build="$1"; source="$2"; dependencies="$3"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/coulomb"
test -f "$work/prefix/include/coulomb/coulomb.h"
cmake -S "$source/examples/cpp" -B "$work/example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix;$dependencies" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/example" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/example/closed_loop" | tail -3
