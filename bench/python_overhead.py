"""What the Python layer costs: sim.step() called from a Python loop against
the same steps run inside C++ (sim.run), for the 8- and 40-body clutter, and
reading sim.q / sim.v for about 1000 dofs (targets: ≤ 2 µs added per step,
≤ 1 µs per state read). Then a control loop beside MuJoCo's Python bindings
on the same MJCF file (scenes/four_legged_walker.xml, 8 hinge joints on a
floating base): what each call of the loop costs in each engine, and the
loop itself, joint positions and velocities read, a PD law in numpy, the
efforts set and a step taken; in Coulomb once with the joints read as
copies (joint_positions) and once through views of the state (q_view,
as MuJoCo's users read qpos). Prints the figures of this run.

    PYTHONPATH=build/python .venv/bin/python bench/python_overhead.py
"""

import time

import mujoco
import numpy as np

import coulomb

WALKER = "scenes/four_legged_walker.xml"
CONTROL_LOOPS = ("control loop step", "control loop step, views")
KP, KD = 40.0, 1.0  # [N·m/rad], [N·m·s/rad]: holds the walker's legs near 0

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


def seconds_per_call(call, repetitions=20000):
    start = time.perf_counter()
    for _ in range(repetitions):
        call()
    return (time.perf_counter() - start) / repetitions


class CoulombLoop:
    """The walker in Coulomb, driven through the Python API."""

    def __init__(self):
        self.sim = coulomb.Simulation.from_file(WALKER)
        self.sim.recording = False
        self.robot = self.sim.robot_names[0]
        self.joints_q, self.joints_v = self.sim.joint_slices(self.robot)

    def calls(self):
        sim, robot, u, joints_q = self.sim, self.robot, np.zeros(8), self.joints_q
        return {
            "joint positions": lambda: sim.joint_positions(robot),
            "joint positions, a view": lambda: sim.q_view[joints_q],
            "joint velocities": lambda: sim.joint_velocities(robot),
            "base position": lambda: sim.body_position(robot),
            "every body's position": sim.body_positions,
            "set joint efforts": lambda: sim.set_joint_efforts(robot, u),
            "step": sim.step,
        }

    def control_steps(self):
        sim, robot = self.sim, self.robot

        def with_copies():
            q, v = sim.joint_positions(robot), sim.joint_velocities(robot)
            sim.set_joint_efforts(robot, -KP * q - KD * v)
            sim.step()

        def with_views():
            q, v = sim.q_view[self.joints_q], sim.v_view[self.joints_v]
            sim.set_joint_efforts(robot, -KP * q - KD * v)
            sim.step()

        return {"control loop step": with_copies, "control loop step, views": with_views}


class MujocoLoop:
    """The same file in MuJoCo, driven as its Python users drive it: views
    of qpos, qvel and xpos, efforts through qfrc_applied."""

    def __init__(self):
        self.model = mujoco.MjModel.from_xml_path(WALKER)
        self.data = mujoco.MjData(self.model)

    def calls(self):
        model, data, u = self.model, self.data, np.zeros(8)

        def set_efforts():
            data.qfrc_applied[6:] = u

        return {
            "joint positions": lambda: data.qpos[7:].copy(),
            "joint positions, a view": lambda: data.qpos[7:],
            "joint velocities": lambda: data.qvel[6:].copy(),
            "base position": lambda: data.xpos[1].copy(),
            "every body's position": lambda: data.xpos.copy(),
            "set joint efforts": set_efforts,
            "step": lambda: mujoco.mj_step(model, data),
        }

    def control_steps(self):
        model, data = self.model, self.data

        def with_views():
            q, v = data.qpos[7:], data.qvel[6:]
            data.qfrc_applied[6:] = -KP * q - KD * v
            mujoco.mj_step(model, data)

        return {"control loop step": with_views, "control loop step, views": with_views}


def control_loop_figures(rounds=3, steps=400):
    """Per call and per loop step [s], each engine's fastest of `rounds`
    alternating rounds."""
    best = {}
    for _ in range(rounds):
        for engine in (CoulombLoop, MujocoLoop):
            loop = engine()
            for name, call in loop.calls().items():
                cost = seconds_per_call(call, repetitions=steps if name == "step" else 20000)
                key = (engine.__name__, name)
                best[key] = min(best.get(key, cost), cost)
            for name in CONTROL_LOOPS:
                loop = engine()  # from the start again: the same steps for every loop
                cost = seconds_per_call(loop.control_steps()[name], repetitions=steps)
                key = (engine.__name__, name)
                best[key] = min(best.get(key, cost), cost)
    return best


def print_control_loop():
    best = control_loop_figures()
    print(f"\ncontrol loop on {WALKER} (δt = 5 ms), µs per call, the fastest of 3 "
          "alternating rounds:")
    print("| call | Coulomb [µs] | MuJoCo [µs] | Coulomb / MuJoCo |")
    print("|---|---|---|---|")
    names = list(CoulombLoop().calls()) + list(CONTROL_LOOPS)
    for name in names:
        c, m = best[("CoulombLoop", name)], best[("MujocoLoop", name)]
        print(f"| {name} | {1e6 * c:.2f} | {1e6 * m:.2f} | {c / m:.2f} |")
    for name in CONTROL_LOOPS:
        for engine in ("CoulombLoop", "MujocoLoop"):
            added = best[(engine, name)] - best[(engine, "step")]
            print(f"{engine[:-4]}, {name}: {1e6 * added:.1f} µs more than a step")


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
    print_control_loop()


if __name__ == "__main__":
    main()
