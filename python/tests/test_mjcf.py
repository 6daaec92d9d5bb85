"""Robots from MuJoCo's MJCF files, against the same robots from URDF and
against statics."""

import math

import numpy as np
import pytest

import coulomb
from test_simulation import PENDULUM as PENDULUM_URDF  # the same pendulum

G = 9.81

PENDULUM_MJCF = """<mujoco model="pendulum">
  <worldbody>
    <body name="bob">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -0.5" mass="2" diaginertia="0.1 0.1 0.1"/>
    </body>
  </worldbody>
</mujoco>"""


# MuJoCo starts the ball at z = 3, turned; the scene's pose says where it is.
BALL_MJCF = """<mujoco model="ball">
  <worldbody>
    <body name="ball" pos="0 0 3" euler="0 0 90">
      <freejoint/>
      <geom name="sphere" type="sphere" size="0.1" mass="1.5"/>
    </body>
  </worldbody>
</mujoco>"""


def scene(robot):
    return {"time_step": 0.01,
            "bodies": [{"name": "ground", "shape": {"halfspace": {}}, "fixed": True}],
            "robots": [robot]}


def load(tmp_path, text, **robot):
    path = tmp_path / "model.xml"
    path.write_text(text)
    return coulomb.Simulation.from_dict(scene({"name": "r", "mjcf": str(path), **robot}))


def test_an_mjcf_pendulum_swings_as_its_urdf_twin(tmp_path):
    (tmp_path / "pendulum.urdf").write_text(PENDULUM_URDF)
    twin = coulomb.Simulation.from_dict(scene({
        "name": "r", "urdf": str(tmp_path / "pendulum.urdf"), "base": "fixed",
        "pose": {"position": [0, 0, 1]}, "joints": {"hinge": 0.7}}))
    sim = load(tmp_path, PENDULUM_MJCF, base="fixed", pose={"position": [0, 0, 1]},
               joints={"hinge": 0.7})
    assert sim.joint_names("r") == ["hinge"]
    swing, reference = sim.run(1.0), twin.run(1.0)
    assert np.ptp(swing.q) > 1.0  # it swings through the bottom
    np.testing.assert_array_equal(swing.q, reference.q)
    np.testing.assert_array_equal(sim.body_position("bob"), twin.body_position("bob"))


def test_an_mjcf_free_body_rests_on_its_geom_with_the_mass_of_its_geom(tmp_path):
    sim = load(tmp_path, BALL_MJCF, pose={"position": [0.5, 0, 1]})
    np.testing.assert_array_equal(sim.body_position("ball"), [0.5, 0, 1])
    np.testing.assert_allclose(sim.body_orientation("ball"), [1, 0, 0, 0], atol=1e-15)
    trajectory = sim.run(2.0)
    assert sim.body_position("ball")[2] == pytest.approx(0.1, abs=1e-3)  # its radius
    assert trajectory.summary["momentum_error_max"] < 1e-6
    # At rest the contact carries the geom's 1.5 kg: Σγ = m g δt.
    impulse = sim.contacts()["impulse"].sum(axis=0)
    assert impulse[2] == pytest.approx(1.5 * G * sim.time_step, rel=1e-6)


@pytest.mark.parametrize("springs", [None, {"hinge": {"stiffness": 5.0, "damping": 0.5}}])
def test_an_mjcf_joints_armature_and_damping_act_as_the_scenes(tmp_path, springs):
    # The file's armature and damping do what the scene's armature and a
    # damper do on the URDF twin; springs given in the scene replace them.
    (tmp_path / "pendulum.urdf").write_text(PENDULUM_URDF)
    damped = {"hinge": {"damping": 2.0}}
    twin = coulomb.Simulation.from_dict(scene({
        "name": "r", "urdf": str(tmp_path / "pendulum.urdf"), "base": "fixed",
        "joints": {"hinge": 0.7}, "armature": {"hinge": 0.5}, "springs": springs or damped}))
    robot = {"base": "fixed", "joints": {"hinge": 0.7}}
    if springs:
        robot["springs"] = springs
    sim = load(tmp_path, PENDULUM_MJCF.replace(
        'axis="0 1 0"/>', 'axis="0 1 0" armature="0.5" damping="2"/>'), **robot)
    swing, reference = sim.run(2.0), twin.run(2.0)
    np.testing.assert_array_equal(swing.q, reference.q)
    if springs is None:  # the file's damper at work: the swing dies down
        undamped = load(tmp_path, PENDULUM_MJCF, base="fixed", joints={"hinge": 0.7})
        assert np.abs(swing.q[-50:]).max() < 0.5 * np.abs(undamped.run(2.0).q[-50:]).max()


