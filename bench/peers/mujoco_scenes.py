"""Coulomb beside MuJoCo on the clutter of SAP §VI-C, measured in one run on
one machine (only ratios measured together mean anything here).

The scene is Coulomb's built-in `clutter` rebuilt for MuJoCo: spheres
(r = 5 cm, 1000 kg/m³) and 1 kg boxes (10 cm) in four columns, optionally in
an 80 cm box, μ = 1, δt = 10 ms. MuJoCo (pip `mujoco`): Newton solver,
elliptic cones, tolerance 1e-8, implicitfast integrator. Coulomb: SAP
(ε_r = 1e-6), symplectic Euler, through its Python API. Prints milliseconds
per step, contacts and each engine's accuracy figure, and the ratio.

    make bench-peers          # or: PYTHONPATH=build/python .venv/bin/python bench/peers_clutter.py
"""

import math
import sys
import time

import numpy as np

import coulomb

try:
    import mujoco
except ImportError:  # make bench-peers installs it
    sys.exit("bench/peers_clutter.py needs mujoco (pip install mujoco==4.0.0)")

DT = 0.01


def rotation_rpy(roll, pitch, yaw):
    """R = Rz(yaw) Ry(pitch) Rx(roll), as Coulomb's Pose()."""
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch),
                              math.sin(pitch), math.cos(yaw), math.sin(yaw))
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def quaternion(matrix):
    q = np.empty(4)
    mujoco.mju_mat2Quat(q, matrix.flatten())
    return q


def clutter_mjcf(bodies, walls):
    geoms = ['<geom type="plane" size="0 0 1"/>']
    if walls:
        half, thickness, height = 0.4, 0.05, 0.8
        center = half + thickness / 2
        for x, y, sx, sy in ((center, 0, thickness, 0.9), (-center, 0, thickness, 0.9),
                             (0, center, 0.9, thickness), (0, -center, 0.9, thickness)):
            geoms.append(f'<geom type="box" pos="{x} {y} {height / 2}" '
                         f'size="{sx / 2} {sy / 2} {height / 2}"/>')
    columns = ((0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2))
    for k, (x, y) in enumerate(columns):
        for j in range(bodies // 4 + (1 if k < bodies % 4 else 0)):
            z = 0.1 + 0.15 * j
            if (j + k) % 2 == 0:
                shape = '<geom type="sphere" size="0.05" density="1000"/>'
                quat = "1 0 0 0"
            else:
                shape = '<geom type="box" size="0.05 0.05 0.05" mass="1"/>'
                quat = " ".join(map(str, quaternion(rotation_rpy(0.2 * j, 0.3 * k, 0.1 * (j + k)))))
            geoms.append(f'<body pos="{x} {y} {z}" quat="{quat}"><freejoint/>{shape}</body>')
    return f"""<mujoco>
  <option timestep="{DT}" solver="Newton" cone="elliptic" tolerance="1e-8"
          integrator="implicitfast" iterations="100"/>
  <default><geom friction="1 0.005 0.0001" condim="3"/></default>
  <worldbody>{''.join(geoms)}</worldbody>
</mujoco>"""


def run_mujoco(bodies, walls, duration):
    model = mujoco.MjModel.from_xml_string(clutter_mjcf(bodies, walls))
    data = mujoco.MjData(model)
    steps = round(duration / DT)
    contacts, iterations = [], []
    start = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(model, data)
        contacts.append(data.ncon)
        iterations.append(data.solver_niter[0])
    elapsed = time.perf_counter() - start
    return elapsed / steps, max(contacts), np.mean(iterations)


def run_coulomb(bodies, walls, duration):
    sim = coulomb.Simulation.from_builtin("clutter", bodies=bodies, walls=walls)
    sim._engine  # noqa: B018 (the engine is built before timing)
    start = time.perf_counter()
    trajectory = sim.run(duration)
    elapsed = time.perf_counter() - start
    s = trajectory.summary
    return elapsed / s["steps"], s["contacts_max"], s["iterations_mean"], s["momentum_error_max"]


def main():
    cases = [(40, True, 10.0), (40, False, 10.0), (160, True, 5.0), (160, False, 5.0)]
    if len(sys.argv) > 1 and sys.argv[1] == "--quick":
        cases = [(8, True, 1.0)]
    print("| bodies | walls | duration [s] | Coulomb ms/step | MuJoCo ms/step | Coulomb / MuJoCo "
          "| contacts (max) C / M | Coulomb iterations, max e_m | MuJoCo iterations |")
    print("|---|---|---|---|---|---|---|---|---|")
    for bodies, walls, duration in cases:
        c_step, c_contacts, c_iterations, c_error = run_coulomb(bodies, walls, duration)
        m_step, m_contacts, m_iterations = run_mujoco(bodies, walls, duration)
        print(f"| {bodies} | {'yes' if walls else 'no'} | {duration:g} | {1e3 * c_step:.3f} | "
              f"{1e3 * m_step:.3f} | {c_step / m_step:.2f} | {c_contacts} / {m_contacts} | "
              f"{c_iterations:.2f}, {c_error:.1e} | {m_iterations:.2f} |", flush=True)


if __name__ == "__main__":
    main()
