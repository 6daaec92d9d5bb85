#!/usr/bin/env bash
# Runs each libFuzzer harness of tests/fuzz for SECONDS and prints, per
# harness, the executions, the coverage (edges) and the corpus size; a crash,
# a leak or an input slower than 1 s stops that harness with its input saved
# in BUILD/fuzz-findings/NAME/ (turn it into a regression input in
# tests/fuzz/corpus/NAME/). Exit status: the number of harnesses that failed.
# Usage: run_fuzzers.sh BUILD_DIR SECONDS [RUNS [SEED]]
#   RUNS: stop each harness after RUNS executions instead (SECONDS then only
#   bounds a hang); SEED: libFuzzer's random seed (default: a new one each
#   run). RUNS and SEED together fix a run's budget and first choices (CI);
#   its path still differs a little from run to run (the coverage libFuzzer
#   sees depends on timing and addresses), so a run can meet a new input.
set -u
build="$1"
seconds="$2"
runs="${3:-}"
seed="${4:-0}"
limit=(-max_total_time="$seconds")
[ -n "$runs" ] && limit=(-runs="$runs")
source_dir=$(cd "$(dirname "$0")" && pwd)
symbolizer=$(command -v llvm-symbolizer-19 || ls /usr/lib/llvm-19/bin/llvm-symbolizer 2>/dev/null)
export ASAN_SYMBOLIZER_PATH="$symbolizer" ASAN_OPTIONS=detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS="suppressions=$source_dir/lsan_suppressions.txt"
failed=0
printf '%-8s %12s %10s %8s %s\n' harness executions "exec/s" edges result
for name in scene fclib urdf mjcf png snapshot; do
  corpus="$build/fuzz-corpus/$name"  # grows from run to run
  findings="$build/fuzz-findings/$name"
  log="$build/fuzz-$name.log"
  mkdir -p "$corpus" "$findings"
  seeds=("$source_dir/corpus/$name")
  [ "$name" = scene ] && seeds+=("$source_dir/../../scenes")
  # libFuzzer's own limit ends the run; the outer timeout only guards a hang
  # of the harness itself.
  outer=$((seconds + 120))
  [ -n "$runs" ] && outer=$((runs / 50 + 600))  # at least 50 executions/s
  timeout "$outer" "$build/tests/fuzz/${name}_fuzzer" "${limit[@]}" \
    -timeout=5 -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 -seed="$seed" \
    -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" >"$log" 2>&1
  code=$?
  executions=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  rate=$(grep -a -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$')
  edges=$(grep -a -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  result=ok
  if [ "$code" -ne 0 ]; then
    result="FAILED (exit $code; $log, inputs in $findings)"
    failed=$((failed + 1))
  fi
  printf '%-8s %12s %10s %8s %s\n' "$name" "${executions:-?}" "${rate:-?}" "${edges:-?}" "$result"
done
exit "$failed"
