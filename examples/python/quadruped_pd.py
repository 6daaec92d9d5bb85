"""The A1 quadruped (example-robot-data) dropped onto the ground and held
upright by PD targets on its twelve joints, set from Python.

    python examples/python/quadruped_pd.py
"""

import coulomb

STANCE = {"hip": 0.0, "thigh": 0.8, "calf": -1.6}  # [rad]


def main():
    legs = ("FL", "FR", "RL", "RR")
    controllers = {f"{leg}_{part}_joint": {"kp": 60.0, "kd": 2.0, "target": angle}
                   for leg in legs for part, angle in STANCE.items()}
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.002,
        "contact": {"friction": 0.8},
        "bodies": [{"name": "ground", "shape": {"halfspace": {}}, "fixed": True}],
        "robots": [{
            "name": "a1",
            "urdf": "example-robot-data/a1_description/urdf/a1.urdf",
            "base": "floating",
            "pose": {"position": [0, 0, 0.4]},
            "joints": {name: c["target"] for name, c in controllers.items()},
            "controllers": controllers,
        }],
    })
    joints = sim.joint_names("a1")
    targets = [STANCE[name.split("_")[1]] for name in joints]
    crouch = [t * 1.2 if "hip" not in j else t for j, t in zip(joints, targets)]
    for second in range(1, 4):
        goal = crouch if second == 2 else targets  # crouch a little, then stand again
        sim.set_pd_targets("a1", goal)
        trajectory = sim.run(1.0)
        height = sim.body_position("a1")[2]
        # The PD law's steady error: the legs carry the robot's weight.
        lag = max(abs(q - q_d) for q, q_d in zip(sim.joint_positions("a1"), goal))
        print(f"t = {sim.time:.1f} s: base at {height:.3f} m, joints within "
              f"{lag:.3f} rad of their targets, {len(sim.contacts()['depth'])} contacts, "
              f"SAP iterations mean {trajectory.summary['iterations_mean']:.2f}, max e_m "
              f"{trajectory.summary['momentum_error_max']:.1e}")
    if not 0.15 < height < 0.4:
        raise SystemExit(f"the robot did not stand: base at {height:.3f} m")


if __name__ == "__main__":
    main()
