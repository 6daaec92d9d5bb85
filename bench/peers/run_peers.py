"""Coulomb beside MuJoCo on the same scenes, measured in one run on one
machine (only ratios measured together mean anything here).

Scenes (mujoco_scenes.py rebuilds each in MJCF, body for body):
* the clutter of SAP §VI-C with walls at 8…160 bodies, without walls at
  40…320 bodies in the paper's four columns, and 100…1000 bodies on a grid
  of columns ten objects high (`columns=N/10`);
* the box slide (μ = 0.5, 1 m/s: it stops after v²/(2μg) = 0.1019 m) and the
  sphere on the ground (penetration at rest);
* the box on a 20° slope (scenes/box_on_slope.yaml at δt = 10 ms), run first:
  how fast a box that should stick creeps. MuJoCo's creep falls as
  1/impratio; the clutter is run a second time in MuJoCo at the impratio
  that makes its creep Coulomb's (equal stiction), a second table. Coulomb's
  creep grows as σ (SAP's tangential regularization, 1e-3 by default); the
  clutter is run a second time in Coulomb at the σ that makes its creep
  MuJoCo's at its defaults (equal stiction, MuJoCo's), a third table;
  and a third time in Coulomb without speculative contacts (look-ahead 0,
  contacts found once within the margin, as MuJoCo finds them), a fourth;
  a fourth time in Coulomb with both (MuJoCo's stiction and contact
  detection), a fifth; the clutter without walls runs again in MuJoCo at
  δt/2 and δt/4 with contacts as stiff as that step allows, beside Coulomb
  at δt per simulated time (how far MuJoCo's step must shrink to reach
  Coulomb's penetration), a sixth.

Coulomb runs SAP (ε_r = 1e-6, every step certified) through its Python API,
MuJoCo 4.0 its Newton solver on each of its islands (tolerance 1e-8, its
default, in the first table; 1e-14 at equal stiction, which keeps its
momentum residual, measured as Coulomb's e_m, below 1e-6 on every step of
these scenes: the tables print both). Each clutter case runs in Coulomb and
MuJoCo, in turn, round after round (at least MIN_REPEATS rounds, more for
the small scenes: see fastest_of_alternate_runs), and each engine keeps its
fastest run (the machine is noisy; a slow spell falls on all alike). With
--drake-python, Drake's SAP runs each clutter case too, in its own Python,
up to MIN_REPEATS times (see fastest_drake_run), and the box slide, the
sphere and the Lagged and Similar cases once (Coulomb and MuJoCo take
rounds on the box slide and the sphere too). Before
timing, every body's initial position and the initial energy are compared
between the engines (the layouts must agree). Prints the tables and, with
--write-docs, writes them to docs/peers.md with the plot
docs/peers_time_per_step.png.

    make bench-peers               # installs mujoco==4.0.0 into .venv, writes docs/
    PYTHONPATH=build/python .venv/bin/python bench/peers/run_peers.py [--quick]
"""

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time

import numpy as np

import coulomb

try:
    import mujoco
except ImportError:  # make bench-peers installs it
    sys.exit("bench/peers/run_peers.py needs mujoco (pip install mujoco==4.0.0)")

import mujoco_scenes

GRAVITY = 9.81
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
DOCS = os.path.join(ROOT, "docs")
SLOPE_SCENE = os.path.join(ROOT, "scenes", "box_on_slope.yaml")
SLOPE_DT = 0.01  # the clutter's: creep depends on δt
SLOPE_ANGLE = math.radians(20.0)
SLOPE_SLIDING_FRICTION = 2 * 0.2 * 0.5 / 0.7  # Coulomb's pair friction
# MuJoCo's tolerance at equal accuracy (see MomentumError): its default 1e-8
# leaves momentum residuals up to ~3e-4 in the clutter, 1e-14 below 1e-6.
EQUAL_ACCURACY_TOLERANCE = 1e-14
SAP_DEFAULT_SIGMA = 1e-3  # Coulomb's σ unless a scene sets its own (docs/math.md)
DRAKE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "drake_scenes.py")
# The irrotational-contact models beside Drake's: the 40-body walled clutter
# at these stiffnesses per geometry (N/m) for this long.
IRR_STIFFNESSES = (1e7, 1e10, 1e11)
IRR_DURATION = 3.0
# Each clutter case is run in Coulomb and MuJoCo (at both settings each), in
# turn, in rounds, and each keeps its fastest run: at least MIN_REPEATS
# rounds, and more while all rounds so far took less than REPEAT_SECONDS,
# up to MAX_REPEATS. The small scenes, cheap to repeat, are the ones whose
# ratio near 1 a slow spell of the machine moves most.
MIN_REPEATS = 3
MAX_REPEATS = 15
REPEAT_SECONDS = 20.0
# Drake, ten times slower, runs a clutter case up to MIN_REPEATS times while
# its runs of the case took less than DRAKE_REPEAT_SECONDS in all, and keeps
# its fastest (a single run varies by a third from one run to the next).
DRAKE_REPEAT_SECONDS = 60.0


# MuJoCo again on the clutter without walls at δt/k with contacts k times
# stiffer (mujoco_scenes.clutter_mjcf's substeps), for each k here: how much
# MuJoCo's step must shrink before its deepest penetration in the collapse
# comes down to Coulomb's at δt (the table at equal penetration).
EQUAL_PENETRATION_SUBSTEPS = (2, 4)

WALLED = "4 columns, walls"  # the clutter's layout with walls (its phase table's)
COLUMNS = "4 columns, no walls"  # the same four columns without walls
GRID = "grid, no walls"  # columns ten objects high on a grid


class Case:
    def __init__(self, label, layout, bodies, walls, columns, duration):
        self.label, self.layout, self.bodies = label, layout, bodies
        self.walls, self.columns, self.duration = walls, columns, duration


