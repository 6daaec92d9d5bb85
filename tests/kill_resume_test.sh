#!/usr/bin/env bash
# A run killed with SIGKILL at a random moment (no chance to clean up) leaves
# trajectory.h5 readable up to its last flush (every simulated second: 100
# steps; the file is written in HDF5's single-writer mode), and --resume
# continues it to its end in the same files, one sample per step, stats.json
# complete; resuming the complete run is refused. Each resume runs under a
# timeout: a resume that waits without end on a block the killed writer
# left half-written fails the round instead of hanging the suite.
# Usage: kill_resume_test.sh PATH/TO/coulomb PATH/TO/fclib_tool [ROUNDS]
# (the 160-body clutter, 20 s per round, a few seconds of computing: a kill
# 0.2-0.9 s after its first sample lands mid-run; the 40-body clutter now
# ends sooner).
set -u
coulomb="$1"
fclib_tool="$2"
rounds="${3:-3}"
source "$(dirname "$0")/checks.sh"

for round in $(seq 1 "$rounds"); do
  run="$work/killed$round"
  "$coulomb" run clutter --set bodies=160 --duration 20 --out "$run" >/dev/null 2>&1 &
  pid=$!
  # The kill lands 0.2-0.9 s after the file holds its first sample: on a
  # loaded machine building the scene alone can take longer than that.
  for _ in $(seq 1 600); do
    [ -e "$run/trajectory.h5" ] && break
    sleep 0.05
  done
  sleep "0.$((RANDOM % 8 + 2))"
  kill -KILL "$pid"; wait "$pid" 2>/dev/null
  samples=$("$fclib_tool" print "$run/trajectory.h5" /time | wc -l)
  check "round $round: the killed run's file reads" test "$samples" -ge 1
  check "round $round: it ends at a flush" test $(((samples - 1) % 100)) -eq 0
  check "round $round: the kill landed before the run's end" test "$samples" -lt 2001
  timeout -s KILL 120 "$coulomb" run --resume "$run" --json >"$work/out" 2>"$work/err"
  code=$?
  [ "$code" -eq 0 ] || head -3 "$work/err"  # why, in the test's log
  check "round $round: resume exits 0 (137: it hung)" test "$code" -eq 0
  check "round $round: stats.json covers every step" python3 -c "
import json; d = json.load(open('$run/stats.json'))
assert d['steps'] == 2000 == len(d['per_step']) and 'running' not in d, d['steps']"
  check "round $round: one sample per step" \
    test "$("$fclib_tool" print "$run/trajectory.h5" /time | wc -l)" -eq 2001
  check "round $round: no partial file is left" test ! -e "$run/trajectory.h5.partial"
  "$coulomb" run --resume "$run" >/dev/null 2>"$work/err"; code=$?
  check "round $round: resume of a complete run exits 2" test "$code" -eq 2
  check "round $round: resume of a complete run says so" \
    grep -q "the run is complete (2000 steps)" "$work/err"
  rm -rf "$run"
done

checks_summary
