"""Runs one MuJoCo MJCF file in Coulomb and in MuJoCo, side by side.

The same file, loaded by each engine, stepped for the same simulated time
from its initial state, in alternating rounds (Coulomb, MuJoCo, Coulomb, …)
so that a slow spell of the machine falls on both; each engine keeps its
fastest round. MuJoCo runs its Newton solver with elliptic friction cones at
tolerance 1e-8, as `make bench-peers` runs it (the file's other options
kept), all its steps in one call; Coulomb runs SAP at ε_r = 1e-6, every step certified. Printed per
engine: ms per step, solver iterations per step, contacts at most, and
where the file's first free body ends (the same physics with different
contact and friction models: expect millimetres to centimetres apart).

    make bench-mjcf [MJCF=scenes/four_legged_walker.xml]
    PYTHONPATH=build/python .venv/bin/python bench/peers/mjcf_side_by_side.py FILE
"""

import argparse
import time

import numpy as np

import coulomb
import mujoco


def run_coulomb(path, duration, **overrides):
    sim = coulomb.Simulation.from_file(path, **overrides)
    start = time.perf_counter()
    trajectory = sim.run(duration, record=False)
    seconds = time.perf_counter() - start
    summary = trajectory.summary
    steps = round(duration / summary["time_step"])
    return {
        "ms_per_step": 1e3 * seconds / steps,
        "assembly_share": summary["assembly_time_s"] / summary["step_time_s"],
        "iterations": summary["iterations_mean"],
        "contacts": summary["contacts_max"],
        "position": np.array(sim.q[:3]),
        "q": np.array(sim.q),
        "momentum_error": summary["momentum_error_max"],
    }


def run_mujoco(path, duration):
    model = mujoco.MjModel.from_xml_path(path)
    model.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    model.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    model.opt.tolerance = 1e-8
    steps = round(duration / model.opt.timestep)
    # Timed without Python between the steps; counted in a second run.
    data = mujoco.MjData(model)
    start = time.perf_counter()
    mujoco.mj_step(model, data, nstep=steps)
    seconds = time.perf_counter() - start
    counted = mujoco.MjData(model)
    iterations, contacts = 0, 0
    for _ in range(steps):
        mujoco.mj_step(model, counted)
        iterations += int(counted.solver_niter[0])
        contacts = max(contacts, int(counted.ncon))
    return {
        "ms_per_step": 1e3 * seconds / steps,
        "iterations": iterations / steps,
        "contacts": contacts,
        "position": np.array(data.qpos[:3]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mjcf", help="a MuJoCo MJCF file (its first joint a free joint)")
    parser.add_argument("--duration", type=float, default=5.0, help="simulated seconds")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    args = parser.parse_args()
    best = {}
    for _ in range(args.rounds):
        for name, run in (("Coulomb", run_coulomb), ("MuJoCo", run_mujoco)):
            result = run(args.mjcf, args.duration)
            if name not in best or result["ms_per_step"] < best[name]["ms_per_step"]:
                best[name] = result
    c, m = best["Coulomb"], best["MuJoCo"]
    print(f"{args.mjcf}, {args.duration:g} s, fastest of {args.rounds} alternating rounds")
    print("| engine | ms/step | iterations/step | contacts (max) | first body at the end [m] |")
    print("|---|---|---|---|---|")
    for name, r in best.items():
        where = " ".join(f"{x:.4f}" for x in r["position"])
        print(f"| {name} | {r['ms_per_step']:.4f} | {r['iterations']:.2f} | "
              f"{r['contacts']} | {where} |")
    gap_mm = 1e3 * np.linalg.norm(c["position"] - m["position"])
    print(f"Coulomb / MuJoCo time per step: {c['ms_per_step'] / m['ms_per_step']:.2f}; "
          f"Coulomb's max e_m {c['momentum_error']:.1e}; the first bodies end "
          f"{gap_mm:.1f} mm apart")


if __name__ == "__main__":
    main()
