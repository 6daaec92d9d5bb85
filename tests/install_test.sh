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

# The viewer from the installed package: `closed_loop --view` serves the
# live page while the loop runs (paced to real time), then its replay until
# Enter. The page's meta data says which, and how many samples it holds.
in="$work/stdin" log="$work/view.log"
mkfifo "$in"
"$work/example/closed_loop" --view --port 0 <"$in" >"$log" 2>&1 &
pid=$!
exec 3>"$in"  # held open: the program waits for Enter, not end of input
meta() {  # FIELD: a field of the page's replay/meta.json
  python3 -c 'import json, sys, urllib.request
meta = json.load(urllib.request.urlopen(sys.argv[1] + "replay/meta.json", timeout=10))
print(meta[sys.argv[2]] if sys.argv[2] != "samples" else len(meta["time"]))' "$url" "$1"
}
wait_for() {  # TEXT in the program's output, within 30 s
  for _ in $(seq 300); do grep -q "$1" "$log" && return 0; sleep 0.1; done
  echo "closed_loop --view never printed '$1':"; cat "$log"; exit 1
}
wait_for "viewing the loop at http"
url=$(sed -n 's/^viewing the loop at //p' "$log")
test "$(meta live)" = "True" || { echo "the page is not live while the loop runs"; exit 1; }
wait_for "the replay stays at"
test "$(meta live)" = "False" || { echo "the page is not a replay after the loop"; exit 1; }
# 3 s at the default δt = 10 ms: the start and 300 steps.
test "$(meta samples)" = "301" || { echo "the replay holds $(meta samples) samples, not 301"; exit 1; }
echo >&3
exec 3>&-
wait "$pid" || { echo "closed_loop --view failed:"; cat "$log"; exit 1; }
echo "closed_loop --view: live page, then a replay of 301 samples at $url"
