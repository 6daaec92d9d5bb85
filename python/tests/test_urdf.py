"""What a URDF file brings besides links and joints: its joints' damping, and
robots that cannot move (a table) as fixed geometry."""

import math
import pickle

import numpy as np
import pytest

import coulomb
from test_simulation import PENDULUM

G = 9.81

# A table of two links welded together: the top (a 1 × 1 × 0.05 m box whose
# upper face is 0.75 m above the base) hangs from the base by a fixed joint,
# so its place comes from the joint's origin and the collision origin both.
TABLE = """<robot name="table">
  <link name="base">
    <collision><origin xyz="0 0 0.35"/><geometry><box size="0.1 0.1 0.7"/></geometry>
    </collision>
  </link>
  <link name="top">
    <collision><origin xyz="0 0 0.025"/><geometry><box size="1 1 0.05"/></geometry>
    </collision>
  </link>
  <joint name="weld" type="fixed"><parent link="base"/><child link="top"/>
    <origin xyz="0 0 0.7"/></joint>
</robot>"""


def pendulum_scene(tmp_path, urdf_text, **robot):
    (tmp_path / "pendulum.urdf").write_text(urdf_text)
    return coulomb.Simulation.from_dict({
        "time_step": 0.01,
        "robots": [{"name": "r", "urdf": str(tmp_path / "pendulum.urdf"), "base": "fixed",
                    "joints": {"hinge": 0.7}, **robot}]})


DAMPED_PENDULUM = PENDULUM.replace(
    "</joint>", '<dynamics damping="2" friction="0"/></joint>')


@pytest.mark.parametrize("springs", [None, {"hinge": {"stiffness": 5.0, "damping": 0.5}}])
def test_a_urdf_joints_damping_acts_as_the_scenes_damper(tmp_path, springs):
    # <dynamics damping> does what the scene's damper does on the same
    # pendulum without it; springs given in the scene replace it.
    reference = pendulum_scene(tmp_path, PENDULUM,
                               springs=springs or {"hinge": {"damping": 2.0}})
    expected = reference.run(2.0).q
    sim = pendulum_scene(tmp_path, DAMPED_PENDULUM, **({"springs": springs} if springs else {}))
    np.testing.assert_array_equal(sim.run(2.0).q, expected)
    if springs is None:  # the file's damper at work: the swing dies down
        free = pendulum_scene(tmp_path, PENDULUM).run(2.0).q
        assert np.abs(expected[-50:]).max() < 0.5 * np.abs(free[-50:]).max()


def table_scene(tmp_path, ball_x, **table):
    (tmp_path / "table.urdf").write_text(TABLE)
    return coulomb.Simulation.from_dict({
        "time_step": 0.01,
        "bodies": [{"name": "ground", "shape": {"halfspace": {}}, "fixed": True},
                   {"name": "ball", "shape": {"sphere": {"radius": 0.1}}, "mass": 2.0,
                    "pose": {"position": [ball_x, 0.2, 1.2]}}],
        "robots": [{"name": "table", "urdf": str(tmp_path / "table.urdf"), "base": "fixed",
                    **table}]})


@pytest.mark.parametrize("table_x, ball_x, rests_at", [
    (0.0, 0.0, 0.75 + 0.1),   # on the top
    (2.0, 2.0, 0.75 + 0.1),   # the table where its pose puts it
    (2.0, 0.0, 0.1),          # beside it: on the ground
])
def test_a_robot_that_cannot_move_is_fixed_geometry(tmp_path, table_x, ball_x, rests_at):
    sim = table_scene(tmp_path, ball_x, pose={"position": [table_x, 0, 0]})
    trajectory = sim.run(1.5)
    assert sim.body_position("ball")[2] == pytest.approx(rests_at, abs=1e-3)
    assert trajectory.summary["momentum_error_max"] < 1e-6
    # What holds it (the table's geometry or the ground, both the world's)
    # carries its weight: Σγ = m g δt on the ball.
    contacts = sim.contacts()
    on_ball = [1.0 if b == "ball" else -1.0 for b in contacts["body_b"]]
    impulse = (np.array(on_ball)[:, None] * contacts["impulse"]).sum(axis=0)
    assert impulse[2] == pytest.approx(2.0 * G * sim.time_step, rel=1e-6)


def test_a_robot_that_cannot_move_has_no_joints_to_set(tmp_path):
    with pytest.raises(ValueError, match=r"robots\[0\]\.controllers: the robot cannot "
                       r"move .* remove 'controllers'") as error:
        table_scene(tmp_path, 0.0, controllers={"weld": {"kp": 1.0}})
    assert "\n" not in str(error.value)