@pytest.mark.parametrize("compiler, limit, radians", [
    ("", "30", math.radians(30)),  # MuJoCo's default unit: degrees
    ('<compiler angle="radian"/>', "0.5", 0.5),
])
def test_an_mjcf_joint_range_stops_an_inverted_pendulum(tmp_path, compiler, limit, radians):
    # The stick stands above its hinge and falls until the joint's range
    # stops it, in the file's angle unit.
    sim = load(tmp_path, f"""<mujoco>{compiler}<worldbody><body name="stick">
        <joint name="hinge" type="hinge" axis="0 1 0" range="-{limit} {limit}" limited="true"/>
        <inertial pos="0 0 0.5" mass="2" diaginertia="0.1 0.1 0.1"/></body></worldbody>
        </mujoco>""", base="fixed", pose={"position": [0, 0, 1]}, joints={"hinge": 0.05})
    sim.run(2.0)
    assert sim.q[0] == pytest.approx(radians, abs=1e-3)


def test_a_robot_that_cannot_move_is_fixed_geometry(tmp_path):
    # The ball's free joint dropped and its base fixed: nothing is left to
    # move, so the ball is an obstacle of the world, and a box lands on it.
    (tmp_path / "ball.xml").write_text(BALL_MJCF)
    box = {"name": "box", "shape": {"box": {"size": [0.1, 0.1, 0.1]}}, "mass": 1.0,
           "pose": {"position": [0, 0, 1]}}
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.01, "bodies": [box],
        "robots": [{"name": "r", "mjcf": str(tmp_path / "ball.xml"), "base": "fixed",
                    "pose": {"position": [0, 0, 0.5]}}]})
    assert sim.robot_names == []
    sim.run(1.0)
    assert sim.body_position("box")[2] == pytest.approx(0.5 + 0.1 + 0.05, abs=1e-3)


@pytest.mark.parametrize("text, message", [
    ("""<mujoco><worldbody><geom name="floor" type="plane" size="1 1 0.1"/>
        <body name="b"><joint name="s" type="slide" axis="0 0 1"/>
        <geom type="box" size="0.1 0.1 0.1" mass="1"/></body></worldbody></mujoco>""",
     "floor: belongs to the world"),
    ("""<mujoco><worldbody>
        <body name="a"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
        <body name="b"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
        </worldbody></mujoco>""", "2 bodies in <worldbody>"),
    ("""<mujoco><worldbody><body name="a"><freejoint/>
        <geom type="sphere" size="0.1" mass="1"/>
        <body name="b" pos="1 0 0"><freejoint name="loose"/>
        <geom type="sphere" size="0.1" mass="1"/></body></body></worldbody></mujoco>""",
     "joint 'loose': a second free body"),
    ("""<mujoco><worldbody><body name="a" """, r"model\.xml\(1\)"),
])
def test_mjcf_files_a_robot_cannot_be_are_refused_in_one_line(tmp_path, text, message):
    with pytest.raises(ValueError, match=r"robots\[0\]\.mjcf: .*" + message) as error:
        load(tmp_path, text)
    assert "\n" not in str(error.value)


def test_a_robot_names_one_file():
    with pytest.raises(ValueError, match="one of urdf or mjcf"):
        coulomb.Simulation.from_dict(scene({"name": "r", "urdf": "a.urdf", "mjcf": "a.xml"}))
    with pytest.raises(ValueError, match="MJCF file not found"):
        coulomb.Simulation.from_dict(scene({"name": "r", "mjcf": "no_such_model.xml"}))


def test_the_mjcf_arm_scene_holds_its_box(scenes_dir):
    # scenes/mjcf_arm.yaml: the box lands on the forearm and stays on it,
    # the arm sagging by the PD laws' static error only.
    sim = coulomb.Simulation.from_file(scenes_dir / "mjcf_arm.yaml")
    assert sim.joint_names("arm") == ["shoulder", "elbow"]
    trajectory = sim.run(3.0)
    assert trajectory.summary["momentum_error_max"] < 1e-6
    assert 0.6 < sim.body_position("box")[2] < 0.75  # on the forearm, 0.6 m up
    assert np.all(np.abs(sim.joint_positions("arm")) < 0.1)


