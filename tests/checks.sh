# Sourced by the shell tests: a scratch folder $work (removed at exit),
# check NAME CONDITION... (counts it passed, or prints "FAILED: NAME"), and
# checks_summary, the last command (its status is the test's).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passed=0
check() {  # check NAME CONDITION...
  local name="$1"; shift
  if "$@"; then passed=$((passed + 1)); else echo "FAILED: $name"; failures=$((failures + 1)); fi
}
checks_summary() {
  echo "$passed passed, $failures failed"
  test "$failures" -eq 0
}