def test_the_table_scene_holds_what_lands_on_its_top(scenes_dir):
    # The top's upper face is 0.75 m up: the box (0.15 m) and the capsule
    # (radius 0.03 m) rest on it; the ball (radius 0.05 m) rolls off.
    sim = coulomb.Simulation.from_file(str(scenes_dir / "table.yaml"))
    assert sim.robot_names == []
    assert sim.run(3.0).summary["momentum_error_max"] < 1e-6
    assert sim.body_position("box")[2] == pytest.approx(0.75 + 0.075, abs=1e-3)
    assert sim.body_position("capsule")[2] == pytest.approx(0.75 + 0.03, abs=1e-3)
    assert sim.body_position("ball")[2] == pytest.approx(0.05, abs=1e-3)


def friction_pendulum(tmp_path, q0, urdf_text=PENDULUM, time_step=0.001, solver="sap",
                      **robot):
    (tmp_path / "pendulum.urdf").write_text(urdf_text)
    return coulomb.Simulation.from_dict({
        "time_step": time_step,
        "robots": [{"name": "r", "urdf": str(tmp_path / "pendulum.urdf"), "base": "fixed",
                    "joints": {"hinge": q0}, **robot}]}, solver=solver)


M_G_L = 2.0 * G * 0.5  # the pendulum's largest gravity torque [N·m]


@pytest.mark.parametrize("solver", ["sap", "canal", "subadmm", "pgs"])
def test_joint_friction_holds_a_pendulum_its_weight_cannot_turn(tmp_path, solver):
    # m g l sin q0 = 2.9 N·m < F = 4 N·m: the joint sticks. It creeps as
    # SAP's stiction does, v = σ w δt τ (w = 1/0.6): 1e-4 rad over 2 s.
    q0 = 0.3
    sim = friction_pendulum(tmp_path, q0, solver=solver, joint_friction={"hinge": 4.0})
    sim.run(2.0)
    assert abs(sim.q[0] - q0) < 1e-3
    free = friction_pendulum(tmp_path, q0, solver=solver)
    free.run(0.5)  # (a quarter period is 0.39 s)
    assert free.q[0] < 0.0  # without friction it swings through the bottom


def first_turning_point(q0, friction):
    """Where a pendulum released at rest at q0 > 0 first stops, q1 < 0: the
    friction's work F (q0 − q1) is the potential energy it loses,
    m g l (cos q1 − cos q0) (Newton's method)."""
    q1 = -q0
    for _ in range(50):
        residual = M_G_L * (math.cos(q1) - math.cos(q0)) - friction * (q0 - q1)
        q1 -= residual / (-M_G_L * math.sin(q1) + friction)
    return q1


def test_joint_friction_takes_the_work_of_its_torque_from_a_swing(tmp_path):
    q0, friction = 0.7, 2.0  # m g l sin q0 = 6.3 N·m > F: it swings
    sim = friction_pendulum(tmp_path, q0, joint_friction={"hinge": friction})
    q = sim.run(1.5).q[:, 0]
    assert q.min() == pytest.approx(first_turning_point(q0, friction), abs=2e-3)
    sim.run(10.0)  # it stops within the band where gravity cannot turn the joint
    assert abs(sim.q[0]) <= math.asin(friction / M_G_L) + 1e-3
    assert abs(sim.v[0]) < 1e-3


def test_a_urdf_joints_friction_is_the_scenes(tmp_path):
    rough = PENDULUM.replace("</joint>", '<dynamics friction="2"/></joint>')
    reference = friction_pendulum(tmp_path, 0.7, joint_friction={"hinge": 2.0}).run(1.0).q
    np.testing.assert_array_equal(friction_pendulum(tmp_path, 0.7, rough).run(1.0).q,
                                  reference)
    # The scene's value replaces the file's; 0 removes it.
    np.testing.assert_array_equal(
        friction_pendulum(tmp_path, 0.7, rough, joint_friction={"hinge": 2.0}).run(1.0).q,
        reference)
    np.testing.assert_array_equal(
        friction_pendulum(tmp_path, 0.7, rough, joint_friction={"hinge": 0}).run(1.0).q,
        friction_pendulum(tmp_path, 0.7).run(1.0).q)


@pytest.mark.parametrize("value, message", [
    (-1.0, r"joint_friction\.hinge: .*≥ 0"),
    (math.inf, r"joint_friction\.hinge"),
])
def test_bad_joint_friction_is_refused_in_one_line(tmp_path, value, message):
    with pytest.raises(ValueError, match=message) as error:
        friction_pendulum(tmp_path, 0.7, joint_friction={"hinge": value})
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="no joint named 'elbow'"):
        friction_pendulum(tmp_path, 0.7, joint_friction={"elbow": 1.0})


def test_joint_friction_set_at_run_time_acts_as_the_scenes(tmp_path):
    reference = friction_pendulum(tmp_path, 0.7, joint_friction={"hinge": 2.0})
    sim = friction_pendulum(tmp_path, 0.7)
    assert sim.joint_friction("r").tolist() == [0.0]
    sim.set_joint_friction("r", 2.0)
    assert sim.joint_friction("r").tolist() == [2.0]
    np.testing.assert_array_equal(sim.run(1.0).q, reference.run(1.0).q)
    # 0 removes it, from any moment on: the swing then goes on as without.
    sim.set_joint_friction("r", [0.0])
    free = friction_pendulum(tmp_path, 0.7)
    free.restore(sim.snapshot())
    assert free.joint_friction("r").tolist() == [0.0]
    np.testing.assert_array_equal(sim.run(1.0).q, free.run(1.0).q)


