"""What the Python layer costs: sim.step() called from a Python loop against
the same steps run inside C++ (sim.run), for the 8- and 40-body clutter, and
reading sim.q / sim.v for about 1000 dofs. Prints the figures of this run
(targets: ≤ 2 µs added per step, ≤ 1 µs per state read).

    PYTHONPATH=build/python .venv/bin/python bench/python_overhead.py
"""

import time

import coulomb

STEPS = 300


def seconds_per_step_in_cpp(bodies):
    sim = coulomb.Simulation.from_builtin("clutter", bodies=bodies)
    sim.run(1.0)  # settle, so both loops see the same kind of steps
    start = time.perf_counter()
    sim.run(STEPS * sim.time_step)
    return (time.perf_counter() - start) / STEPS


def seconds_per_step_from_python(bodies):
    sim = coulomb.Simulation.from_builtin("clutter", bodies=bodies)
    sim.run(1.0)
    start = time.perf_counter()
    for _ in range(STEPS):
        sim.step()
    return (time.perf_counter() - start) / STEPS


def seconds_per_read(sim, attribute, repetitions=20000):
    start = time.perf_counter()
    for _ in range(repetitions):
        getattr(sim, attribute)
    return (time.perf_counter() - start) / repetitions


def main():
    print("| clutter bodies | C++ loop [µs/step] | Python loop [µs/step] | difference [µs] |")
    print("|---|---|---|---|")
    for bodies in (8, 40):
        # Interleave and keep the best of three: this machine is noisy.
        cpp = min(seconds_per_step_in_cpp(bodies) for _ in range(3))
        python = min(seconds_per_step_from_python(bodies) for _ in range(3))
        print(f"| {bodies} | {1e6 * cpp:.1f} | {1e6 * python:.1f} | {1e6 * (python - cpp):+.1f} |")
    sim = coulomb.Simulation.from_builtin("clutter", bodies=160, walls=False)
    print(f"\nstate reads with {sim.q.size} positions and {sim.v.size} velocities: "
          f"sim.q {1e6 * seconds_per_read(sim, 'q'):.2f} µs, "
          f"sim.v {1e6 * seconds_per_read(sim, 'v'):.2f} µs")
    print("(the recording of the trajectory is on in both loops; "
          "step() also builds its StepStats)")


if __name__ == "__main__":
    main()
