"""A two-link arm led by its hand, as MuJoCo users lead one: the file
connects the hand to a mocap body (``<body name="target" mocap="true">``,
``<equality><connect name="lead" body2="target">``), and the script moves
the mocap body (``set_mocap_pose``, MuJoCo's ``mocap_pos``) around a
circle within the arm's reach. The near-rigid connection makes the solver
find the joint angles itself: they are checked against the two-link arm's
closed-form inverse kinematics. Then the connection is switched off
(``set_connection_active``, MuJoCo's ``eq_active``) and the arm falls.

    python examples/python/lead_by_weld.py

Exits 1 unless the hand stays within 1 mm of the circle and the joints
within 5 mrad of the closed form while led, and the arm falls once let go.
"""

import math
import pathlib
import sys
import tempfile

import numpy as np

import coulomb

UPPER, FORE = 0.4, 0.3  # link lengths [m]
# The arm hangs from (0, 0, 1) by hinges about y; at qpos0 (straight along
# x) its hand, the forearm's end, is at (0.7, 0, 1), where the mocap body
# starts: the connection holds that point of the forearm at the mocap
# body's origin, wherever the script puts it.
ARM = f"""<mujoco model="led_arm">
  <option timestep="0.002"/>
  <worldbody>
    <body name="target" mocap="true" pos="{UPPER + FORE} 0 1"/>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 {UPPER} 0 0" size="0.03" mass="2"/>
      <body name="fore" pos="{UPPER} 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 {FORE} 0 0" size="0.025" mass="1"/>
      </body>
    </body>
  </worldbody>
  <equality><connect name="lead" body1="fore" body2="target" anchor="{FORE} 0 0"/></equality>
</mujoco>"""
BASE = np.array([0.0, 0.0, 1.0])
CENTER, RADIUS, PERIOD = BASE + [0.45, 0.0, -0.15], 0.15, 2.0  # the circle [m, s]


def hand(q):
    """The forearm's end for joint angles q (a turn θ about y takes x to
    (cos θ, 0, −sin θ))."""
    shoulder, elbow = q
    return BASE + [UPPER * math.cos(shoulder) + FORE * math.cos(shoulder + elbow), 0.0,
                   -UPPER * math.sin(shoulder) - FORE * math.sin(shoulder + elbow)]


def inverse_kinematics(point, elbow_sign):
    """The joint angles that put the hand at `point` (law of cosines), on
    the elbow's side `elbow_sign`."""
    x, z = point[0] - BASE[0], -(point[2] - BASE[2])
    cos_elbow = (x * x + z * z - UPPER**2 - FORE**2) / (2 * UPPER * FORE)
    elbow = elbow_sign * math.acos(cos_elbow)
    shoulder = math.atan2(z, x) - math.atan2(FORE * math.sin(elbow),
                                             UPPER + FORE * math.cos(elbow))
    return np.array([shoulder, elbow])


def circle(t):
    angle = 2 * math.pi * t / PERIOD
    return CENTER + RADIUS * np.array([math.cos(angle), 0.0, math.sin(angle)])


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "led_arm.xml"
        path.write_text(ARM)
        sim = coulomb.Simulation.from_file(str(path))
    arm = sim.robot_names[0]
    start = inverse_kinematics(circle(0.0), elbow_sign=1.0)
    sim.set_state(start, np.zeros(2))
    worst_hand = worst_joint = 0.0
    steps = int(PERIOD / sim.time_step)
    for k in range(1, steps + 1):
        target = circle(k * sim.time_step)
        sim.set_mocap_pose("target", target)
        sim.step()
        q = sim.joint_positions(arm)
        worst_hand = max(worst_hand, np.linalg.norm(hand(q) - target))
        worst_joint = max(worst_joint,
                          np.abs(q - inverse_kinematics(target, elbow_sign=1.0)).max())
    summary = sim.summary()
    print(f"led around the circle ({steps} steps): hand within {worst_hand * 1e3:.3f} mm "
          f"of it, joints within {worst_joint * 1e3:.3f} mrad of the closed-form inverse "
          f"kinematics; {summary['iterations_mean']:.2f} Newton iterations per step, "
          f"e_m <= {summary['momentum_error_max']:.1e}")
    held = hand(sim.joint_positions(arm))[2]
    sim.set_connection_active(arm, "lead", False)
    sim.run(0.5)
    fell = held - hand(sim.joint_positions(arm))[2]
    print(f"let go: the hand fell {fell * 1e3:.1f} mm in 0.5 s")
    return 0 if worst_hand < 1e-3 and worst_joint < 5e-3 and fell > 0.1 else 1


if __name__ == "__main__":
    sys.exit(main())