def clutter_cases(quick):
    if quick:
        return [Case("clutter", WALLED, 8, True, 4, 1.0),
                Case("clutter", COLUMNS, 40, False, 4, 1.0)]
    cases = [Case("clutter", WALLED, n, True, 4, d)
             for n, d in ((8, 10.0), (20, 10.0), (40, 10.0), (160, 5.0))]
    cases += [Case("clutter", COLUMNS, n, False, 4, d)
              for n, d in ((40, 10.0), (160, 5.0), (320, 3.0))]
    cases += [Case("clutter", GRID, n, False, n // 10, 3.0)
              for n in (100, 320, 1000)]
    return cases


def mujoco_penetration(data):
    return max([-data.contact[i].dist for i in range(data.ncon)] + [0.0])


class MomentumError:
    """MuJoCo's step measured as Coulomb's SAP measures its own, e_m =
    ‖D∇ℓ‖ / max(‖D p‖, ‖D j_c‖) (docs/math.md): MuJoCo's Newton method
    minimizes a convex cost in the accelerations a whose gradient is
    M (a − a_smooth) − Jᵀf = M a − qfrc_smooth − qfrc_constraint, f the
    constraint forces at a. Times δt it is SAP's momentum balance, p = δt M a
    the step's change of momentum (Coulomb measures against its warm start,
    the last velocity), j_c = δt Jᵀf, D = diag(M)^(-1/2); δt cancels. Read
    after mj_step: M, qacc and the forces are still those of the step."""

    def __init__(self, model):
        self.model = model
        self.diagonal = model.M_rowadr + model.M_rownnz - 1  # M's rows end on it
        if not (model.M_colind[self.diagonal] == np.arange(model.nv)).all():
            sys.exit("MuJoCo's sparse M does not end its rows on the diagonal")
        self.m_times_a = np.zeros(model.nv)

    def __call__(self, data):
        mujoco.mj_mulM(self.model, data, self.m_times_a, data.qacc)
        d = 1.0 / np.sqrt(data.M[self.diagonal])
        gradient = d * (self.m_times_a - data.qfrc_smooth - data.qfrc_constraint)
        scale = max(np.linalg.norm(d * self.m_times_a),
                    np.linalg.norm(d * data.qfrc_constraint))
        return np.linalg.norm(gradient) / scale if scale > 0 else 0.0


def mujoco_iterations(data):
    """Newton iterations of the step: MuJoCo solves each island on its own and
    records the first mujoco.mjNISLAND of them; the largest, as Coulomb's
    count (its islands step together until each converges). A lower bound
    when there are more islands than that."""
    recorded = max(1, min(data.nisland, mujoco.mjNISLAND))
    return data.solver_niter[:recorded].max()


def step_mujoco(model, data, duration, after_step=lambda: None):
    """MuJoCo over `duration`, only mj_step timed; after_step() is called
    (untimed) after each step. Returns ms and Newton iterations per step."""
    steps = round(duration / model.opt.timestep)
    elapsed, iterations = 0.0, 0
    for _ in range(steps):
        start = time.perf_counter()
        mujoco.mj_step(model, data)
        elapsed += time.perf_counter() - start
        iterations += mujoco_iterations(data)
        after_step()
    return dict(ms=1e3 * elapsed / steps, iterations=iterations / steps)


def run_mujoco(xml, duration, qvel=None):
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    if qvel is not None:
        data.qvel[:] = qvel
    mujoco.mj_forward(model, data)
    energy_initial = data.energy.sum()
    momentum_error = MomentumError(model)
    worst = dict(contacts=0, error=0.0, penetration_max=0.0)

    def record():
        worst["contacts"] = max(worst["contacts"], data.ncon)
        worst["error"] = max(worst["error"], momentum_error(data))
        worst["penetration_max"] = max(worst["penetration_max"], mujoco_penetration(data))

    timing = step_mujoco(model, data, duration, record)
    mujoco.mj_forward(model, data)
    return dict(**timing, **worst,
                penetration_end=mujoco_penetration(data), energy_initial=energy_initial,
                energy_final=data.energy.sum(), model=model, data=data)


def run_coulomb(sim, duration):
    sim._engine  # noqa: B018 (the engine is built before timing)
    start = time.perf_counter()
    trajectory = sim.run(duration, record=False)
    elapsed = time.perf_counter() - start
    s = trajectory.summary
    depth = sim.contacts()["depth"]
    return dict(ms=1e3 * elapsed / s["steps"], contacts=s["contacts_max"],
                iterations=s["iterations_mean"], error=s["momentum_error_max"],
                penetration_max=s["penetration_max"],
                penetration_end=max(list(depth) + [0.0]),
                energy_initial=s["energy_initial"], energy_final=s["energy_final"],
                failed=s["failed_steps"], **{key: s[key] for key in STEP_PARTS})


def run_drake(drake_python, scene, duration, case=None, approximation="sap", stiffness=1e12):
    """Drake on a scene, in its own Python (drake_scenes.py prints one JSON
    line): ms per step, contacts, penetration, energies; `failed_at` the
    time of a step its solver could not take (None if it ran through)."""
    command = [drake_python, DRAKE_SCRIPT, "--scene", scene, "--duration", f"{duration}",
               "--approximation", approximation, "--stiffness", f"{stiffness}"]
    if case is not None:
        command += ["--bodies", f"{case.bodies}", "--columns", f"{case.columns}"]
        command += ["--walls"] if case.walls else []
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["no output"]
        sys.exit(f"drake_scenes.py {' '.join(command[2:])} failed: {lines[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_same_energy(label, c, peer, name):
    """The layouts agree in masses and heights (the initial energy)."""
    if abs(c["energy_initial"] - peer["energy_initial"]) > 1e-9 * abs(peer["energy_initial"]):
        sys.exit(f"{label}: initial energies differ: Coulomb {c['energy_initial']} J, "
                 f"{name} {peer['energy_initial']} J")


def check_same_start(label, sim, xml):
    """Every body of `sim` starts where its MuJoCo twin (same name) does."""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    worst = max(np.abs(sim.body_position(name) - data.xpos[model.body(name).id]).max()
                for name in sim.body_names)
    if worst > 1e-12:
        sys.exit(f"{label}: a body is {worst:.3g} m from its MuJoCo twin")


def row(case, c, m, m_stiff=None, d=None, c_soft=None, c_unswept=None, m_substeps=None,
        c_mujoco_model=None):
    return {"scene": case.label, "layout": case.layout, "bodies": case.bodies,
            "duration": case.duration, "coulomb": c, "mujoco": m, "mujoco_stiff": m_stiff,
            "drake": d, "coulomb_soft": c_soft, "coulomb_unswept": c_unswept,
            "mujoco_substeps": m_substeps, "coulomb_mujoco_model": c_mujoco_model}


def fastest_of_alternate_runs(runs):
    """Calls each of `runs` in turn, round after round (a slow spell of the
    machine falls on every engine alike; as many rounds as MIN_REPEATS,
    MAX_REPEATS and REPEAT_SECONDS allow), and returns each one's fastest
    run, with the ms of all its runs in "ms_runs" (the runs of one engine
    follow the same trajectory: only their times differ)."""
    rounds = []
    start = time.perf_counter()
    while len(rounds) < MIN_REPEATS or (len(rounds) < MAX_REPEATS and
                                        time.perf_counter() - start < REPEAT_SECONDS):
        rounds.append([run() for run in runs])
    return [dict(min(tries, key=lambda r: r["ms"]), ms_runs=[r["ms"] for r in tries])
            for tries in zip(*rounds)]


def fastest_drake_run(run):
    """Drake's fastest of the runs DRAKE_REPEAT_SECONDS allows (at least one),
    with the ms of all its runs in "ms_runs"; a run whose solver failed is
    returned as it is (its time is not comparable)."""
    tries = []
    start = time.perf_counter()
    while len(tries) < MIN_REPEATS and (
            not tries or time.perf_counter() - start < DRAKE_REPEAT_SECONDS):
        tries.append(run())
        if tries[-1]["failed_at"] is not None:
            return tries[-1]
    return dict(min(tries, key=lambda r: r["ms"]), ms_runs=[r["ms"] for r in tries])


def spread_sentence(rows):
    """How far the slowest of each engine's runs of a clutter scene was from
    its fastest (the box slide and the sphere, a few milliseconds of steps,
    take rounds too, but their spread is the timer's)."""
    rows = [r for r in rows if r["scene"] == "clutter"]
    def worst(engine):
        spreads = [max(r[engine]["ms_runs"]) / min(r[engine]["ms_runs"]) - 1.0
                   for r in rows if r.get(engine) is not None and "ms_runs" in r[engine]]
        return max(spreads, default=0.0)
    def count(engine):
        counts = [len(r[engine]["ms_runs"]) for r in rows
                  if r.get(engine) is not None and "ms_runs" in r[engine]]
        return (f"{min(counts)}–{max(counts)}" if counts and min(counts) != max(counts)
                else f"{max(counts, default=1)}")
    drake = ""
    if any(r.get("drake") is not None for r in rows):
        drake = (f" Drake, ten times slower, ran each clutter scene {count('drake')} times "
                 f"(up to {MIN_REPEATS} while its runs of the scene took less than "
                 f"{DRAKE_REPEAT_SECONDS:.0f} s in all) and kept its fastest; the "
                 f"slowest was up to {100 * worst('drake'):.0f} % slower.")
    return (f"Coulomb and MuJoCo ran each clutter scene {count('coulomb')} times here "
            f"(more often the cheaper the scene); the slowest of a scene's runs was up to "
            f"{100 * worst('coulomb'):.0f} % slower than the fastest for Coulomb, "
            f"{100 * worst('mujoco'):.0f} % for MuJoCo at its defaults and "
            f"{100 * worst('mujoco_stiff'):.0f} % at equal stiction and accuracy.{drake}")


def run_clutter(case, impratio, sigma, drake_python):
    """The engines on the case, MuJoCo again at `impratio` (its stiction made
    as stiff as Coulomb's, see run_slope) and Coulomb again at `sigma` (its
    stiction made as soft as MuJoCo's at its defaults), without speculative
    contacts (look-ahead 0: contacts within the margin, as MuJoCo finds them)
    and with both (MuJoCo's stiction and contact detection); Drake's SAP when
    its Python is given."""
    def clutter(**options):
        return coulomb.Simulation.from_builtin("clutter", bodies=case.bodies, walls=case.walls,
                                               columns=case.columns, **options)
    xml = mujoco_scenes.clutter_mjcf(case.bodies, case.walls, case.columns)
    stiff_xml = mujoco_scenes.clutter_mjcf(case.bodies, case.walls, case.columns, impratio,
                                           EQUAL_ACCURACY_TOLERANCE)
    # Without walls, MuJoCo at δt/k too (EQUAL_PENETRATION_SUBSTEPS).
    substeps = () if case.walls else EQUAL_PENETRATION_SUBSTEPS
    substep_xmls = [mujoco_scenes.clutter_mjcf(case.bodies, case.walls, case.columns,
                                               substeps=k) for k in substeps]
    check_same_start(f"clutter {case.bodies}", clutter(), xml)
    c, c_soft, c_unswept, c_model, m, m_stiff, *m_substeps = fastest_of_alternate_runs(
        [lambda: run_coulomb(clutter(), case.duration),
         lambda: run_coulomb(clutter(sigma=sigma), case.duration),
         lambda: run_coulomb(clutter(lookahead=0.0), case.duration),
         lambda: run_coulomb(clutter(sigma=sigma, lookahead=0.0), case.duration),
         lambda: run_mujoco(xml, case.duration), lambda: run_mujoco(stiff_xml, case.duration)]
        + [lambda fine=fine: run_mujoco(fine, case.duration) for fine in substep_xmls])
    check_same_energy(f"clutter {case.bodies}", c, m, "MuJoCo")
    for k, fine in zip(substeps, m_substeps):
        fine["substeps"] = k
    d = None
    if drake_python:
        d = fastest_drake_run(lambda: run_drake(drake_python, "clutter", case.duration, case))
        check_same_energy(f"clutter {case.bodies}", c, d, "Drake")
    return row(case, c, m, m_stiff, d, c_soft, c_unswept, m_substeps or None, c_model)


# Where the 40-body walled clutter's time goes: its phases (s) from the
# release: the columns falling and landing, settling, at rest.
PHASES = (1.0, 1.0, 3.0, 5.0)


def run_phases(impratio):
    """The 40-body walled clutter phase by phase in both engines (MuJoCo at
    its defaults and at equal stiction and accuracy): ms and Newton
    iterations per step in each phase."""
    sim = coulomb.Simulation.from_builtin("clutter", bodies=40, walls=True)
    sim._engine  # noqa: B018 (the engine is built before timing)
    engines = {"mujoco": mujoco_scenes.clutter_mjcf(40, True, 4),
               "mujoco_stiff": mujoco_scenes.clutter_mjcf(40, True, 4, impratio,
                                                          EQUAL_ACCURACY_TOLERANCE)}
    states = {}
    for name, xml in engines.items():
        model = mujoco.MjModel.from_xml_string(xml)
        states[name] = (model, mujoco.MjData(model))
    phases, start = [], 0.0
    for duration in PHASES:
        began = time.perf_counter()
        summary = sim.run(duration, record=False).summary
        phase = {"phase": (start, start + duration),
                 "coulomb": dict(ms=1e3 * (time.perf_counter() - began) / summary["steps"],
                                 iterations=summary["iterations_mean"],
                                 **{key: summary[key] for key in STEP_PARTS})}
        for name, (model, data) in states.items():
            phase[name] = step_mujoco(model, data, duration)
        phases.append(phase)
        start += duration
        print(format_phase_row(phase), flush=True)
    return phases


# Coulomb's own split of its step time (run summary, seconds): collision
# queries and problem assembly, and the whole step.
STEP_PARTS = ("geometry_time_s", "assembly_time_s", "step_time_s")


def overhead_percent(parts):
    """Collision queries and problem assembly, in % of the step time."""
    return 100 * (parts["geometry_time_s"] + parts["assembly_time_s"]) / parts["step_time_s"]


PHASE_HEADER = ("| phase [s] | Coulomb ms/step | iterations | geometry + assembly [%] "
                "| MuJoCo ms/step | iterations | C / M "
                "| MuJoCo at equal stiction and accuracy, ms/step | iterations | C / M |")


def format_phase_row(r):
    c, m, e = r["coulomb"], r["mujoco"], r["mujoco_stiff"]
    overhead = f"{overhead_percent(c):.0f}" if "step_time_s" in c else "—"
    return (f"| {r['phase'][0]:g}–{r['phase'][1]:g} | {c['ms']:.3f} | {c['iterations']:.2f} "
            f"| {overhead} | {m['ms']:.3f} | {m['iterations']:.2f} | {c['ms'] / m['ms']:.2f} "
            f"| {e['ms']:.3f} | {e['iterations']:.2f} | {c['ms'] / e['ms']:.2f} |")


def phase_overhead_sentence(phase_rows, rows):
    """Geometry and assembly over the whole run of the phase table, and in
    the fastest of the main table's runs of the same scene."""
    if not phase_rows or any("step_time_s" not in r["coulomb"] for r in phase_rows):
        return ""
    total = {key: sum(r["coulomb"][key] for r in phase_rows) for key in STEP_PARTS}
    end = phase_rows[-1]["phase"][1]
    sentence = (f"Over the {end:g} s, collision queries and problem assembly take "
                f"{overhead_percent(total):.1f} % of Coulomb's step time (geometry "
                f"{100 * total['geometry_time_s'] / total['step_time_s']:.0f} %, assembly "
                f"{100 * total['assembly_time_s'] / total['step_time_s']:.0f} %), the rest "
                f"is the contact solve.")
    same = [r["coulomb"] for r in rows
            if r["scene"] == "clutter" and r["bodies"] == 40 and r["layout"] == WALLED
            and r["duration"] == end and "step_time_s" in r["coulomb"]]
    if same:
        c = same[0]
        sentence += (f" In the fastest of the {len(c['ms_runs'])} runs of the first table "
                     f"(the same {end:g} s, run whole), they take "
                     f"{overhead_percent(c):.1f} %: one run of the phases above is "
                     f"timed once, beside MuJoCo's, and carries the machine's noise.")
    return sentence


def slope_speed_closed_form(duration):
    """The sliding box's speed after `duration` from rest: g (sin θ − μ cos θ) t."""
    return GRAVITY * (math.sin(SLOPE_ANGLE) -
                      SLOPE_SLIDING_FRICTION * math.cos(SLOPE_ANGLE)) * duration


def run_slope_mujoco(impratio, tolerance):
    """MuJoCo's box on the slope: the sticking box's mean speed from 1 s to
    3 s (its creep) and the sliding box's speed down the slope at 3 s."""
    model = mujoco.MjModel.from_xml_string(
        mujoco_scenes.box_on_slope_mjcf(SLOPE_DT, impratio, tolerance))
    data = mujoco.MjData(model)
    sticking, sliding = model.body("sticking").id, model.body("sliding").id

    def advance(seconds):
        for _ in range(round(seconds / SLOPE_DT)):
            mujoco.mj_step(model, data)

    advance(1.0)
    start = data.xpos[sticking].copy()
    advance(2.0)
    creep = np.linalg.norm(data.xpos[sticking] - start) / 2.0
    speed = data.qvel[model.jnt_dofadr[model.body_jntadr[sliding]]]
    return dict(creep=creep, speed=speed, impratio=impratio)


def run_slope_coulomb(sigma):
    """Coulomb's box on the slope at σ: the creep and speed as MuJoCo's."""
    sim = coulomb.Simulation.from_file(SLOPE_SCENE, time_step=SLOPE_DT, sigma=sigma)
    check_same_start("box on slope", sim, mujoco_scenes.box_on_slope_mjcf(SLOPE_DT))
    sim.run(1.0)
    start = sim.body_position("sticking").copy()
    sim.run(2.0)
    return dict(creep=np.linalg.norm(sim.body_position("sticking") - start) / 2.0,
                speed=sim.body_velocity("sliding")[0][0], sigma=sigma)


def run_slope():
    """Stiction, the accuracy the clutter's iteration counts depend on: the
    box on a 20° slope (scenes/box_on_slope.yaml at δt = 10 ms). Coulomb's
    law holds the sticking box still; a regularized one lets it creep.
    MuJoCo's creep falls as 1/impratio, so a second MuJoCo run at
    impratio = (its creep at 1) / (Coulomb's creep) matches Coulomb's
    stiction; Coulomb's grows as σ, so a second Coulomb run at σ = 1e-3 ×
    (MuJoCo's creep) / (Coulomb's creep) matches MuJoCo's at its defaults.
    The clutter is run at both settings too."""
    c = run_slope_coulomb(SAP_DEFAULT_SIGMA)
    m = run_slope_mujoco(1.0, EQUAL_ACCURACY_TOLERANCE)
    m_stiff = run_slope_mujoco(m["creep"] / c["creep"], EQUAL_ACCURACY_TOLERANCE)
    c_soft = run_slope_coulomb(SAP_DEFAULT_SIGMA * m["creep"] / c["creep"])
    return dict(coulomb=c, mujoco=m, mujoco_stiff=m_stiff, coulomb_soft=c_soft,
                exact=slope_speed_closed_form(3.0))


def run_box_slide(drake_python):
    xml = mujoco_scenes.box_slide_mjcf()
    check_same_start("box slide", coulomb.Simulation.from_builtin("box_slide"), xml)

    def coulomb_run():
        sim = coulomb.Simulation.from_builtin("box_slide")
        result = run_coulomb(sim, 0.5)
        result["distance"] = sim.body_position("box")[0]
        return result
    # A millisecond of steps: one run measures the machine's moods more than
    # the engines, so both take rounds as the clutter does.
    c, m = fastest_of_alternate_runs(
        [coulomb_run, lambda: run_mujoco(xml, 0.5, qvel=[1.0, 0, 0, 0, 0, 0])])
    m["distance"] = m["data"].xpos[m["model"].body("box").id][0]
    d = None
    if drake_python:
        d = run_drake(drake_python, "box_slide", 0.5)
        check_same_energy("box slide", c, d, "Drake")
        d["distance"] = d["positions"]["box"][0]
    return row(Case("box slide", "μ = 0.5, 1 m/s, δt = 1 ms", 1, False, 0, 0.5), c, m, None, d)


def run_sphere(drake_python):
    xml = mujoco_scenes.sphere_on_ground_mjcf()
    check_same_start("sphere on ground", coulomb.Simulation.from_builtin("sphere_on_ground"),
                     xml)
    c, m = fastest_of_alternate_runs(
        [lambda: run_coulomb(coulomb.Simulation.from_builtin("sphere_on_ground"), 2.0),
         lambda: run_mujoco(xml, 2.0)])
    d = None
    if drake_python:
        d = run_drake(drake_python, "sphere_on_ground", 2.0)
        check_same_energy("sphere on ground", c, d, "Drake")
    return row(Case("sphere on ground", "1 kg, r = 0.1 m, δt = 10 ms", 1, False, 0, 2.0), c, m,
               None, d)


def run_irrotational(drake_python, stiffnesses=IRR_STIFFNESSES, duration=IRR_DURATION):
    """The Lagged and Similar models (IRR) on the 40-body walled clutter in
    both engines, per-geometry stiffness `stiffnesses`, Hunt & Crossley
    dissipation 10 s/m, for `duration`: where each runs, how fast, and when
    it fails."""
    case = Case("clutter", WALLED, 40, True, 4, duration)
    rows = []
    for model in ("lagged", "similar"):
        for stiffness in stiffnesses:
            sim = coulomb.Simulation.from_builtin("clutter", bodies=40, walls=True,
                                                  stiffness=stiffness, model=model)
            try:
                c = run_coulomb(sim, duration)
                c["failed_at"] = None
            except coulomb.SolverError:
                c = dict(failed_at=sim.time)
            d = run_drake(drake_python, "clutter", duration, case, model, stiffness)
            rows.append(dict(model=model, stiffness=stiffness, duration=duration, coulomb=c,
                             drake=d))
            print(format_irr_row(rows[-1]), flush=True)
    return rows


def outcome(result, duration):
    if result["failed_at"] is None:
        return f"ran {duration:g} s"
    return f"failed at t = {result['failed_at']:.2f} s"


def format_irr_row(r):
    c, d = r["coulomb"], r["drake"]
    ratio = (f"{d['ms'] / c['ms']:.1f}" if c["failed_at"] is None and d["failed_at"] is None
             else "—")
    coulomb_ms = f"{c['ms']:.3f}" if c["failed_at"] is None else "—"
    # A failed run's ms/step would cover only the steps before the failure.
    drake_ms = f"{d['ms']:.3f}" if d["failed_at"] is None else "—"
    accuracy = (f"{c['iterations']:.2f} / {c['error']:.1e}" if c["failed_at"] is None else "—")
    end = (f"{1e3 * c['penetration_end']:.4f}" if c["failed_at"] is None else "—") + \
        (f" / {1e3 * d['penetration_end']:.4f}" if d["failed_at"] is None else " / —")
    duration = r.get("duration", IRR_DURATION)  # runs saved before rows held it
    return (f"| {r['model']} | {r['stiffness']:.0e} | {outcome(c, duration)} "
            f"| {outcome(d, duration)} "
            f"| {coulomb_ms} | {drake_ms} | {ratio} | {accuracy} | {end} |")


IRR_HEADER = ("| model | k per geometry [N/m] | Coulomb | Drake | Coulomb ms/step "
              "| Drake ms/step | Drake / Coulomb | Coulomb iterations / max e_m "
              "| penetration at end [mm] C / D |")


DRAKE_HEADER = ("| scene | layout | bodies | Coulomb ms/step | Drake SAP ms/step "
                "| Drake / Coulomb | contacts (max) C / D | penetration max [mm] C / D "
                "| penetration at end [mm] C / D | energy at end [J] C / D |")


def format_drake_row(r):
    c, d = r["coulomb"], r["drake"]
    if d["failed_at"] is not None:
        return f"| {r['scene']} | {r['layout']} | {r['bodies']} | {c['ms']:.3f} " \
               f"| failed at t = {d['failed_at']:.2f} s | | | | | |"
    return (f"| {r['scene']} | {r['layout']} | {r['bodies']} | {c['ms']:.3f} | {d['ms']:.3f} "
            f"| {d['ms'] / c['ms']:.1f} | {c['contacts']} / {d['contacts']} "
            f"| {1e3 * c['penetration_max']:.3f} / {1e3 * d['penetration_max']:.3f} "
            f"| {1e3 * c['penetration_end']:.4f} / {1e3 * d['penetration_end']:.4f} "
            f"| {c['energy_final']:.4g} / {d['energy_final']:.4g} |")


def table(header, lines):
    """A Markdown table: the header, the line under it, the rows."""
    return "\n".join([header, "|" + "---|" * (header.count(" | ") + 1)] + lines)


HEADER = ("| scene | layout | bodies | duration [s] | Coulomb ms/step | MuJoCo ms/step "
          "| Coulomb / MuJoCo | contacts (max) C / M | iterations C / M | max e_m C / M "
          "| penetration max [mm] C / M | penetration at end [mm] C / M "
          "| energy at end [J] C / M |")


def format_row(r):
    c, m = r["coulomb"], r["mujoco"]
    return (f"| {r['scene']} | {r['layout']} | {r['bodies']} | {r['duration']:g} "
            f"| {c['ms']:.3f} | {m['ms']:.3f} | {c['ms'] / m['ms']:.2f} "
            f"| {c['contacts']} / {m['contacts']} | {c['iterations']:.2f} / {m['iterations']:.2f} "
            f"| {c['error']:.1e} / {m['error']:.1e} "
            f"| {1e3 * c['penetration_max']:.3f} / {1e3 * m['penetration_max']:.3f} "
            f"| {1e3 * c['penetration_end']:.4f} / {1e3 * m['penetration_end']:.4f} "
            f"| {c['energy_final']:.4g} / {m['energy_final']:.4g} |")


STIFF_HEADER = ("| layout | bodies | Coulomb ms/step | MuJoCo ms/step, impratio {impratio:.1f}, "
                f"tolerance {EQUAL_ACCURACY_TOLERANCE:g} "
                "| Coulomb / MuJoCo | iterations C / M | max e_m C / M "
                "| penetration max [mm] C / M |")


def format_setting_row(r, coulomb="coulomb", mujoco="mujoco_stiff"):
    """A row of the tables at equal stiction: Coulomb's run `coulomb` beside
    MuJoCo's run `mujoco` (at Coulomb's stiction by default)."""
    c, m = r[coulomb], r[mujoco]
    return (f"| {r['layout']} | {r['bodies']} | {c['ms']:.3f} | {m['ms']:.3f} "
            f"| {c['ms'] / m['ms']:.2f} | {c['iterations']:.2f} / {m['iterations']:.2f} "
            f"| {c['error']:.1e} / {m['error']:.1e} "
            f"| {1e3 * c['penetration_max']:.3f} / {1e3 * m['penetration_max']:.3f} |")


SETTING_HEADER = ("| layout | bodies | Coulomb ms/step, {setting} | MuJoCo ms/step "
                  "| Coulomb / MuJoCo | iterations C / M | max e_m C / M "
                  "| penetration max [mm] C / M |")


def setting_table(rows, run, setting, missing):
    """Coulomb's run `run` (at `setting`, a header's words) beside MuJoCo at
    its defaults; what the run was (`missing`) if the saved rows lack it."""
    lines = [format_setting_row(r, run, "mujoco") for r in rows if r.get(run) is not None]
    if not lines:
        return f"Not measured in this run (saved before run_peers.py ran Coulomb {missing})."
    return table(SETTING_HEADER.format(setting=setting), lines)


def soft_sigma(results):
    """The σ that gives Coulomb MuJoCo's creep, as the headers print it."""
    soft = results["slope"].get("coulomb_soft")
    return f"σ = {soft['sigma']:.3g}" if soft else ""


def soft_table(results):
    """Coulomb at MuJoCo's default stiction beside MuJoCo at its defaults."""
    return setting_table(results["rows"], "coulomb_soft", soft_sigma(results), "at a second σ")


def unswept_table(rows):
    """Coulomb without speculative contacts beside MuJoCo at its defaults."""
    return setting_table(rows, "coulomb_unswept", "look-ahead 0", "at look-ahead 0")


def mujoco_model_table(results):
    """Coulomb at MuJoCo's default stiction and without speculative contacts
    beside MuJoCo at its defaults."""
    return setting_table(results["rows"], "coulomb_mujoco_model",
                         f"{soft_sigma(results)}, look-ahead 0",
                         "at MuJoCo's stiction and look-ahead 0 together")


def format_penetration_row(r):
    """Coulomb at δt beside MuJoCo at δt/k for each k, per 10 ms simulated."""
    c = r["coulomb"]
    cells = [f"{r['layout']}", f"{r['bodies']}",
             f"{c['ms']:.3f}, {1e3 * c['penetration_max']:.1f} mm"]
    for m in [r["mujoco"]] + r["mujoco_substeps"]:
        k = m.get("substeps", 1)
        cells.append(f"{k * m['ms']:.3f}, {1e3 * m['penetration_max']:.1f} mm, "
                     f"{c['ms'] / (k * m['ms']):.2f}×")
    return "| " + " | ".join(cells) + " |"


def penetration_table(rows):
    """The clutter without walls: Coulomb at δt beside MuJoCo at δt/k."""
    chosen = [r for r in rows if r.get("mujoco_substeps")]
    if not chosen:
        return ("Not measured in this run (saved before run_peers.py ran MuJoCo at shorter "
                "steps).")
    header = ("| layout | bodies | Coulomb at δt: ms per 10 ms, penetration max "
              "| MuJoCo at δt: ms per 10 ms, penetration max, C / M "
              + "".join(f"| MuJoCo at δt/{k}, time constant {2 / k:g} δt: ms per 10 ms, "
                        "penetration max, C / M "
                        for k in [m["substeps"] for m in chosen[0]["mujoco_substeps"]]) + "|")
    return table(header, [format_penetration_row(r) for r in chosen])


def slope_sentence(slope):
    c, m, s = slope["coulomb"], slope["mujoco"], slope["mujoco_stiff"]
    soft = slope.get("coulomb_soft")
    soft_text = (f", {1e3 * soft['creep']:.4f} mm/s in Coulomb at σ = {soft['sigma']:.3g}"
                 if soft else "")
    return (f"Box on a 20° slope (δt = 10 ms): the sticking box creeps at "
            f"{1e3 * c['creep']:.4f} mm/s in Coulomb (σ = 1e-3), {1e3 * m['creep']:.4f} mm/s "
            f"in MuJoCo at impratio 1 and {1e3 * s['creep']:.4f} mm/s at impratio "
            f"{s['impratio']:.1f}{soft_text}; the sliding box's speed at 3 s is "
            f"{c['speed']:.4f} m/s "
            f"in Coulomb, {m['speed']:.4f} m/s in MuJoCo (g (sin θ − μ cos θ) t = "
            f"{slope['exact']:.4f} m/s).")


# The plot's series: a run of each row, its colour, line style and name.
PLOT_SERIES = (
    ("coulomb", "tab:blue", "-", "Coulomb (SAP)"),
    ("coulomb_soft", "tab:blue", ":", "Coulomb, MuJoCo's default stiction"),
    ("coulomb_unswept", "tab:blue", "--", "Coulomb, look-ahead 0"),
    ("coulomb_mujoco_model", "tab:purple", "-.", "Coulomb, both (MuJoCo's model)"),
    ("mujoco", "tab:orange", "-", "MuJoCo 4.0"),
    ("mujoco_stiff", "tab:orange", ":", "MuJoCo 4.0, Coulomb's stiction and accuracy"),
    ("drake", "tab:green", "-", "Drake 1.58 SAP"))


def plot(rows, path):
    """Time per step against bodies, one panel per layout of the clutter."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    layouts = [layout for layout in (WALLED, COLUMNS, GRID)
               if any(r["layout"] == layout for r in rows)]
    figure, panels = plt.subplots(1, len(layouts), figsize=(4.4 * len(layouts), 5.0),
                                  squeeze=False)
    for axes, layout in zip(panels[0], layouts):
        chosen = [r for r in rows if r["layout"] == layout]
        bodies = [r["bodies"] for r in chosen]
        for engine, color, style, name in PLOT_SERIES:
            if any(r.get(engine) is None or r[engine].get("failed_at") is not None for r in chosen):
                continue
            axes.loglog(bodies, [r[engine]["ms"] for r in chosen], marker="o", markersize=4,
                        color=color, linestyle=style, label=name)
        axes.set_title(layout, fontsize=10)
        axes.set_xlabel("bodies")
        axes.grid(True, which="both", alpha=0.3)
    panels[0][0].set_ylabel("wall time per step [ms]")
    handles, labels = panels[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, fontsize=8, loc="lower center", ncol=4)
    figure.suptitle("Clutter, δt = 10 ms, one thread, measured in one run", fontsize=11)
    figure.tight_layout(rect=(0, 0.11, 1, 1))
    figure.savefig(path, dpi=110)


def drake_sections(rows, irr_rows):
    """The Drake tables for docs/peers.md, or why they are missing."""
    if irr_rows is None:
        return ("Drake was not run (run_peers.py without --drake-python: `make bench-peers` "
                "finds a Python 3.12 for it).", "")
    slide = next(r for r in rows if r["scene"] == "box slide")
    drake = table(DRAKE_HEADER, [format_drake_row(r) for r in rows if r["drake"]])
    drake += (f"\n\nBox slide in Drake: the box stops after "
              f"{slide['drake']['distance']:.4f} m "
              f"(v²/(2μg) = {1.0 / (2 * 0.5 * GRAVITY):.4f} m).")
    return drake, table(IRR_HEADER, [format_irr_row(r) for r in irr_rows])


def write_docs(results, main_table, stiff_table):
    rows, irr_rows, slope = results["rows"], results["irr_rows"], results["slope"]
    plot([r for r in rows if r["scene"] == "clutter"],
         os.path.join(DOCS, "peers_time_per_step.png"))
    slide = next(r for r in rows if r["scene"] == "box slide")
    exact = 1.0 / (2 * 0.5 * GRAVITY)
    with open(os.path.join(DOCS, "peers.md.in")) as template:
        text = template.read()
    text = text.replace("@DATE@", results["date"])
    text = text.replace("@MACHINE@", results["machine"])
    text = text.replace("@TABLE@", main_table)
    text = text.replace("@STIFF_TABLE@", stiff_table)
    text = text.replace("@SOFT_TABLE@", soft_table(results))
    text = text.replace("@UNSWEPT_TABLE@", unswept_table(rows))
    text = text.replace("@MODEL_TABLE@", mujoco_model_table(results))
    text = text.replace("@PENETRATION_TABLE@", penetration_table(rows))
    text = text.replace("@SPREAD@", spread_sentence(rows))
    text = text.replace("@PHASE_TABLE@", table(PHASE_HEADER, [format_phase_row(r)
                                                              for r in results["phase_rows"]]))
    text = text.replace("@PHASE_OVERHEAD@",
                        phase_overhead_sentence(results["phase_rows"], results["rows"]))
    drake_table, irr_table = drake_sections(rows, irr_rows)
    text = text.replace("@DRAKE_TABLE@", drake_table)
    text = text.replace("@IRR_TABLE@", irr_table)
    text = text.replace("@SLOPE@", slope_sentence(slope))
    text = text.replace("@SLIDE@", f"Box slide: the box stops after {exact:.4f} m "
                                   f"(v²/(2μg)); Coulomb {slide['coulomb']['distance']:.4f} m, "
                                   f"MuJoCo {slide['mujoco']['distance']:.4f} m.")
    with open(os.path.join(DOCS, "peers.md"), "w") as out:
        out.write(text)


def write_page(name, engines, fields):
    """docs/NAME from docs/NAME.in: @DATE@ today, @MACHINE@ this machine and
    `engines` (their versions), and each @KEY@ of `fields` its text."""
    with open(os.path.join(DOCS, name + ".in")) as template:
        text = template.read()
    machine = (f"{platform.machine()}, {os.cpu_count()} cores, Python "
               f"{platform.python_version()}, {engines}")
    fields = dict(fields, DATE=datetime.date.today().isoformat(), MACHINE=machine)
    for key, value in fields.items():
        text = text.replace(f"@{key}@", value)
    with open(os.path.join(DOCS, name), "w") as out:
        out.write(text)


def drake_version(drake_python):
    """Drake's version, asked of its own Python; exits if it cannot import it."""
    done = subprocess.run([drake_python, "-c", "import importlib.metadata as m, platform; "
                           "print(m.version('drake'), platform.python_version())"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"--drake-python {drake_python}: cannot import drake there "
                 f"(make bench-peers installs drake==1.58.0 into .venv-drake)")
    version, python = done.stdout.split()
    return f"drake {version} (in its own Python {python})"


def measure(args):
    """Every engine on every scene; the tables are printed as rows arrive."""
    drake = drake_version(args.drake_python) if args.drake_python else "Drake not run"
    slope = run_slope()
    print(slope_sentence(slope), flush=True)
    print(table(HEADER, []))
    impratio = slope["mujoco_stiff"]["impratio"]
    sigma = slope["coulomb_soft"]["sigma"]
    rows = []
    for run in [lambda case=case: run_clutter(case, impratio, sigma, args.drake_python)
                for case in clutter_cases(args.quick)] + (
            [] if args.quick else [lambda: run_box_slide(args.drake_python),
                                   lambda: run_sphere(args.drake_python)]):
        rows.append(run())
        print(format_row(rows[-1]), flush=True)
    phase_rows = []
    if not args.quick:
        print(table(PHASE_HEADER, []))
        phase_rows = run_phases(impratio)
    irr_rows = None
    if args.drake_python:
        print(table(IRR_HEADER, []), flush=True)
        irr_rows = run_irrotational(args.drake_python) if not args.quick else []
    machine = (f"{platform.machine()}, {os.cpu_count()} cores, Python "
               f"{platform.python_version()}, mujoco {mujoco.__version__}, {drake}")
    return dict(date=datetime.date.today().isoformat(), machine=machine, slope=slope,
                rows=rows, phase_rows=phase_rows, irr_rows=irr_rows)


def save(results, path):
    """The measurements as JSON (MuJoCo's model and data objects left out)."""
    def plain(value):
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()
                    if not isinstance(v, (mujoco.MjModel, mujoco.MjData))}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value.item() if isinstance(value, np.generic) else value
    with open(path, "w") as out:
        json.dump(plain(results), out, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two small cases (a smoke test)")
    parser.add_argument("--write-docs", action="store_true",
                        help="write docs/peers.md and docs/peers_time_per_step.png")
    parser.add_argument("--drake-python", metavar="PYTHON",
                        help="a Python with pydrake (drake==1.58.0): runs Drake too")
    parser.add_argument("--results", metavar="FILE.json",
                        help="where to save the measurements (default: none)")
    parser.add_argument("--from-results", metavar="FILE.json",
                        help="print and write the tables of a saved run instead of measuring")
    args = parser.parse_args()
    if args.from_results:
        with open(args.from_results) as saved:
            results = json.load(saved)
    else:
        results = measure(args)
        if args.results:
            save(results, args.results)
    rows, irr_rows = results["rows"], results["irr_rows"]
    impratio = results["slope"]["mujoco_stiff"]["impratio"]
    stiff_table = table(STIFF_HEADER.format(impratio=impratio),
                        [format_setting_row(r) for r in rows if r["mujoco_stiff"] is not None])
    print(stiff_table)
    print(soft_table(results))
    print(unswept_table(rows))
    print(mujoco_model_table(results))
    print(penetration_table(rows))
    print(spread_sentence(rows))
    if irr_rows is not None:
        print(table(DRAKE_HEADER, [format_drake_row(r) for r in rows if r["drake"]]))
    failed = sum(r["coulomb"]["failed"] for r in rows)
    if failed:
        sys.exit(f"Coulomb: {failed} steps failed")
    if args.write_docs:
        write_docs(results, table(HEADER, [format_row(r) for r in rows]), stiff_table)


if __name__ == "__main__":
    main()