def with_actuators(text):
    """The MJCF pendulum with an <actuator> section holding `text`."""
    return PENDULUM_MJCF.replace("</mujoco>", f"<actuator>{text}</actuator></mujoco>")


def urdf_twin(tmp_path, **robot):
    (tmp_path / "pendulum.urdf").write_text(PENDULUM_URDF)
    return coulomb.Simulation.from_dict(scene({
        "name": "r", "urdf": str(tmp_path / "pendulum.urdf"), "base": "fixed",
        "joints": {"hinge": 0.7}, **robot}))


@pytest.mark.parametrize("actuator, controller", [
    ('<position joint="hinge" kp="200" kv="20"/>', {"kp": 200.0, "kd": 20.0}),
    ('<position joint="hinge"/>', {"kp": 1.0}),  # MuJoCo's defaults: kp 1, kv 0
    ('<velocity joint="hinge" kv="3"/>', {"kd": 3.0}),
    ('<velocity name="v" joint="hinge"/>', {"kd": 1.0}),
    ('<position joint="hinge" kp="50" forcerange="-4 4"/>', {"kp": 50.0, "effort_limit": 4.0}),
    ('<position joint="hinge" kp="50" forcerange="-4 4" forcelimited="false"/>', {"kp": 50.0}),
    ('<position joint="hinge" kp="50" ctrlrange="0 2"/>', {"kp": 50.0}),  # targets' range
    ('<motor joint="hinge" gear="2"/>', {}),  # a torque source, zero until set
])
def test_an_mjcf_actuator_is_the_scenes_pd_controller(tmp_path, actuator, controller):
    # MuJoCo's control starts at 0: a target of 0, a target velocity of 0.
    # (The URDF twin's joint has an effort limit of its own, 100 N·m.)
    controller = {"effort_limit": math.inf, **controller}
    twin = urdf_twin(tmp_path, controllers={"hinge": controller})
    sim = load(tmp_path, with_actuators(actuator), base="fixed", joints={"hinge": 0.7})
    np.testing.assert_array_equal(sim.run(2.0).q, twin.run(2.0).q)
    np.testing.assert_array_equal(sim.joint_efforts("r"), twin.joint_efforts("r"))


def test_an_mjcf_position_actuator_takes_targets_from_python(tmp_path):
    # Static balance of the actuator's PD law: kp (q_d − q) = m g l sin q.
    kp, target = 200.0, 1.0
    sim = load(tmp_path, with_actuators(f'<position joint="hinge" kp="{kp}" kv="20"/>'),
               base="fixed")
    sim.set_pd_targets("r", [target])
    sim.run(5.0)
    q = sim.q[0]
    assert kp * (target - q) == pytest.approx(2.0 * G * 0.5 * math.sin(q), rel=1e-6)


@pytest.mark.parametrize("ranges, limit", [
    ('forcerange="-3 3"', 6.0),                                  # |g| F
    ('ctrlrange="-1 1"', 2.0),                                   # |g| c: the control's
    ('forcerange="-3 3" ctrlrange="-1 1"', 2.0),                 # the smaller
    ('forcerange="-3 3" ctrlrange="-1 1" ctrllimited="false"', 6.0),
])
def test_a_geared_motor_is_limited_by_its_ranges_times_its_gear(tmp_path, ranges, limit):
    sim = load(tmp_path, with_actuators(f'<motor joint="hinge" gear="2" {ranges}/>'),
               base="fixed")
    sim.set_joint_efforts("r", [100.0])
    sim.step()
    assert sim.joint_efforts("r")[0] == pytest.approx(limit, rel=1e-12)
    sim.set_joint_efforts("r", [-100.0])
    sim.step()
    assert sim.joint_efforts("r")[0] == pytest.approx(-limit, rel=1e-12)


def test_the_scenes_controllers_replace_the_files_actuators(tmp_path):
    gains = {"hinge": {"kp": 30.0, "kd": 2.0}}
    twin = urdf_twin(tmp_path, controllers=gains)
    sim = load(tmp_path, with_actuators('<position joint="hinge" kp="200"/>'),
               base="fixed", joints={"hinge": 0.7}, controllers=gains)
    np.testing.assert_array_equal(sim.run(1.0).q, twin.run(1.0).q)
    free = load(tmp_path, with_actuators('<position joint="hinge" kp="200"/>'),
                base="fixed", joints={"hinge": 0.7}, actuators=False)
    np.testing.assert_array_equal(free.run(1.0).q, urdf_twin(tmp_path).run(1.0).q)