@pytest.mark.parametrize("value, message", [
    (-1.0, "≥ 0"), (math.nan, "≥ 0"), ([1.0, 2.0], r"expected a number or shape \(1,\)"),
])
def test_bad_run_time_joint_friction_is_refused_and_changes_nothing(tmp_path, value, message):
    sim = friction_pendulum(tmp_path, 0.7, joint_friction={"hinge": 2.0})
    with pytest.raises(ValueError, match=message):
        sim.set_joint_friction("r", value)
    assert sim.joint_friction("r").tolist() == [2.0]


def test_a_snapshot_keeps_the_joint_friction_of_its_moment(tmp_path):
    sim = friction_pendulum(tmp_path, 0.7)
    sim.set_joint_friction("r", 2.0)
    sim.run(0.2)
    moment = pickle.loads(pickle.dumps(sim.snapshot()))  # through its bytes
    after = sim.run(0.5).q
    sim.set_joint_friction("r", 0.0)
    sim.restore(moment)
    assert sim.joint_friction("r").tolist() == [2.0]
    np.testing.assert_array_equal(sim.run(0.5).q, after)
    # Restored into a simulation that never had it, too.
    fresh = friction_pendulum(tmp_path, 0.7)
    fresh.restore(moment)
    np.testing.assert_array_equal(fresh.run(0.5).q, after)


# An Atwood machine: two sliders on one frame, the light one (0.1 kg) a
# mimic of the heavy one (0.3 kg) with multiplier −1.
ATWOOD = """<robot name="atwood">
  <link name="frame"/>
  <link name="heavy"><inertial><mass value="0.3"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="light"><inertial><mass value="0.1"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="down" type="prismatic"><parent link="frame"/><child link="heavy"/>
    <axis xyz="0 0 1"/><limit lower="-10" upper="10" effort="10" velocity="10"/></joint>
  <joint name="up" type="prismatic"><parent link="frame"/><child link="light"/>
    <axis xyz="0 0 1"/><limit lower="-10" upper="10" effort="10" velocity="10"/>
    MIMIC</joint>
</robot>"""


def atwood(tmp_path, mimic='<mimic joint="down" multiplier="-1"/>', solver="sap", **robot):
    (tmp_path / "atwood.urdf").write_text(ATWOOD.replace("MIMIC", mimic))
    return coulomb.Simulation.from_dict({
        "time_step": 0.01,
        "robots": [{"name": "a", "urdf": str(tmp_path / "atwood.urdf"), "base": "fixed",
                    **robot}]}, solver=solver)


@pytest.mark.parametrize("solver", ["sap", "canal", "subadmm", "pgs"])
def test_a_mimic_joint_makes_an_atwood_machine(tmp_path, solver):
    # (m_h + m_l) a = −(m_h − m_l) g: a = −g/2, and from rest symplectic
    # Euler's q_n = a δt² n (n + 1)/2 exactly. The near-rigid coupler
    # (R = β² w/(4π²)) gives way by 0.02 mm in the first steps, an offset
    # that does not grow (0.625 m fallen after 0.5 s).
    sim = atwood(tmp_path, solver=solver)
    q = sim.run(0.5).q[1:]  # after the initial sample
    n, a = np.arange(1, 51), -G * (0.3 - 0.1) / 0.4
    np.testing.assert_allclose(q[:, 0], a * 0.01**2 * n * (n + 1) / 2, rtol=0, atol=3e-5)
    assert np.max(np.abs(q[:, 0] + q[:, 1])) < 1e-4  # up = −down


def test_a_mimic_joint_starts_where_its_coupling_puts_it(tmp_path):
    sim = atwood(tmp_path, '<mimic joint="down" multiplier="2" offset="0.1"/>',
                 joints={"down": 0.3})
    np.testing.assert_allclose(sim.joint_positions("a"), [0.3, 0.7], atol=1e-15)
    free = atwood(tmp_path, "")  # without it, the two fall alike
    free.run(0.2)
    assert free.joint_positions("a")[1] < 0


@pytest.mark.parametrize("mimic, message", [
    # urdfdom's own checks, folded into the one line.
    ('<mimic multiplier="2"/>', "no mimic joint specified"),
    ('<mimic joint="down" multiplier="two"/>', r"multiplier value \(two\) is not a valid float"),
    ('<mimic joint="side"/>', "no joint named 'side'"),
    ('<mimic joint="up"/>', "coupled to itself"),
])
def test_a_mimic_joint_that_cannot_be_read_is_refused_in_one_line(tmp_path, mimic, message):
    with pytest.raises(ValueError, match=r"robots\[0\]\.urdf: .*" + message) as error:
        atwood(tmp_path, mimic)
    assert "\n" not in str(error.value)
