#!/usr/bin/env bash
# Runs a GoogleTest binary as two shards in parallel (GTEST_TOTAL_SHARDS) and
# fails if either shard fails: the sanitized tests on both cores.
# Usage: tests/run_in_two_shards.sh BINARY [GTEST ARGS...]
set -u
status=0
pids=()
for shard in 0 1; do
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard "$@" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
[ "$status" -eq 0 ] || echo "$1: a shard failed" >&2
exit "$status"
