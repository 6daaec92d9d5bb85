"""A parallel gripper (scenes/parallel_gripper.xml, MuJoCo's form: fingers
coupled by an equality and driven through one fixed tendon) closes on a box,
lifts it 15 cm along a smooth ramp and holds it there, driven from Python as
MuJoCo's controls drive it: the grip's control (0: closed) and the lift's
PD target along a ramp. Stiction holds the box: its slip along the fingers
while lifted and held is the SAP model's creep, below a tenth of a
millimetre. The file's sensors report the grasp: a touch sensor on each
pad reads the squeeze, and the load cell at the wrist weighs what the lift
carries, the box's weight once it is lifted.

    python examples/python/grasp_and_lift.py

Exits 1 unless the box is lifted and holds within 0.1 mm, and the load cell
weighs it within 1 %.
"""

import pathlib
import sys

import coulomb

SCENE = pathlib.Path(__file__).resolve().parents[2] / "scenes" / "parallel_gripper.xml"
LIFT = 0.15  # [m]
BOX_MASS, G = 0.2, 9.81  # the file's box [kg], its gravity [m/s²]
RAMP_TIME, RAMP_STEPS = 1.0, 100  # [s], targets set


def box_in_gripper(sim):
    """The box's height relative to the gripper's palm [m]."""
    return sim.body_position("box")[2] - sim.joint_positions("gripper")[0]


def report(sim, what):
    """Prints the state and the sensors' readings; returns the load cell's
    vertical force [N]."""
    summary = sim.summary()  # every step so far
    squeeze = sim.joint_efforts("gripper")[1:]  # the fingers' efforts [N]
    sensors = sim.sensor_data("gripper")
    print(f"{what:<8} t = {sim.time:.2f} s: box at z = {sim.body_position('box')[2]:.4f} m, "
          f"fingers at {sim.tendon_lengths('gripper')[0] * 1e3:.2f} mm, squeeze "
          f"{abs(squeeze[0]):.2f} N per finger, touch {sensors['left_touch'][0]:.2f} / "
          f"{sensors['right_touch'][0]:.2f} N, load cell {sensors['wrist_force'][2]:.3f} N; "
          f"so far {summary['iterations_mean']:.2f} Newton iterations per step, "
          f"e_m <= {summary['momentum_error_max']:.1e}, "
          f"penetration <= {summary['penetration_max'] * 1e3:.2f} mm")
    return sensors["wrist_force"][2]


def main():
    sim = coulomb.Simulation.from_file(str(SCENE), keyframe="open")
    sim.run(0.3)
    empty = report(sim, "rest")  # the gripper's own weight
    sim.set_ctrl("gripper", {"grip": 0})  # close: the box stops them at 10 mm
    sim.run(0.5)
    report(sim, "closed")
    grasped = box_in_gripper(sim)
    # Lifted along a smooth ramp, its target set every 10 ms: a jump of
    # 15 cm would jerk the palm up at hundreds of m/s², far more than the
    # 5 N squeeze lets friction carry, and the box would slip down.
    for k in range(1, RAMP_STEPS + 1):
        s = k / RAMP_STEPS
        sim.set_pd_target("gripper", "lift", LIFT * s * s * (3 - 2 * s),
                          LIFT * 6 * s * (1 - s) / RAMP_TIME)
        sim.run(RAMP_TIME / RAMP_STEPS)
    report(sim, "lifted")
    lift_slip = box_in_gripper(sim) - grasped
    before = box_in_gripper(sim)
    sim.run(2.0)
    loaded = report(sim, "held")
    slip = box_in_gripper(sim) - before
    weighed = (loaded - empty) / G
    print(f"slip along the fingers: {lift_slip * 1e3:+.4f} mm while lifted, "
          f"{slip * 1e3:+.4f} mm over the 2 s hold; the load cell weighs the box "
          f"{weighed * 1e3:.1f} g ({BOX_MASS * 1e3:.0f} g)")
    lifted = sim.body_position("box")[2] > 0.03 + 0.9 * LIFT
    if not lifted or abs(lift_slip) > 1e-4 or abs(slip) > 1e-4:
        print("the box was not lifted and held", file=sys.stderr)
        return 1
    if abs(weighed - BOX_MASS) > 0.01 * BOX_MASS:
        print("the load cell did not weigh the box", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
