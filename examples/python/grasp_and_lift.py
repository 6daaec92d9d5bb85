"""A parallel gripper (scenes/parallel_gripper.xml, MuJoCo's form: fingers
coupled by an equality and driven through one fixed tendon) closes on a box,
lifts it 15 cm and holds it there, driven from Python by PD targets on the
tendon and on the lift. Stiction holds the box: its slip along the fingers
while held is the SAP model's creep, below a tenth of a millimetre.

    python examples/python/grasp_and_lift.py

Exits 1 unless the box is lifted and holds within 0.1 mm.
"""

import pathlib
import sys

import coulomb

SCENE = pathlib.Path(__file__).resolve().parents[2] / "scenes" / "parallel_gripper.xml"
LIFT = 0.15  # [m]


def box_in_gripper(sim):
    """The box's height relative to the gripper's palm [m]."""
    return sim.body_position("box")[2] - sim.joint_positions("gripper")[0]


def report(sim, what, trajectory):
    summary = trajectory.summary
    squeeze = sim.joint_efforts("gripper")[1:]  # the fingers' efforts [N]
    print(f"{what:<8} t = {sim.time:.2f} s: box at z = {sim.body_position('box')[2]:.4f} m, "
          f"fingers at {sim.tendon_lengths('gripper')[0] * 1e3:.2f} mm, squeeze "
          f"{abs(squeeze[0]):.2f} N per finger; {summary['iterations_mean']:.2f} "
          f"Newton iterations per step, e_m <= {summary['momentum_error_max']:.1e}, "
          f"penetration <= {summary['penetration_max'] * 1e3:.2f} mm")


def main():
    sim = coulomb.Simulation.from_file(str(SCENE), keyframe="open")
    report(sim, "rest", sim.run(0.3))
    sim.set_pd_target("gripper", "split", 0.0)  # close: the box stops them at 10 mm
    report(sim, "closed", sim.run(0.5))
    sim.set_pd_target("gripper", "lift", LIFT)
    report(sim, "lifted", sim.run(1.0))
    before = box_in_gripper(sim)
    report(sim, "held", sim.run(2.0))
    slip = box_in_gripper(sim) - before
    print(f"slip along the fingers over the 2 s hold: {slip * 1e3:+.4f} mm")
    lifted = sim.body_position("box")[2] > 0.03 + 0.9 * LIFT
    if not lifted or abs(slip) > 1e-4:
        print("the box was not lifted and held", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