@pytest.mark.parametrize("actuator, message", [
    ('<general joint="hinge" gainprm="5"/>', "<general> is not read"),
    ('<position joint="hinge" kp="5" dampratio="1"/>', "attribute 'dampratio'"),
    ('<position joint="hinge" gear="2"/>', "only a motor's gear is read"),
    ('<motor joint="hinge" forcerange="-1 2"/>', r"forcerange '-1 2': only \[−F, F\]"),
    ('<motor joint="hinge" forcelimited="true"/>', "forcelimited without a forcerange"),
    ('<motor joint="hinge" ctrlrange="0 1"/>', r"ctrlrange '0 1': only \[−F, F\]"),
    ('<motor tendon="cable"/>', "attribute 'tendon'"),
    ('<motor joint="elbow"/>', "no joint named 'elbow'"),
    ('<motor name="a" joint="hinge"/><motor name="b" joint="hinge"/>',
     "actuator 'b': a second actuator on joint 'hinge'"),
    ('<position joint="hinge" kp="-1"/>', "negative kp or kv"),
])
def test_mjcf_actuators_that_cannot_be_read_are_refused_in_one_line(tmp_path, actuator,
                                                                    message):
    with pytest.raises(ValueError, match=r"robots\[0\]\.mjcf: .*" + message +
                       r".*\(or set the robot's actuators: false\)") as error:
        load(tmp_path, with_actuators(actuator), base="fixed")
    assert "\n" not in str(error.value)
    load(tmp_path, with_actuators(actuator), base="fixed", actuators=False)  # left out


def test_actuator_defaults_are_refused_and_actuators_false_leaves_them_out(tmp_path):
    text = with_actuators('<position joint="hinge"/>').replace(
        "<worldbody>", '<default><default class="arm"><position kp="9"/></default>'
        "</default><worldbody>")
    with pytest.raises(ValueError, match="<default> sets <position> attributes"):
        load(tmp_path, text, base="fixed")
    load(tmp_path, text, base="fixed", actuators=False)
    with pytest.raises(ValueError, match="only an MJCF file has actuators"):
        urdf_twin(tmp_path, actuators=False)


def pendulum_with(joint_attributes="", defaults="", body_attributes=""):
    """The MJCF pendulum with attributes on its hinge and its bob, and a
    <default> section."""
    return PENDULUM_MJCF.replace(
        '<joint name="hinge" type="hinge" axis="0 1 0"/>',
        f'<joint name="hinge" type="hinge" axis="0 1 0" {joint_attributes}/>').replace(
        '<body name="bob">', f'<body name="bob" {body_attributes}>').replace(
        "<worldbody>", f"{defaults}<worldbody>")


@pytest.mark.parametrize("text, friction", [
    (pendulum_with('frictionloss="2"'), 2.0),
    (pendulum_with(defaults='<default><joint frictionloss="2"/></default>'), 2.0),
    # A body's childclass, a joint's own class, and a nested class inheriting.
    (pendulum_with(defaults='<default><default class="rough"><joint frictionloss="2"/>'
                   '</default></default>', body_attributes='childclass="rough"'), 2.0),
    (pendulum_with('class="smooth"', defaults='<default><default class="rough">'
                   '<joint frictionloss="2"/><default class="smooth"><joint frictionloss="0"/>'
                   '</default></default></default>', body_attributes='childclass="rough"'), 0.0),
    (pendulum_with('class="inner"', defaults='<default><joint frictionloss="1.5"/>'
                   '<default class="inner"><joint damping="0"/></default></default>'), 1.5),
])
def test_an_mjcf_joints_frictionloss_is_the_scenes_joint_friction(tmp_path, text, friction):
    twin = urdf_twin(tmp_path, **({"joint_friction": {"hinge": friction}} if friction else {}))
    sim = load(tmp_path, text, base="fixed", joints={"hinge": 0.7})
    np.testing.assert_array_equal(sim.run(1.0).q, twin.run(1.0).q)


def test_a_negative_frictionloss_is_refused_in_one_line(tmp_path):
    with pytest.raises(ValueError, match=r"robots\[0\]\.mjcf: .*cannot load MJCF") as error:
        load(tmp_path, pendulum_with('frictionloss="-1"'), base="fixed")
    assert "\n" not in str(error.value)
