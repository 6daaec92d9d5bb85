"""Plans a push by trying candidates from one snapshot in worker processes.

A 1 kg box rests on the ground (μ = 0.5). Pushed for 0.3 s by a horizontal
force F, it slides to a stop: which F stops it 0.5 m from where it was? Each
candidate F is a rollout from the same snapshot of the simulation, run in a
pool of worker processes (the simulation is pickled to them); a second round
refines around the best. The chosen push is then played out in this process
and compared with Coulomb friction's closed form, d(F) = a T²/2 + (a T)²/(2 μ g)
with a = F/m − μ g.

    python examples/python/push_planning.py
"""

import concurrent.futures
import math

import numpy as np

import coulomb

MASS, MU, G, PUSH, GOAL = 1.0, 0.5, 9.81, 0.3, 0.5  # kg, -, m/s², s, m


def box_on_the_ground():
    return coulomb.Simulation.from_dict({
        "time_step": 0.01,
        "contact": {"friction": MU},
        "bodies": [
            {"name": "ground", "shape": {"halfspace": {}}, "fixed": True},
            {"name": "box", "shape": {"box": {"size": [0.2, 0.2, 0.1]}}, "mass": MASS,
             "pose": {"position": [0, 0, 0.05]}},
        ],
    })


def slide(sim, force):
    """The distance the box slides when pushed by `force` [N] from where it is."""
    start = sim.body_position("box")[0]
    sim.set_body_wrench("box", force=(force, 0.0, 0.0))
    sim.run(PUSH, record=False)
    sim.set_body_wrench("box")
    sim.run(1.5, record=False)  # long enough to stop
    return sim.body_position("box")[0] - start


def plan(pool, sim, candidates):
    """The candidate whose rollout from this moment ends nearest the goal."""
    distances = list(pool.map(slide, [sim] * len(candidates), candidates))
    errors = [abs(d - GOAL) for d in distances]
    return candidates[int(np.argmin(errors))], min(errors)


def closed_form_force():
    # a (T²/2 + a T²/(2 μ g)) = GOAL, a quadratic in the acceleration a.
    p, r = PUSH**2 / (2 * MU * G), PUSH**2 / 2
    a = (-r + math.sqrt(r * r + 4 * p * GOAL)) / (2 * p)
    return MASS * (a + MU * G)


def main():
    sim = box_on_the_ground()
    sim.run(0.2, record=False)  # settled on its contacts
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        force, error = plan(pool, sim, list(np.arange(6.0, 16.01, 0.5)))
        print(f"first round: {force:.2f} N, {1e3 * error:.1f} mm from the goal")
        force, error = plan(pool, sim, list(np.arange(force - 0.5, force + 0.51, 0.05)))
        print(f"second round: {force:.2f} N, {1e3 * error:.1f} mm from the goal")
    snapshot = sim.snapshot()
    distance = slide(sim, force)
    exact = closed_form_force()
    print(f"played out here: the box slid {distance:.4f} m (goal {GOAL} m); the closed form "
          f"asks {exact:.2f} N, the plan {force:.2f} N ({100 * (force / exact - 1):+.1f} %)")
    sim.restore(snapshot)
    if slide(sim, force) != distance:
        raise SystemExit("the rollout from the snapshot did not repeat itself")
    if abs(distance - GOAL) > 5e-3 or abs(force / exact - 1) > 0.03:
        raise SystemExit("the plan missed the goal or the closed form")


if __name__ == "__main__":
    main()
