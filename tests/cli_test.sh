#!/usr/bin/env bash
# End-to-end checks of `coulomb solve`, `run`, `view` and `scenes`: exit
# codes, one-line errors, JSON keys, output files, --help.
# Usage: cli_test.sh PATH/TO/coulomb PATH/TO/scenes PATH/TO/fclib_tool
set -u
coulomb="$1"
scenes="$2"
fclib_tool="$3"
source "$(dirname "$0")/checks.sh"

"$coulomb" solve "$work/missing.hdf5" >"$work/out" 2>"$work/err"; code=$?
check "missing file exits 2" test "$code" -eq 2
check "missing file is named" grep -q "missing.hdf5: cannot open" "$work/err"
check "error is one line" test "$(wc -l <"$work/err")" -eq 1

echo "plain text" >"$work/text.hdf5"
"$coulomb" solve "$work/text.hdf5" >/dev/null 2>"$work/err"; code=$?
check "non-HDF5 exits 2" test "$code" -eq 2

"$coulomb" solve --example --rel-tol abc >/dev/null 2>"$work/err"; code=$?
check "bad number exits 2" test "$code" -eq 2
check "bad number is explained" grep -q "expected a finite number" "$work/err"

"$coulomb" solve --example --linear-solver qr >/dev/null 2>"$work/err"; code=$?
check "bad linear solver exits 2" test "$code" -eq 2

"$coulomb" solve --example >"$work/out"; code=$?
check "example converges" test "$code" -eq 0

# Every solver writes --output for a generated local and global FCLIB problem:
# the file holds r, u (and v) with the right shapes and equations
# (fclib_tool checks them against the problem's own matrices), and the
# residual of the written r is the one the JSON reports.
problems="$work/problems"
mkdir "$problems"
"$fclib_tool" write-problems "$problems"
for solver in sap canal subadmm subadmm-nobody admm pgs; do
  for kind in local global; do
    rm -f "$work/solution.hdf5"
    "$coulomb" solve "$problems/$kind.hdf5" --solver "$solver" --json \
      --output "$work/solution.hdf5" >"$work/out"; code=$?
    check "$solver on $kind exits 0 or 1" test "$code" -le 1
    check "$solver on $kind reports itself" python3 -c "
import json, sys; assert json.load(open('$work/out'))['solver'] == '$solver'"
    written=$("$fclib_tool" check "$problems/$kind.hdf5" "$work/solution.hdf5"); code=$?
    check "$solver on $kind writes r, u (v) of the right shapes and equations" test "$code" -eq 0
    check "$solver on $kind: written r gives the reported residual" python3 -c "
import json; reported = json.load(open('$work/out'))['ncp_residual']
written = float('${written:-nan}')
assert abs(written - reported) <= 1e-9 * max(1.0, reported), (written, reported)"
  done
done
"$coulomb" solve "$problems/local.hdf5" --solver canal --json >"$work/out"; code=$?
check "CANAL solves the local problem to its tolerance" python3 -c "
import json; r = json.load(open('$work/out'))
assert r['converged'] and r['ncp_residual'] < 1e-9, r"
"$coulomb" solve "$problems/global.hdf5" --json >"$work/out"; code=$?
check "SAP solve of an FCLIB file exits 0" test "$code" -eq 0
check "JSON has the required keys" python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
required = ["solver", "converged", "iterations", "momentum_error", "complementarity_error",
            "ncp_residual", "num_dofs", "num_contacts", "wall_time_s"]
missing = [k for k in required if k not in report]
assert not missing, missing
assert report["converged"] is True and report["num_contacts"] == 4 and report["num_dofs"] == 6
# One history record per evaluation: the iterations plus the final check.
assert len(report["history"]) == report["iterations"] + 1
assert report["momentum_error"] < 1e-6
PY
"$coulomb" solve "$problems/local.hdf5" --max-iterations 1 >/dev/null; code=$?
check "non-convergence exits 1" test "$code" -eq 1
"$coulomb" solve --example --output "$work/example.hdf5" >/dev/null 2>"$work/err"; code=$?
check "--output with --example exits 2" test "$code" -eq 2
check "--output with --example is explained" grep -q "one FCLIB file" "$work/err"
check "--output with --example writes nothing" test ! -e "$work/example.hdf5"
"$coulomb" solve "$problems" --output "$work/dir.hdf5" >/dev/null 2>"$work/err"; code=$?
check "--output with a directory exits 2" test "$code" -eq 2
"$coulomb" solve "$problems" --solver canal >"$work/out"; code=$?
check "directory mode runs the requested solver" grep -q "^canal on the FCLIB problems" "$work/out"
check "directory mode lists both files" test "$(grep -c "^[a-z]*\.hdf5 " "$work/out")" -eq 2
check "directory mode adds them up" grep -q \
  "^$(grep -c "^[a-z]*\.hdf5 .* yes " "$work/out") of 2 converged; ncp_resid median .*, worst .*; .* s of solves in all" \
  "$work/out"
