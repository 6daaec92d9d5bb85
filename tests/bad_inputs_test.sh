#!/usr/bin/env bash
# The bad-input corpus: every file in tests/bad_inputs/scenes (a scene file
# whose first line says "# expect: TEXT"), every FCLIB file `fclib_tool
# write-bad` writes, and every line of tests/bad_inputs/command_lines.txt is
# refused with exit code 2 and exactly one line on stderr that names the
# input (and says TEXT), with no stack trace and no output file left behind.
# Usage: bad_inputs_test.sh PATH/TO/coulomb PATH/TO/fclib_tool
set -u
coulomb="$(realpath "$1")"
fclib_tool="$(realpath "$2")"
corpus="$(cd "$(dirname "$0")/bad_inputs" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
inputs=0

# expect_refusal NAME NEEDLE OUTPUT COMMAND...: exit 2, one stderr line that
# contains NEEDLE, no crash, and OUTPUT (a path the command was asked to
# write) absent.
expect_refusal() {
  local name="$1" needle="$2" output="$3"; shift 3
  inputs=$((inputs + 1))
  "$@" >"$work/out" 2>"$work/err" </dev/null; local code=$?
  local problem=""
  [ "$code" -eq 2 ] || problem="exit code $code"
  [ "$(wc -l <"$work/err")" -eq 1 ] || problem="$problem; $(wc -l <"$work/err") lines on stderr"
  grep -qF -- "$needle" "$work/err" || problem="$problem; no '$needle' in the message"
  if grep -qE "terminate called|what\(\)|Aborted|Segmentation|Traceback" "$work/err"; then
    problem="$problem; a crash"
  fi
  if [ -n "$output" ] && [ -e "$output" ]; then problem="$problem; $output was written"; fi
  if [ -n "$problem" ]; then
    echo "FAILED: $name: $problem"
    sed 's/^/    /' "$work/err" | head -5
    failures=$((failures + 1))
  fi
}

cd "$corpus/scenes"
for scene in *.yaml; do
  expect=$(head -1 "$scene" | sed -n 's/^# expect: //p')
  expect_refusal "scene $scene" "$scene" "$work/out_${scene%.yaml}" \
    "$coulomb" run "$scene" --duration 0.05 --out "$work/out_${scene%.yaml}"
  if [ -n "$expect" ] && ! grep -qF -- "$expect" "$work/err"; then
    echo "FAILED: scene $scene: the message does not say '$expect'"
    failures=$((failures + 1))
  fi
done

mkdir "$work/fclib"
"$fclib_tool" write-bad "$work/fclib"
for problem in "$work"/fclib/*.hdf5; do
  name=$(basename "$problem")
  expect_refusal "FCLIB $name" "$name" "$work/solution_$name" \
    "$coulomb" solve "$problem" --output "$work/solution_$name"
done

while IFS=$'\t' read -r expect arguments; do
  case "$expect" in '#'*|'') continue ;; esac
  # shellcheck disable=SC2086  # the arguments are words
  expect_refusal "coulomb $arguments" "$expect" "" "$coulomb" $arguments
done <"$corpus/command_lines.txt"

echo "$inputs bad inputs, $failures not refused as they should be"
if [ "$inputs" -lt 60 ]; then
  echo "FAILED: the corpus has $inputs inputs, fewer than 60"
  failures=$((failures + 1))
fi
test "$failures" -eq 0
