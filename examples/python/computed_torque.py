"""A two-link arm (MJCF) tracks a joint trajectory by computed torque,
τ = M(q) (q̈_d + K_d (q̇_d − q̇) + K_p (q_d − q)) + h(q, q̇), from the
simulation's own M(q) and h(q, q̇), against a PD law of the same gains
scaled by the arm's inertia at rest.

    python examples/python/computed_torque.py

With the model the error obeys ë + K_d ė + K_p e = 0 and dies out; without
it gravity and the links' coupling leave the PD law lagging. Exits 1 unless
computed torque tracks within 5 mrad after the first second and at least
ten times closer than PD.
"""

import math
import pathlib
import sys
import tempfile

import numpy as np

import coulomb

ARM = """<mujoco model="planar_arm">
  <worldbody>
    <body name="upper_arm">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04" mass="2"/>
      <body name="forearm" pos="0.4 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""

KP, KD = 100.0, 20.0  # [1/s²], [1/s]: critically damped error dynamics
FREQUENCY = 0.5  # [Hz]


def desired(t):
    """q_d, q̇_d, q̈_d at time t [s]: both joints swing about their start."""
    w = 2 * math.pi * FREQUENCY
    amplitude, phase = np.array([0.6, 0.9]), np.array([0.0, 0.5 * math.pi])
    return (amplitude * np.sin(w * t + phase) - amplitude * np.sin(phase),
            amplitude * w * np.cos(w * t + phase),
            -amplitude * w * w * np.sin(w * t + phase))


def track(model_path, use_model, seconds=4.0):
    """Worst tracking error [rad] after the first second."""
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.002,
        "robots": [{"name": "arm", "mjcf": str(model_path), "base": "fixed",
                    "pose": {"position": [0, 0, 1]}, "joint_limits": False}]})
    velocities = sim.velocity_slice("arm")
    inertia_at_rest = np.diag(sim.mass_matrix("arm"))
    worst = 0.0
    while sim.time < seconds - 1e-9:
        q, v = sim.joint_positions("arm"), sim.v[velocities]  # M's and h's order
        q_d, v_d, a_d = desired(sim.time)
        feedback = KP * (q_d - q) + KD * (v_d - v)
        if use_model:
            tau = sim.mass_matrix("arm") @ (a_d + feedback) + sim.bias_forces("arm")
        else:
            tau = inertia_at_rest * feedback
        sim.set_joint_efforts("arm", tau)
        stats = sim.step()
        if sim.time > 1.0:
            worst = max(worst, np.abs(sim.joint_positions("arm") - desired(sim.time)[0]).max())
    print(f"{'computed torque' if use_model else 'PD':>15}: worst error after 1 s "
          f"{worst * 1e3:8.3f} mrad (last step: {stats.iterations} iterations, "
          f"e_m {stats.momentum_error:.1e})")
    return worst


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "arm.xml"
        path.write_text(ARM)
        model_error, pd_error = track(path, True), track(path, False)
    ratio = pd_error / model_error
    print(f"computed torque tracks {ratio:.0f}× closer than PD with the same gains")
    return 0 if model_error < 5e-3 and ratio > 10 else 1


if __name__ == "__main__":
    sys.exit(main())