mkdir -p "$work/with_broken" && cp "$problems"/*.hdf5 "$work/with_broken/" && echo junk >"$work/with_broken/broken.hdf5"
"$coulomb" solve "$work/with_broken" --solver canal >"$work/out"; code=$?
check "a directory with an unreadable file exits 2" test "$code" -eq 2
check "the file's row says why" grep -q "^broken\.hdf5 .*unreadable or unsolved: .*not an HDF5 file" "$work/out"
check "and the others are still solved" test "$(grep -c "^[a-z]*\.hdf5 .* global\|^[a-z]*\.hdf5 .* local" "$work/out")" -eq 2
check "the totals count it" grep -q "of 2 converged, 1 unreadable or unsolved" "$work/out"
"$coulomb" solve --example --solver pgs --json >"$work/out"; code=$?
check "--example honours --solver and --json" python3 -c "
import json; r = json.load(open('$work/out')); assert r['solver'] == 'pgs', r"
for form in dense operator; do
  "$coulomb" solve --example --solver dual --delassus $form --json >"$work/dual_$form"
  check "solve --solver dual --delassus $form exits 0" test "$?" -eq 0
done
check "the dense and operator Delassus forms reach the same residual" python3 -c "
import json; d, o = (json.load(open('$work/dual_' + f)) for f in ('dense', 'operator'))
assert abs(d['ncp_residual'] - o['ncp_residual']) < 1e-6 * o['ncp_residual'], (d, o)"
"$coulomb" solve --example --threads 0 >/dev/null 2>&1; code=$?
check "--threads 0 exits 2" test "$code" -eq 2
"$coulomb" solve --example --max-iterations 1 --json >"$work/out"; code=$?
check "--example --max-iterations 1 exits 1" test "$code" -eq 1
check "an unconverged solve still prints its JSON, marked" python3 -c "
import json; r = json.load(open('$work/out'))
assert r['converged'] is False and r['iterations'] == 1, r"
for bad in "--solver nope" "--threads 0" "--threads 100000" "--rel-tol 2" "--rel-tol -1" \
           "--max-iterations 0" \
           "--line-search nope" "--output"; do
  "$coulomb" solve --example $bad >/dev/null 2>"$work/err"; code=$?
  check "solve --example $bad exits 2" test "$code" -eq 2
  check "solve --example $bad says why in one line" test "$(wc -l <"$work/err")" -eq 1
done
for bad in "--dt -1" "--dt 0" "--duration 0" "--threads 0" "--threads 100000" \
           "--solver nope" "--model nope" \
           "--scheme nope" "--set bodies=x" "--set nokey=1" "--rel-tol 0" "--sigma 0" \
           "--sigma -1" "--sigma nan" "--lookahead -1" "--lookahead nan" "--lookahead" \
           "--max-iterations 0" "--max-iterations x" "nosuchscene"; do
  "$coulomb" run $bad --duration 0.01 >/dev/null 2>"$work/err"; code=$?
  check "run $bad exits 2" test "$code" -eq 2
  check "run $bad says why in one line" test "$(wc -l <"$work/err")" -eq 1
done

# A run that fails (a tolerance below round-off: SAP cannot certify the
# ball's first contact step) exits 1 and keeps everything up to the
# failure: stats.json with the failed step, trajectory.h5 with every step
# before it.
"$coulomb" run sphere_on_ground --rel-tol 1e-300 \
  --out "$work/failed" --json >"$work/out" 2>"$work/err"; code=$?
check "a failed run exits 1" test "$code" -eq 1
check "a failed run says which step failed" grep -q "step at t = " "$work/err"
samples=$("$fclib_tool" print "$work/failed/trajectory.h5" /time | wc -l)
check "a failed run keeps its files" python3 -c "
import json; stats = json.load(open('$work/failed/stats.json'))
steps = stats['per_step']
assert stats['failed_steps'] == 1 and not steps[-1]['converged'], stats['failed_steps']
assert all(s['converged'] for s in steps[:-1]) and stats['steps'] == len(steps) - 1
assert $samples == stats['steps'] + 1, ($samples, stats['steps'])"
check "no partial files are left" test -z "$(ls "$work/failed" | grep partial)"

# --threads: SubADMM's trajectory is the same, bit for bit, on 1 and 2 threads.
for threads in 1 2; do
  "$coulomb" run clutter --set bodies=8 --duration 0.2 --solver subadmm --threads $threads \
    --out "$work/threads$threads" --json >/dev/null; code=$?
  check "run --threads $threads exits 0" test "$code" -eq 0
  "$fclib_tool" print "$work/threads$threads/trajectory.h5" /q >"$work/q$threads"
done
check "trajectories on 1 and 2 threads are identical" cmp -s "$work/q1" "$work/q2"
check "the trajectory is not empty" test "$(wc -l <"$work/q1")" -gt 100

# coulomb run / scenes
"$coulomb" scenes >"$work/out"; code=$?
check "scenes exits 0" test "$code" -eq 0
for name in clutter sphere_on_ground box_slide spring_cylinder quadruped_drop conveyor_belt \
  falling_sphere sliding_rod; do
  check "scenes lists $name" grep -q "^$name " "$work/out"
done

"$coulomb" run sphere_on_ground --json --out "$work/run" >"$work/out"; code=$?
check "run exits 0" test "$code" -eq 0
check "run JSON summary and files" python3 - "$work/out" "$work/run" <<'PY'
import json, os, sys
report = json.load(open(sys.argv[1]))
parts = ["geometry_time_s", "assembly_time_s", "solve_time_s"]
required = ["steps", "sim_time", "wall_time_s", "realtime_factor", "iterations_mean",
            "iterations_max", "momentum_error_max", "failed_steps", "penetration_max",
            "contacts_max", "energy_initial", "energy_final", "step_time_s"] + parts
missing = [k for k in required if k not in report]
assert not missing, missing
# The steps' time: within the run's, split into parts that do not overlap.
assert 0 < report["step_time_s"] <= report["wall_time_s"], report
assert all(report[k] > 0 for k in parts), report
assert sum(report[k] for k in parts) <= report["step_time_s"], report
assert report["steps"] == 200 and report["failed_steps"] == 0
# The ball dropped from 0.5 m ends at rest on the ground: the energy left is
# its potential energy m g r = 1 × 9.81 × 0.1 (to the rest penetration).
assert abs(report["energy_final"] - 0.981) < 1e-3, report["energy_final"]
stats = json.load(open(os.path.join(sys.argv[2], "stats.json")))
assert len(stats["per_step"]) == 200
# Each step's split, written to the file, adds up to the summary's.
for k in parts + ["wall_time_s"]:
    total = sum(step[k] for step in stats["per_step"])
    expected = report["step_time_s" if k == "wall_time_s" else k]
    assert abs(total - expected) <= 1e-9 * expected, (k, total, expected)
assert os.path.getsize(os.path.join(sys.argv[2], "trajectory.h5")) > 0
PY

"$coulomb" run no_such_scene >/dev/null 2>"$work/err"; code=$?
check "unknown scene exits 2" test "$code" -eq 2
check "unknown scene lists the built-ins" grep -q "built-in scenes: clutter" "$work/err"

"$coulomb" run clutter --set colour=red >/dev/null 2>"$work/err"; code=$?
check "unknown scene option exits 2" test "$code" -eq 2

"$coulomb" run box_slide --scheme leapfrog >/dev/null 2>"$work/err"; code=$?
check "unknown scheme exits 2" test "$code" -eq 2

"$coulomb" run box_slide --rel-tol 1e-6 --no-such-option 1 >/dev/null 2>"$work/err"; code=$?
check "unknown run option exits 2" test "$code" -eq 2

for model in sap lagged regularized_lagged similar; do
  "$coulomb" run conveyor_belt --model "$model" --duration 0.5 --json >"$work/out"; code=$?
  check "conveyor_belt runs with --model $model" test "$code" -eq 0
  check "--model $model is reported" grep -q "\"contact_model\": \"$model\"" "$work/out"
done
"$coulomb" run conveyor_belt --model rigid >/dev/null 2>"$work/err"; code=$?
check "unknown contact model exits 2" test "$code" -eq 2
# Lagged needs a finite stiffness: box_slide is near-rigid (k = ∞).
"$coulomb" run box_slide --model lagged >/dev/null 2>"$work/err"; code=$?
check "lagged with infinite stiffness exits 1" test "$code" -eq 1
check "and says why" grep -q "needs a finite stiffness" "$work/out" "$work/err"
"$coulomb" run box_slide --solver canal --json >"$work/out"; code=$?
check "run --solver canal exits 0" test "$code" -eq 0
check "run --solver canal reports the NCP residual" python3 -c "
import json, sys; r = json.load(open('$work/out'))
assert r['solver'] == 'canal' and r['ncp_residual_max'] < 1e-6, r"
for solver in subadmm subadmm-nobody admm; do
  "$coulomb" run box_slide --solver $solver --json >"$work/out"; code=$?
  check "run --solver $solver exits 0" test "$code" -eq 0
  check "run --solver $solver reaches the rigid solution" python3 -c "
import json, sys; r = json.load(open('$work/out'))
assert r['solver'] == '$solver' and r['ncp_residual_max'] < 1e-6, r"
done
"$coulomb" solve --example --solver canal --max-iterations 2 --json >"$work/out"; code=$?
check "solve: CANAL cut off after 2 iterations exits 1 and runs no fallback" python3 -c "
import json; r = json.load(open('$work/out'))
assert $code == 1 and not r['converged'] and r['fallback_iterations'] == 0, r"
"$coulomb" solve --example --solver canal --max-iterations 2 --fallback-iterations 10000 \
  --json >"$work/out"; code=$?
check "solve --fallback-iterations: ADMM goes on from CANAL's best to the tolerance" python3 -c "
import json; r = json.load(open('$work/out'))
assert $code == 0 and r['converged'] and r['fallback_iterations'] > 0, r
assert r['iterations'] == 2 and r['ncp_residual'] <= 1e-9, r"
fclib="${COULOMB_FCLIB_DIR:-}/Box_Stacks-i0122-82-5.hdf5"
if [ -f "$fclib" ]; then
  "$coulomb" solve "$fclib" --solver canal --json >"$work/out"; code=$?
  check "solve --solver canal exits 0" test "$code" -eq 0
  check "solve --solver canal reaches the rigid solution" python3 -c "
import json; r = json.load(open('$work/out')); assert r['ncp_residual'] < 1e-8, r"
  "$coulomb" solve "$fclib" --solver canal --max-iterations 1 >"$work/out"; code=$?
  check "solve: CANAL cut off says so and how to go on" \
    grep -q "hint: --fallback-iterations" "$work/out"
  "$coulomb" solve "$fclib" --solver canal --max-iterations 1 --fallback-iterations 10000 \
    >"$work/out"; code=$?
  check "solve --fallback-iterations says CANAL ended unsolved and ADMM converged" \
    grep -q "canal ended unsolved after 1 iterations.*then ADMM from its best converged" \
    "$work/out"
  for inner in dogleg ssn; do
    "$coulomb" solve "$fclib" --solver canal --canal-inner $inner --json >"$work/out"; code=$?
    check "solve --canal-inner $inner exits 0" test "$code" -eq 0
    check "solve --canal-inner $inner reaches the rigid solution and counts inner solves" \
      python3 -c "
import json; r = json.load(open('$work/out'))
assert r['ncp_residual'] < 1e-8 and r['inner_solves'] == r['iterations'], r"
  done
else
  echo "note: $fclib not found (COULOMB_FCLIB_DIR): the check on a real FCLIB file is skipped"
fi
"$coulomb" bench irr --case belt --quick >"$work/out"; code=$?
check "bench irr exits 0" test "$code" -eq 0
check "bench irr prints the gliding table" grep -q "^| similar | 0.01 |" "$work/out"
"$coulomb" bench ncp --cases 2 --csv "$work/histories.csv" >"$work/out"; code=$?
check "bench ncp exits 0" test "$code" -eq 0
check "bench ncp --csv writes every solver's history" python3 -c "
import csv; rows = list(csv.DictReader(open('$work/histories.csv')))
assert {r['solver'] for r in rows} == {'canal', 'subadmm', 'pgs', 'sap'}, rows[:3]
assert all(float(r['residual']) >= 0 for r in rows)"
"$coulomb" bench ncp --case bolt_nut --cases 2 >"$work/out"; code=$?
check "bench ncp --case bolt_nut exits 0" test "$code" -eq 0
check "bench ncp --case bolt_nut: 120 clustered contacts at most, CANAL the most accurate" \
  python3 -c "
import re
text = open('$work/out').read()
sizes = re.search(r'(\d+)(?:–(\d+))? contacts', text).groups()
assert 0 < int(sizes[-1] or sizes[0]) <= 120, sizes
final = {l.split('|')[1].strip(): float(l.split('|')[5]) for l in text.splitlines()
         if l.count('|') == 7 and l.split('|')[1].strip() in ('canal', 'subadmm', 'pgs')}
assert final['canal'] <= min(final['subadmm'], final['pgs']), final"
"$coulomb" bench ncp --ablation --cases 3 >"$work/out"; code=$?
check "bench ncp --ablation exits 0" test "$code" -eq 0
check "bench ncp --ablation prints a row per inner solver beside the paper's" python3 -c "
rows = [l.split('|') for l in open('$work/out') if l.startswith('| ') and 'paper:' in l
        and not l.startswith('| inner')]
assert [r[1].split()[0] for r in rows] == ['newton', 'dogleg', 'ssn'], rows
assert all(float(r[2]) > 0 and 0 <= float(r[3]) <= 100 for r in rows), rows"
"$coulomb" bench clutter --duration 0.2 --max-bodies 10 >"$work/out"; code=$?
check "bench clutter exits 0" test "$code" -eq 0
check "bench clutter prints a row per size and wall setting" \
  test "$(grep -c '^|  *10 |' "$work/out")" -eq 2
check "bench clutter's Newton iterations per tree are at most the slowest island's" python3 -c "
rows = [l.split('|') for l in open('$work/out') if l.startswith('|  ')]
assert len(rows) == 2 and all(0 < float(r[6]) <= float(r[4]) for r in rows), rows"

for scene in "$scenes"/*.yaml; do
  "$coulomb" run "$scene" --json >"$work/out"; code=$?
  check "$(basename "$scene") runs" test "$code" -eq 0
done
# The height-field scene: its rocks land on the terrain's prisms, every
# step certified, no warning.
"$coulomb" run "$scenes/terrain.xml" --duration 1.5 --json >"$work/out" 2>"$work/err"; code=$?
check "terrain.xml runs without a warning" test "$code" -eq 0 -a ! -s "$work/err"
check "its rocks land on the height field, every step at e_m ≤ 1e-6" python3 -c "
import json; s = json.load(open('$work/out'))
assert s['contacts_max'] > 16 and s['momentum_error_max'] <= 1e-6, s"
printf 'bodies:\n  - name: b\n    shape: {sphere: {radius: -1}}\n    mass: 1\n' >"$work/bad.yaml"
"$coulomb" run "$work/bad.yaml" >/dev/null 2>"$work/err"; code=$?
check "bad scene file exits 2" test "$code" -eq 2
check "bad scene file names line and key" \
  grep -q "bad.yaml:3: bodies\[0\].shape.sphere.radius: must be positive" "$work/err"

# SIGINT and SIGTERM stop a run after its current step: it keeps and writes
# what it has (stats.json says interrupted, one sample per step taken) and
# exits 128 + the signal.
for signal in INT TERM; do
  rm -rf "$work/interrupted"
  "$coulomb" run clutter --duration 600 --out "$work/interrupted" >/dev/null 2>"$work/err" &
  pid=$!
  sleep 1.5
  kill -"$signal" "$pid"
  wait "$pid"; code=$?
  expected=$((128 + $(kill -l "$signal")))
  check "SIG$signal: the run exits $expected" test "$code" -eq "$expected"
  check "SIG$signal: one line says so" grep -q "interrupted by SIG$signal" "$work/err"
  check "SIG$signal: what was computed is written" python3 -c "
import json; d = json.load(open('$work/interrupted/stats.json'))
assert d['interrupted'] is True and d['steps'] == len(d['per_step']) > 0, d['steps']"
  samples=$("$fclib_tool" print "$work/interrupted/trajectory.h5" /time | wc -l)
  steps=$(python3 -c "import json; print(json.load(open('$work/interrupted/stats.json'))['steps'])")
  check "SIG$signal: the trajectory holds every step" test "$samples" -eq $((steps + 1))
done

# A full disk (here the file size limit, ulimit -f): the run stops cleanly
# before a write that would not fit, in one line, with the file as at its last
# flush; --resume finishes it once there is room.
rm -rf "$work/full"
(ulimit -f 6000; trap '' XFSZ; exec "$coulomb" run clutter --duration 5 --out "$work/full" \
  >/dev/null 2>"$work/err"); code=$?
check "full disk: exits 1" test "$code" -eq 1
check "full disk: one line says so" test "$(grep -c "no room for the next" "$work/err")" -eq 1
check "full disk: the file reads up to its last flush" \
  test "$("$fclib_tool" print "$work/full/trajectory.h5" /time | wc -l)" -eq 101
"$coulomb" run --resume "$work/full" >/dev/null 2>&1; code=$?
check "full disk: the resumed run completes" test "$code" -eq 0
check "full disk: the resumed file holds every step" \
  test "$("$fclib_tool" print "$work/full/trajectory.h5" /time | wc -l)" -eq 501

# An --out that cannot be a folder fails before the run, in one line.
: >"$work/a_file"
"$coulomb" run clutter --out "$work/a_file/run" >/dev/null 2>"$work/err"; code=$?
check "unwritable --out exits 2" test "$code" -eq 2
check "unwritable --out is one line naming it" grep -q "a_file/run: cannot create" "$work/err"

# A time step a body can fall through its own size in: one warning line, the
# run goes on.
"$coulomb" run clutter --dt 0.5 --duration 1 >/dev/null 2>"$work/err"; code=$?
check "long time step runs" test "$code" -eq 0
check "long time step is warned of once" \
  test "$(grep -c "contacts may be missed" "$work/err")" -eq 1
check "the warning says which δt resolves it" grep -q "δt ≤ 0.1 s resolves it" "$work/err"

# Bodies placed inside each other run, with one warning line.
{
  printf 'bodies:\n'
  printf '  - {name: a, shape: {sphere: {radius: 0.1}}, mass: 1, pose: {position: [0, 0, 1]}}\n'
  printf '  - {name: b, shape: {sphere: {radius: 0.1}}, mass: 1, pose: {position: [0, 0, 1.15]}}\n'
} >"$work/overlap.yaml"
"$coulomb" run "$work/overlap.yaml" --duration 0.1 >/dev/null 2>"$work/err"; code=$?
check "overlapping bodies run" test "$code" -eq 0
check "overlapping bodies are reported in one line" test "$(grep -c "overlap" "$work/err")" -eq 1
check "the report names the pair and the depth" grep -q "a and b, 50 mm" "$work/err"

# --help on every command: its usage on stdout, exit 0, nothing run.
for command in solve run view scenes bench; do
  "$coulomb" "$command" --help >"$work/out" 2>"$work/err"; code=$?
  check "$command --help exits 0" test "$code" -eq 0
  check "$command --help shows its usage" grep -q "^  $command" "$work/out"
  check "$command --help prints no error" test ! -s "$work/err"
done

# coulomb view: bad input exits 2 with one line and writes nothing (a view
# that serves instead is stopped after 10 s, and fails).
expect_view_error() {  # expect_view_error NAME PATTERN ARGS...
  local name="$1" pattern="$2"; shift 2
  timeout 10 "$coulomb" view "$@" >/dev/null 2>"$work/err"; code=$?
  check "view $name exits 2" test "$code" -eq 2
  check "view $name: one line" test "$(wc -l <"$work/err")" -eq 1
  check "view $name is explained" grep -q "$pattern" "$work/err"
}
expect_view_error "without a folder" "which run" 
expect_view_error "of a missing folder" "no such directory" "$work/nothing"
expect_view_error "of a file" "a_file: a file, not a run's folder (coulomb run .*a_file --view" \
  "$work/a_file"
mkdir "$work/empty_run"
expect_view_error "of a folder without a run" "trajectory.h5: missing" "$work/empty_run"
"$coulomb" run sphere_on_ground --duration 0.1 --out "$work/view_run" >/dev/null
expect_view_error "with a bad port" "port must be" "$work/view_run" --port 70000
expect_view_error "with a bad host" "expected a host name" "$work/view_run" --host "a'b"
expect_view_error "with an unknown option" "unknown option --fast" "$work/view_run" --fast
expect_view_error "exporting into a missing folder" "cannot write" "$work/view_run" \
  --export "$work/no/such/folder/replay.html"
check "a failed export leaves no partial file" test ! -e "$work/no/such/folder/replay.html.partial"
# A port another viewer listens on is refused, not shared with it.
"$coulomb" view "$work/view_run" --port 0 >"$work/first_view" 2>&1 &
first_view=$!
for _ in $(seq 50); do grep -q 'http://' "$work/first_view" && break; sleep 0.1; done
busy_port=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/first_view" | head -1 | cut -d: -f2)
expect_view_error "on a port in use" "cannot listen on 127.0.0.1:$busy_port" "$work/view_run" \
  --port "${busy_port:-1}"
kill "$first_view"
wait "$first_view" 2>/dev/null
"$coulomb" view "$work/view_run" --export "$work/replay.html" >"$work/out"; code=$?
check "view --export exits 0" test "$code" -eq 0
check "the export is one page with the data inlined" \
  grep -q 'id="coulomb-chunk-0"' "$work/replay.html"
check "the export fetches nothing" \
  sh -c "! grep -Eq '(src|href)=\"(https?:|//)' '$work/replay.html'"

# What an MJCF file holds that is not simulated is a warning on stderr, and
# the run goes on.
sed 's|</mujoco>|<equality><flex flex="cloth"/></equality></mujoco>|' \
  "$scenes/models/two_link_arm.xml" >"$work/flex_equality.xml"
printf 'time_step: 0.01\nrobots:\n  - {name: r, mjcf: flex_equality.xml}\n' \
  >"$work/flex_equality.yaml"
"$coulomb" run "$work/flex_equality.yaml" --duration 0.05 >/dev/null 2>"$work/err"; code=$?
check "a run with unread MJCF elements exits 0" test "$code" -eq 0
check "it warns of them, naming the file" grep -q \
  "coulomb run: warning: robots\[0\]\.mjcf: .*flex_equality.xml: 1 <equality> constraint (flex) is not read" \
  "$work/err"

# A MuJoCo model file runs as a scene by itself: its time step (0.005 s:
# 20 steps in 0.1 s), its floor and table; its errors name the file alone.
"$coulomb" run "$scenes/arm_over_a_table.xml" --duration 0.1 --json >"$work/out"; code=$?
check "an MJCF file runs as a scene" test "$code" -eq 0
check "with the file's time step" grep -q '"steps": 20' "$work/out"
sed 's|<geom name="table"|<geom name="lid" type="plane" pos="0 0 1"/><geom name="table"|; s|<geom name="upper_link"|<geom name="blade" type="plane"/><geom name="upper_link"|' \
  "$scenes/arm_over_a_table.xml" >"$work/bad_arm.xml"
"$coulomb" run "$work/bad_arm.xml" >/dev/null 2>"$work/err"; code=$?
check "an MJCF scene's error exits 2" test "$code" -eq 2
check "it names the file and what is wrong, in one line" grep -q \
  "^coulomb run: $work/bad_arm.xml: cannot load MJCF: .*blade: a plane on link 'upper_arm'" \
  "$work/err"
check "in one line" test "$(wc -l <"$work/err")" -eq 1

# --keyframe starts it at one of its <key>s; a key it lacks is refused.
sed 's|</mujoco>|<keyframe><key name="raised" qpos="0.3 -0.2"/></keyframe></mujoco>|' \
  "$scenes/arm_over_a_table.xml" >"$work/keyed_arm.xml"
"$coulomb" run "$work/keyed_arm.xml" --keyframe raised --duration 0.01 >/dev/null; code=$?
check "an MJCF file runs from its keyframe" test "$code" -eq 0
"$coulomb" run "$work/keyed_arm.xml" --keyframe lowered >/dev/null 2>"$work/err"; code=$?
check "a keyframe the file lacks exits 2" test "$code" -eq 2
check "naming the file and the key" grep -q \
  "^coulomb run: $work/keyed_arm.xml: no keyframe named 'lowered'" "$work/err"


# --fclib-out writes every N-th step's contact problem (with contacts) as an
# FCLIB file that coulomb solve reads; a robot driven by a servo (a PD
# controller's soft law) has no FCLIB form: one warning, the run goes on.
"$coulomb" run clutter --set bodies=8 --duration 0.2 --fclib-out "$work/fclib_steps" \
  --fclib-every 5 >/dev/null; code=$?
check "a run with --fclib-out exits 0" test "$code" -eq 0
check "it writes every 5th step that has contacts, named by step" test \
  "$(ls "$work/fclib_steps" | tail -2 | tr '\n' ' ')" = \
  "clutter-step000015.hdf5 clutter-step000020.hdf5 "
"$coulomb" solve "$work/fclib_steps" --solver canal >"$work/out"; code=$?
check "coulomb solve solves them all" test "$code" -eq 0
check "to the rigid NCP's tolerance" test "$(grep -c " global .* yes " "$work/out")" -eq \
  "$(ls "$work/fclib_steps" | wc -l)"
"$coulomb" run "$scenes/parallel_gripper.xml" --keyframe open --duration 0.01 \
  --fclib-out "$work/fclib_gripper" >/dev/null 2>"$work/err"; code=$?
check "a run whose steps FCLIB cannot hold exits 0" test "$code" -eq 0
check "with one warning naming the step and why" grep -q \
  "^coulomb run: warning: --fclib-out: step 1: .*PD controller's soft law: FCLIB has no such constraint" \
  "$work/err"
check "and writes nothing" test -z "$(ls "$work/fclib_gripper")"

# A time step bodies fall through the floor in: warned of at the start and
# after the run, which goes on.
"$coulomb" run clutter --set bodies=4 --dt 10 --duration 20 >/dev/null 2>"$work/err"; code=$?
check "a run with a 10 s step exits 0" test "$code" -eq 0
check "it warns of the step before the run" grep -q \
  "^coulomb run: warning: a body falls 491 m in one step of 10 s" "$work/err"
check "and of the bodies passing through each other after it" grep -q \
  "^coulomb run: warning: bodies sank [0-9.e+]* m into each other, deeper than the largest body's radius.*(or stiffer contact) resolves it$" \
  "$work/err"
# The Lagged model at δt = 10 ms: boxes sink 94 mm into each other, and the
# warning says why a shorter step (not a stiffer contact) is the cure.
"$coulomb" run clutter --model lagged --set stiffness=1e10 --duration 0.5 >/dev/null 2>"$work/err"
check "a Lagged run whose boxes sank is told that its friction's bound needs a shorter step" grep -q \
  "^coulomb run: warning: bodies sank [0-9.e+]* m .*; a shorter time step resolves it (the Lagged model's friction is bounded by the impulse of each step's starting overlap" \
  "$work/err"

# An NCP solver's steps accepted at its budget above its tolerance: each
# flagged in the step records, counted in stats.json, warned of after the
# run with the budget (CANAL's 2 outer iterations leave the landing unsolved).
"$coulomb" run clutter --set bodies=8 --duration 0.3 --solver canal --max-iterations 2 \
  --out "$work/budget" >/dev/null 2>"$work/err"; code=$?
check "a run whose NCP steps end at the budget exits 0" test "$code" -eq 0
check "stats.json counts the steps flagged ended_at_budget, and the run warns of them" \
  python3 -c "
import json, re
stats = json.load(open('$work/budget/stats.json'))
flagged = sum(step['ended_at_budget'] for step in stats['per_step'])
unsolved = sum(step['ncp_residual'] > 1e-8 for step in stats['per_step'])
assert stats['budget_ended_steps'] == flagged == unsolved > 0, (stats['budget_ended_steps'], flagged, unsolved)
warning = open('$work/err').read()
assert re.match(rf'coulomb run: warning: {flagged} of {stats[\"steps\"]} steps ended canal\'s budget '
                r'of 2 iterations above its tolerance', warning), warning
"
# --general-form steps the same objects (boxes with a cap welded to each,
# their centres of mass off their frames) through Pinocchio's CRBA and RNEA
# instead of the free bodies' closed form: the same physics, computed
# another way, so the runs agree to round-off but not bit for bit.
cat >"$work/capped.xml" <<'XML'
<mujoco><option timestep="0.01"/><worldbody><geom type="plane" size="1 1 0.1"/>
<body name="low" pos="0 0 0.15" quat="0.9 0.2 0.3 0.1"><freejoint/>
<geom type="box" size="0.04 0.05 0.03" pos="0.02 -0.01 0" mass="1"/>
<body name="low_cap" pos="0 0 0.04"><geom type="box" size="0.03 0.03 0.01" mass="0.2"/></body></body>
<body name="high" pos="0.03 0.02 0.4" quat="0.5 0.5 -0.5 0.5"><freejoint/>
<geom type="box" size="0.04 0.05 0.03" pos="0.02 -0.01 0" mass="1"/>
<body name="high_cap" pos="0 0 0.04"><geom type="box" size="0.03 0.03 0.01" mass="0.2"/></body></body>
</worldbody></mujoco>
XML
"$coulomb" run "$work/capped.xml" --duration 1 --json >"$work/closed.json"
"$coulomb" run "$work/capped.xml" --duration 1 --json --general-form >"$work/general.json"
check "--general-form steps welded objects on the general path to the closed form's result" \
  python3 -c "
import json
a, b = (json.load(open('$work/' + name + '.json')) for name in ('closed', 'general'))
assert a['iterations_mean'] == b['iterations_mean'] and a['contacts_max'] == b['contacts_max'] > 0, (a, b)
difference = abs(a['energy_final'] - b['energy_final'])
assert 0 < difference < 1e-9 * abs(a['energy_initial']), difference
"
# A run started with --general-form and cut short (a full disk, as above)
# resumes on the general path: the resumed run ends bit for bit where the
# uninterrupted one does, not where the closed form does.
rm -rf "$work/cut"
(ulimit -f 2000; trap '' XFSZ; exec "$coulomb" run "$work/capped.xml" --duration 20 --general-form \
  --out "$work/cut" >/dev/null 2>&1)
check "--general-form cut short: the file ends mid-run" \
  test "$("$fclib_tool" print "$work/cut/trajectory.h5" /time | wc -l)" -lt 2001
"$coulomb" run --resume "$work/cut" --json >"$work/resumed.json"
"$coulomb" run "$work/capped.xml" --duration 20 --json --general-form >"$work/general.json"
"$coulomb" run "$work/capped.xml" --duration 20 --json >"$work/closed.json"
check "--resume keeps --general-form" python3 -c "
import json
resumed, general, closed = (json.load(open('$work/' + name + '.json')) for name in ('resumed', 'general', 'closed'))
assert resumed['steps'] == general['steps'] == 2000, (resumed['steps'], general['steps'])
assert resumed['energy_final'] == general['energy_final'] != closed['energy_final'], (resumed, general, closed)
"
check "--resume: the summary counts every step since the run began" python3 -c "
import json
resumed, general = (json.load(open('$work/' + name + '.json')) for name in ('resumed', 'general'))
timings = {'wall_time_s', 'realtime_factor', 'step_time_s', 'geometry_time_s', 'assembly_time_s', 'solve_time_s'}
# (The resumed process starts without a symbolic factorization: one more analysis at most.)
analyses = 'symbolic_analysis_steps'
differ = {key: (resumed[key], general[key]) for key in general
          if key not in timings | {analyses} and resumed[key] != general[key]}
assert not differ, differ
assert general[analyses] <= resumed[analyses] <= general[analyses] + 1, (resumed[analyses], general[analyses])
"
checks_summary
