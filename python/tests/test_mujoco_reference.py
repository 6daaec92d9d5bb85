"""MJCF files read by Coulomb against the same files run in MuJoCo (pip
`mujoco`, pinned in the Makefile): an independent reading of the file's
bodies, inertias from geoms, poses, world geoms and actuators."""

import re
from types import SimpleNamespace

import numpy as np
import pytest

import coulomb
from test_mjcf import (BLOCK_OBJ, DOWNHILL, FLOATING_ARM, FLOOR, GRIPPER_SERVO, HANGING_ARM,
                       PENDULUM_MJCF, PNG_KINDS, SENSED_ARM, TENDON_EQUALITY, TERRAIN,
                       TERRAIN_GEOM, TOUCH, ball_over, double_pendulum, write_png,
                       frictional_slope, gripper, several_bodies, tendon_equality_rest)

mujoco = pytest.importorskip("mujoco")

# A pendulum whose inertia comes from its geoms (a slanted capsule and a
# turned box): MuJoCo's Euler integrator and Coulomb's symplectic Euler are
# the same map, v⁺ = v + δt M⁻¹(τ − h), q⁺ = q + δt v⁺, and with damping
# (M + δt D) v⁺ = M v + δt (τ − h) in both, or explicit in both.
PENDULUM = """<mujoco model="pendulum">
  <option timestep="0.002"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0.1" size="0.03"/>
      <geom type="box" pos="0.4 0 0.1" size="0.05 0.04 0.03" euler="0 30 0"/>
    </body>
  </worldbody>
</mujoco>"""



def assert_same_dynamics(model, data, sim, name):
    """M(q) and the bias forces of `sim`'s tree `name` equal MuJoCo's at
    `data`'s state (after mj_forward), to round-off."""
    mass_matrix = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, mass_matrix)
    np.testing.assert_allclose(sim.mass_matrix(name), mass_matrix, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sim.bias_forces(name), data.qfrc_bias, rtol=0, atol=1e-12)


def both(tmp_path, text):
    path = tmp_path / "model.xml"  # beside test_mjcf's meshes folder, if any
    path.write_text(text)
    model = mujoco.MjModel.from_xml_path(str(path))
    return model, mujoco.MjData(model), coulomb.Simulation.from_file(str(path))


@pytest.mark.parametrize("joint, flag", [
    ("", ""),
    ('damping="0.1"', ""),  # MuJoCo's eulerdamp: implicit_damping here
    ('damping="0.1"', '<option><flag eulerdamp="disable"/></option>'),  # explicit in both
    # implicitfast: damping implicit whatever eulerdamp says (one hinge has
    # no velocity-dependent bias force for it to linearize)
    ('damping="0.1"', '<option integrator="implicitfast"><flag eulerdamp="disable"/>'
                      '</option>'),
])
def test_a_pendulum_from_geoms_swings_as_in_mujoco(tmp_path, joint, flag):
    text = PENDULUM.replace('axis="0 1 0"', 'axis="0 1 0" ' + joint).replace(
        "<worldbody>", flag + "<worldbody>")
    model, data, sim = both(tmp_path, text)
    assert sim.time_step == model.opt.timestep
    mujoco.mj_forward(model, data)
    mass_matrix = np.zeros((1, 1))
    mujoco.mj_fullM(model, data, mass_matrix)
    np.testing.assert_allclose(sim.mass_matrix("pendulum"), mass_matrix, rtol=1e-12)
    swing = []
    for _ in range(500):  # a full swing through the bottom and back
        mujoco.mj_step(model, data)
        sim.step()
        swing.append((data.qpos[0], sim.q[0]))
    swing = np.array(swing)
    assert np.ptp(swing[:, 0]) > 2.0
    np.testing.assert_allclose(swing[:, 1], swing[:, 0], rtol=0, atol=1e-10)


def test_a_scene_of_several_bodies_comes_to_rest_as_in_mujoco(tmp_path):
    # test_mjcf's five bodies (a servo lift, a turned table, a cube above it,
    # a ball above a mesh pedestal) without what links two of them, which
    # MuJoCo would simulate and Coulomb does not read. Where each body
    # rests: the servo's statics, the cube on the table, the ball on the
    # pedestal; MuJoCo's soft contacts sink by a few tenths of a millimetre,
    # Coulomb's by microns.
    text = several_bodies(tmp_path).read_text()
    text = re.sub(r"\s*<(equality|contact|keyframe)>.*?</\1>", "", text, flags=re.S)
    model, data, sim = both(tmp_path, text)
    mujoco.mj_step(model, data, nstep=300)
    mujoco.mj_kinematics(model, data)  # xpos after a step is the step's start's
    sim.run(300 * sim.time_step)
    for body in ("lift", "cube", "ball"):
        np.testing.assert_allclose(sim.body_position(body), data.body(body).xpos,
                                   atol=1e-3, err_msg=body)
    assert max(-contact.dist for contact in data.contact[:data.ncon]) < 1e-3


def test_a_keyframe_of_several_bodies_starts_them_as_in_mujoco(tmp_path):
    # MuJoCo's mj_resetDataKeyframe on the whole file, Coulomb's each body's
    # share of the key: the bodies start where MuJoCo puts them, and the
    # cube and the thrown ball fly as MuJoCo's for 10 steps (the same
    # symplectic Euler map for a free body; the lift's servo is implicit
    # here and explicit in MuJoCo's Euler, so it is compared at the start).
    text = several_bodies(tmp_path).read_text()
    text = re.sub(r"\s*<(equality|contact)>.*?</\1>", "", text, flags=re.S)
    path = tmp_path / "model.xml"
    path.write_text(text)
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("raised").id)
    mujoco.mj_forward(model, data)
    sim = coulomb.Simulation.from_file(str(path), keyframe="raised")
    for body in ("lift", "cube", "ball"):
        np.testing.assert_allclose(sim.body_position(body), data.body(body).xpos,
                                   atol=1e-12, err_msg=body)
    mujoco.mj_step(model, data, nstep=10)
    mujoco.mj_kinematics(model, data)  # xpos after a step is the step's start's
    sim.run(10 * sim.time_step)
    for body in ("cube", "ball"):
        np.testing.assert_allclose(sim.body_position(body), data.body(body).xpos,
                                   atol=1e-12, err_msg=body)


@pytest.mark.parametrize("floor, box", [("0.3", "0.2"), ("0.2", "0.3"), ("0.5", "0.2")])
def test_a_box_on_a_slope_slides_or_sticks_as_in_mujoco(tmp_path, floor, box):
    # The box's and the slope's frictions from their geoms, a pair's the
    # larger of the two in both engines (a file run by itself combines as
    # MuJoCo does): it slides at μ = 0.3 < tan 20° (0.364), whichever geom
    # has it, and sticks at μ = 0.5.
    model, data, sim = both(tmp_path, frictional_slope(f'friction="{floor}"',
                                                       f'friction="{box}"'))
    start_mujoco, start = data.qpos[:3].copy(), sim.body_position("box")
    for _ in range(200):  # 1 s
        mujoco.mj_step(model, data)
    sim.run(1.0)
    slide_mujoco = (data.qpos[:3] - start_mujoco) @ DOWNHILL
    slide = (sim.body_position("box") - start) @ DOWNHILL
    # Sliding, 0.296 m in both (0.1 % apart); sticking, MuJoCo's softer
    # stiction creeps 2 mm (Coulomb's 0.01 mm), the harmonic mean's μ =
    # 0.29 would slide 0.36 m.
    assert slide == pytest.approx(slide_mujoco, rel=0.01, abs=2.5e-3)


@pytest.mark.parametrize("floor, ball", [
    ("", 'contype="2" conaffinity="2"'),
    ('contype="0" conaffinity="1"', 'contype="0" conaffinity="1"'),
    ("", 'contype="0" conaffinity="1"'),
    ('contype="3" conaffinity="0"', 'contype="0" conaffinity="2"'),
])
def test_contype_and_conaffinity_filter_contacts_as_in_mujoco(tmp_path, floor, ball):
    # A ball dropped on the floor of its file: held where MuJoCo holds it
    # (within 1 mm: MuJoCo's soft contact sinks a little), or falling
    # through as MuJoCo's does, the same symplectic Euler fall (to 1e-9 m).
    text = ball_over(FLOOR.replace("/>", f" {floor}/>")).replace(
        'mass="1.5"/>', f'mass="1.5" {ball}/>')
    model, data, sim = both(tmp_path, text)
    steps = 750  # 1.5 s
    mujoco.mj_step(model, data, nstep=steps)
    mujoco.mj_kinematics(model, data)
    sim.run(steps * sim.time_step)
    mujoco_z, z = data.body("ball").xpos[2], sim.body_position("ball")[2]
    if mujoco_z > 0:
        assert z == pytest.approx(mujoco_z, abs=1e-3)
    else:
        assert z == pytest.approx(mujoco_z, abs=1e-9)


# A free body and two hinged links turned every way MJCF allows, on bodies,
# geoms and an inertial; MuJoCo's reading of each is the reference.
TURNED = """<mujoco model="turned">
  <compiler {compiler}/>
  <default><default class="tilted"><geom euler="{euler}"/></default></default>
  <worldbody>
    <body name="base" pos="0 0 1" {root}>
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.05" mass="1" {geom}/>
      <body name="arm" pos="0.3 0 0" {child}>
        <joint name="j1" type="hinge" axis="0 0 1"/>
        <inertial pos="0.1 0 0" mass="0.5" diaginertia="0.01 0.02 0.03" {geom}/>
        <body name="hand" pos="0.2 0.1 0" {root}>
          <joint name="j2" type="hinge" axis="1 0 0"/>
          <geom class="tilted" type="box" size="0.05 0.02 0.01" pos="0.05 0 0" mass="0.3"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


@pytest.mark.parametrize("compiler, root, child, geom", [
    ("", 'euler="30 20 10"', 'axisangle="1 1 0 40"', 'xyaxes="0 1 0 -1 0 1"'),
    ('eulerseq="XYZ"', 'euler="30 20 10"', 'zaxis="1 1 1"', 'euler="10 -20 30"'),
    ('eulerseq="zYx"', 'euler="30 20 10"', 'zaxis="0 0 -1"', 'axisangle="0 2 1 -70"'),
    ('angle="radian" eulerseq="ZYX"', 'euler="0.5 0.2 -0.1"',
     'axisangle="1 0 1 0.7"', 'quat="0.9 0.1 0.3 0.2"'),
])
def test_orientations_are_read_as_mujoco_reads_them(tmp_path, compiler, root, child, geom):
    # The free body's pose, and the mass matrix M(q), which every link's
    # pose, inertia and joint axis enter, to round-off.
    euler = "0.2 0.1 0.3" if "radian" in compiler else "10 20 30"
    text = TURNED.format(compiler=compiler, euler=euler, root=root, child=child, geom=geom)
    model, data, sim = both(tmp_path, text)
    mujoco.mj_forward(model, data)
    np.testing.assert_allclose(sim.body_orientation("turned"), data.body("base").xquat,
                               atol=1e-12)
    mass_matrix = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, mass_matrix)
    np.testing.assert_allclose(sim.mass_matrix("turned"), mass_matrix, rtol=0, atol=1e-12)


# Geoms placed and weighed by their classes, and bodies and geoms placed by
# nested <frame>s (one with a childclass), which Pinocchio's parser alone
# would misread: it takes neither a class's mass, pos nor orientation, and
# skips frames and what is in them.
FRAMED = """<mujoco model="framed">
  <default>
    <geom mass="0.4"/>
    <default class="pad"><geom type="box" size="0.02 0.01 0.03" pos="0 0.05 0.1"
                               euler="0 0 30" mass="0.2"/></default>
    <default class="arm"><joint axis="0 1 0"/><geom density="600"/></default>
    <default class="tilted"><geom euler="0 0 30"/></default>
  </default>
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.05"/>
      <geom class="pad"/>
      <geom class="tilted" type="capsule" fromto="0 0 0 0 0.2 0.1" size="0.01"/>
      <frame pos="0.2 0 0" euler="0 0 40" childclass="arm">
        <frame pos="0 0.1 0" axisangle="1 0 0 20">
          <body name="arm" pos="0.1 0 0">
            <joint name="j1"/>
            <geom type="capsule" fromto="0 0 0 0.2 0 0.1" size="0.02"/>
            <frame pos="0.1 0 0" euler="30 0 0">
              <geom class="pad" pos="0 0 0.05"/>
              <geom type="capsule" fromto="0 0 0 0 0.1 0" size="0.01" mass="0.3"/>
            </frame>
          </body>
        </frame>
        <geom type="sphere" size="0.03" pos="0 0 0.2"/>
      </frame>
    </body>
  </worldbody>
</mujoco>"""


def test_classes_and_frames_are_read_as_mujoco_reads_them(tmp_path):
    model, data, sim = both(tmp_path, FRAMED)
    mujoco.mj_forward(model, data)
    assert sim.joint_names("framed") == ["j1"]
    assert_same_dynamics(model, data, sim, "framed")


def test_a_servo_on_a_fixed_tendon_rests_where_mujocos_does(tmp_path):
    # A published gripper's law (gain 0.0157, biasprm 0 −100 −10, control
    # 255 from the keyframe) on L = ½ q1 + q2: both engines rest the fingers
    # where the law balances their weight, to the solve's tolerance.
    model, data, sim = both(tmp_path, gripper(GRIPPER_SERVO))
    mujoco.mj_resetDataKeyframe(model, data, model.key("open").id)
    sim = coulomb.Simulation.from_file(str(tmp_path / "model.xml"), keyframe="open")
    mujoco.mj_step(model, data, nstep=int(3.0 / model.opt.timestep))
    sim.run(3.0)
    assert data.ncon == 0
    np.testing.assert_allclose(sim.tendon_lengths("gripper"), data.ten_length, atol=1e-7)
    np.testing.assert_allclose(sim.joint_positions("gripper"), data.qpos, atol=1e-7)
    np.testing.assert_allclose(sim.joint_efforts("gripper"), data.qfrc_actuator, rtol=1e-5)
    np.testing.assert_allclose(sim.actuator_forces("gripper"), data.actuator_force,
                               rtol=1e-5)


def test_a_motor_on_a_fixed_tendon_moves_the_fingers_as_mujocos(tmp_path):
    # A constant force along the tendon: both engines take the same
    # symplectic Euler steps, so the fingers move alike to round-off.
    text = gripper('<motor tendon="split" gear="2"/>', "1.5").replace(
        'coef="0.5"', 'coef="-0.7"')
    model, data, sim = both(tmp_path, text)
    mujoco.mj_resetDataKeyframe(model, data, model.key("open").id)
    sim = coulomb.Simulation.from_file(str(tmp_path / "model.xml"), keyframe="open")
    for _ in range(100):
        mujoco.mj_step(model, data)
        sim.step()
    assert abs(data.qpos[1]) > 0.01 and abs(data.qpos[0]) > 0.01
    np.testing.assert_allclose(sim.joint_positions("gripper"), data.qpos, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sim.joint_efforts("gripper"), data.qfrc_actuator, rtol=1e-12)


# Bodies whose inertia MuJoCo takes from their geoms: decorative geoms that
# collide with nothing (contype = conaffinity = 0), a scaled mesh turned in
# its body, an ellipsoid, a box and a cylinder placed by fromto, densities,
# a geom outside inertiagrouprange, and a body with an <inertial> of its
# own, which inertiafromgeom="true" overrides.
FROM_GEOMS = """<mujoco model="chain">
  <compiler meshdir="meshes" COMPILER/>
  <asset><mesh name="block" file="block.obj" scale="0.5 1 0.25"/></asset>
  <default><default class="decor"><geom contype="0" conaffinity="0" group="2"/></default>
  </default>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0"/>
      <geom class="decor" type="capsule" fromto="0 0 0 0.4 0 0.1" size="0.03"/>
      <geom type="sphere" pos="0.4 0 0.1" size="0.05"/>
      <body name="forearm" pos="0.4 0 0.1">
        <joint name="elbow" axis="0 1 0"/>
        <geom type="mesh" mesh="block" pos="0.2 0 0" euler="10 20 30"/>
        <geom class="decor" type="box" fromto="0 0 0 0.3 0.1 0" size="0.02"/>
        <body name="hand" pos="0.4 0 0">
          <joint name="wrist" axis="1 0 0"/>
          <geom class="decor" type="ellipsoid" size="0.05 0.03 0.02" pos="0 0.05 0"/>
          <geom type="cylinder" fromto="0 0 0 0 0 0.2" size="0.02" density="500"/>
          <geom type="sphere" size="0.04" pos="0.1 0 0" group="6"/>
          <body name="tool" pos="0 0 0.2">
            <joint name="twist" axis="0 0 1"/>
            <inertial pos="0.01 0 0.05" mass="0.3" diaginertia="0.001 0.002 0.003"/>
            <geom type="box" size="0.05 0.02 0.01" pos="0.05 0 0" mass="0.2"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


@pytest.mark.parametrize("compiler", [
    "", 'inertiafromgeom="true"', 'inertiagrouprange="0 6"', 'inertiafromgeom="auto" '
    'inertiagrouprange="1 6"'])
def test_inertias_from_geoms_are_mujocos(tmp_path, compiler):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "block.obj").write_text(BLOCK_OBJ)
    model, data, sim = both(tmp_path, FROM_GEOMS.replace("COMPILER", compiler))
    data.qpos[:] = [0.3, -0.7, 0.5, 1.1]
    data.qvel[:] = [0.4, -0.2, 0.9, -1.3]
    mujoco.mj_forward(model, data)
    sim.set_state(data.qpos, data.qvel)
    assert_same_dynamics(model, data, sim, "chain")


def test_a_site_connect_holds_the_sites_together_as_mujocos(tmp_path):
    # Sites apart at qpos0: MuJoCo's connect by sites pulls them together
    # (not where qpos0 has them); both engines rest the pendulum level,
    # MuJoCo's soft equality sagging by 6e-5 rad.
    text = PENDULUM_MJCF.replace(
        '<body name="bob"', '<site name="hold" pos="1 0 0"/><body name="bob"').replace(
        "</body>", '<site name="tip" pos="0 0 -1"/></body>', 1).replace(
        "</mujoco>", '<equality><connect site1="tip" site2="hold"/></equality></mujoco>')
    model, data, sim = both(tmp_path, text)
    mujoco.mj_step(model, data, nstep=int(3.0 / model.opt.timestep))
    sim.run(3.0)
    assert data.qpos[0] == pytest.approx(-np.pi / 2, abs=2e-4)
    assert sim.q[0] == pytest.approx(data.qpos[0], abs=2e-4)


def turned_about_y(angle):
    """R_y(angle), a hinge's turn about its axis (0, 1, 0)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def relpose(p_AB, R_AB):
    """MuJoCo's relpose text: the position, then the unit quaternion w x y z
    of R_AB (a turn about y)."""
    half = np.arctan2(R_AB[0, 2], R_AB[0, 0]) / 2
    return " ".join(f"{x:.15g}" for x in [*p_AB, np.cos(half), 0.0, np.sin(half), 0.0])


@pytest.mark.parametrize("body2", ["world", "fore"])
def test_a_welds_relpose_holds_the_links_where_mujocos_does(tmp_path, body2):
    # The double pendulum (drawn horizontal, qpos0 = 0) with a weld whose
    # relpose (and anchor, a point of body2) asks for the elbow at 30°:
    # the forearm welded to the world (the shoulder then at 10° too), or the
    # upper arm to the forearm. MuJoCo holds body2's anchor at body1's point
    # relpos and body2 turned from body1 by relpose's quaternion. Both
    # engines hold the arm where the weld puts it, Coulomb's near-rigid weld
    # within 2e-3 rad, MuJoCo's soft one within 1e-2 (it sags 8e-3 rad).
    shoulder, elbow = np.radians(10), np.radians(30)
    R_W_upper = turned_about_y(shoulder)
    R_W_fore = R_W_upper @ turned_about_y(elbow)
    p_W_fore = R_W_upper @ [0.5, 0.0, 0.0]
    anchor = np.array([0.05, 0.0, 0.02])  # in body2
    if body2 == "world":
        body1, R_W1, p_W1, R_W2, p_W2 = "fore", R_W_fore, p_W_fore, np.eye(3), np.zeros(3)
    else:
        body1, R_W1, p_W1, R_W2, p_W2 = "upper", R_W_upper, np.zeros(3), R_W_fore, p_W_fore
    relpos = R_W1.T @ (p_W2 + R_W2 @ anchor - p_W1)
    weld = (f'<equality><weld body1="{body1}"'
            + ("" if body2 == "world" else f' body2="{body2}"')
            + ' anchor="{} {} {}"'.format(*anchor)
            + f' relpose="{relpose(relpos, R_W1.T @ R_W2)}"/></equality>')
    model, data, sim = both(tmp_path, double_pendulum(weld=weld))
    assert sim.warnings == []
    steps = int(2.0 / model.opt.timestep)
    elbows = []
    for _ in range(steps):
        mujoco.mj_step(model, data)
        elbows.append(data.qpos[1])
    q = sim.run(2.0).q
    np.testing.assert_allclose(elbows[steps // 2:], elbow, atol=1e-2)
    np.testing.assert_allclose(q[len(q) // 2:, 1], elbow, atol=2e-3)
    if body2 == "world":
        assert data.qpos[0] == pytest.approx(shoulder, abs=1e-2)
        assert sim.q[0] == pytest.approx(shoulder, abs=2e-3)
    else:
        assert np.ptp(q[:, 0]) > 0.5  # the shoulder swings, the elbow held


def test_a_tendon_spring_rests_the_fingers_where_mujocos_does(tmp_path):
    # The tendon's spring at rest at its length with the joints at their
    # springref (not at their ref, qpos0), damped: both engines rest where
    # k (L_0 − L) balances the weight.
    text = gripper("", "0").replace(
        '<fixed name="split"', '<fixed name="split" stiffness="50" damping="3"').replace(
        '<joint name="finger1" type="slide" axis="0 0 1"/>',
        '<joint name="finger1" type="slide" axis="0 0 1" ref="0.03" springref="0.012"/>').replace(
        '<keyframe><key name="open" ctrl="0"/></keyframe>', "")
    model, data, sim = both(tmp_path, text)
    mujoco.mj_step(model, data, nstep=int(3.0 / model.opt.timestep))
    sim.run(3.0)
    np.testing.assert_allclose(sim.tendon_lengths("gripper"), data.ten_length, atol=1e-7)
    np.testing.assert_allclose(sim.joint_positions("gripper"), data.qpos, atol=1e-7)


# A slider carrying a hinged arm, each pushed by a motor against its range:
# MuJoCo converts degrees for a hinge's range (here its class's) but not for
# a slide's, which Pinocchio's parser alone reads as degrees, and its range
# bounds qpos, ref included, which Pinocchio's takes about the ref.
RANGES = """<mujoco model="ranges">
  <default><default class="elbow"><joint range="-30 45"/></default></default>
  <worldbody>
    <body name="carriage">
      <joint name="slide" type="slide" axis="1 0 0" range="-0.02 0.04"/>
      <geom type="box" size="0.05 0.05 0.05" mass="1"/>
      <body name="arm" pos="0 0 0.1">
        <joint name="hinge" class="elbow" axis="0 1 0" ref="10" springref="20"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor joint="slide"/><motor joint="hinge"/></actuator>
  <keyframe><key name="push" qpos="0 0.2" ctrl="5 2"/></keyframe>
</mujoco>"""


def test_joint_ranges_stop_the_joints_where_mujocos_do(tmp_path):
    model, data, sim = both(tmp_path, RANGES.replace('<mujoco model="ranges">',
                                                      '<mujoco model="ranges"><option '
                                                      'gravity="0 0 0"/>'))
    mujoco.mj_resetDataKeyframe(model, data, model.key("push").id)
    sim = coulomb.Simulation.from_file(str(tmp_path / "model.xml"), keyframe="push")
    mujoco.mj_step(model, data, nstep=int(1.0 / model.opt.timestep))
    sim.run(1.0)
    np.testing.assert_allclose(model.jnt_range, [[-0.02, 0.04], np.radians([-30, 45])])
    np.testing.assert_allclose(sim.joint_positions("ranges"), [0.04, np.radians(45)],
                               atol=2e-4)
    # MuJoCo's soft limits give way by 0.15 mm and 2.5 mrad under the motors.
    np.testing.assert_allclose(sim.joint_positions("ranges"), data.qpos, atol=5e-3)


# A two-link arm whose links MuJoCo lightens by their gravcomp (0.5 and
# 0.3, the forearm's mass from its geom): −c m g at each centre of mass is
# an explicit force in both engines, whose symplectic Euler steps then agree
# to round-off.
GRAVCOMP = """<mujoco model="lightened">
  <option timestep="0.002"/>
  <worldbody>
    <body name="upper" pos="0 0 1" gravcomp="0.5">
      <joint name="shoulder" axis="0 1 0"/>
      <inertial pos="0.2 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
      <body name="fore" pos="0.4 0 0" gravcomp="0.3">
        <joint name="elbow" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0.1" size="0.02"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def test_gravity_compensation_swings_the_arm_as_mujocos(tmp_path):
    model, data, sim = both(tmp_path, GRAVCOMP)
    for _ in range(300):
        mujoco.mj_step(model, data)
        sim.step()
    assert np.abs(data.qpos).max() > 0.1  # it swung from qpos0
    np.testing.assert_allclose(sim.q, data.qpos, rtol=0, atol=1e-12)


@pytest.mark.parametrize("held", [False, True])
def test_a_tendon_equality_rests_the_sliders_where_mujocos_does(tmp_path, held):
    # MuJoCo's equality about the tendons' lengths at qpos0 (the joints'
    # refs), made stiff (time constant 2 δt) so that it gives way by 4e-5 m
    # under the springs: both engines rest at the constrained minimum of the
    # springs' energy, or, without tendon2, with the pair's length held at
    # L_0 + a_0 = 0.03 m and the free slider at its springref.
    text = TENDON_EQUALITY.replace('polycoef="0.01 -0.8 3 0 0"',
                                   'polycoef="0.01 -0.8 3 0 0" solref="0.004 1"')
    if held:
        text = text.replace(' tendon2="single"', "").replace("0.01 -0.8 3 0 0", "0.01")
    model, data, sim = both(tmp_path, text)
    mujoco.mj_step(model, data, nstep=int(4.0 / model.opt.timestep))
    sim.run(4.0)
    np.testing.assert_allclose(sim.joint_positions("tendon equality"), data.qpos, atol=5e-5)
    if held:
        assert data.ten_length[0] == pytest.approx(0.03, abs=1e-5)
        assert sim.tendon_lengths("tendon equality")[0] == pytest.approx(0.03, abs=1e-5)
    else:
        np.testing.assert_allclose(data.qpos, tendon_equality_rest(), atol=5e-5)


def mujoco_sensors(model, data):
    """MuJoCo's sensordata by Coulomb's sensor names (sensor<k> unnamed)."""
    return {model.sensor(k).name or f"sensor{k}":
            data.sensordata[model.sensor_adr[k]:model.sensor_adr[k] + model.sensor_dim[k]]
            for k in range(model.nsensor)}


def assert_same_sensors(model, data, sim, tree, skip=()):
    """Every sensor of `sim`'s tree `tree` but those in `skip` reads what
    MuJoCo's does at `data`'s state (after mj_forward), to round-off: a
    quaternion up to its sign, a long distance to 1e-12 of itself. Returns
    Coulomb's readings."""
    theirs, ours = mujoco_sensors(model, data), sim.sensor_data(tree)
    for name, value in ours.items():
        if name in skip:
            continue
        sign = np.sign(value[0] * theirs[name][0]) if len(value) == 4 else 1
        np.testing.assert_allclose(sign * value, theirs[name], rtol=1e-12, atol=1e-12,
                                   err_msg=name)
    return ours


def test_sensors_read_what_mujocos_do(tmp_path):
    # At a keyframe that turns and moves every joint, each sensor of every
    # kind read equals MuJoCo's to round-off (an orientation up to its sign);
    # the joint's actuator force once a step has applied it. MuJoCo's
    # sensordata after mj_step describe the state before it: mj_forward
    # reads them at the state after.
    path = tmp_path / "model.xml"
    path.write_text(SENSED_ARM)
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    with pytest.warns(UserWarning, match="'inertial' \\(framepos\\)"):
        sim = coulomb.Simulation.from_file(str(path), keyframe="moving")
    mujoco.mj_resetDataKeyframe(model, data, model.key("moving").id)
    for _ in range(2):
        mujoco.mj_forward(model, data)
        assert set(mujoco_sensors(model, data)) - set(sim.sensor_names("sensed arm")) == {
            "inertial"}  # not read: a warning
        # The actuator forces: none before a step.
        assert_same_sensors(model, data, sim, "sensed arm",
                            skip=("sensor13", "m_force") if sim.time == 0 else ())
        mujoco.mj_step(model, data)
        sim.step()


# Sites oriented and sized by their classes (each way of giving an
# orientation, a frame's childclass, a site's own quat over its class's
# euler) and placed by their ends, along any direction and along −z.
SITE_CLASSES = """<mujoco model="site classes">
  <compiler angle="radian" eulerseq="zyx"/>
  <default>
    <default class="e"><site euler="0.3 -0.5 1.1" pos="0.01 0.02 0.03"/></default>
    <default class="a"><site axisangle="1 2 3 0.7"/></default>
    <default class="x"><site xyaxes="0 1 0 -1 0.2 0.3"/></default>
    <default class="z"><site zaxis="0.2 -1 0.5" type="capsule" size="0.01 0.04"/></default>
    <default class="ends"><site type="box" size="0.02"/></default>
  </default>
  <worldbody>
    <body name="arm" pos="0.1 0.2 0.3" euler="0.2 0.1 -0.4">
      <joint name="swing" type="hinge" axis="1 0 0"/>
      <geom type="sphere" size="0.05" mass="1"/>
      <site name="e" class="e"/><site name="a" class="a" pos="0 0 0.1"/>
      <site name="x" class="x"/><site name="z" class="z"/>
      <site name="own" class="e" quat="0.9 0.1 -0.3 0.2"/>
      <frame pos="0.05 0 0" euler="0 0 0.6" childclass="a"><site name="framed"/></frame>
      <site name="ends" class="ends" fromto="0.1 -0.2 0.05 -0.1 0.3 0.2"/>
      <site name="down" class="ends" fromto="0 0 0.1 0 0 -0.1"/>
    </body>
  </worldbody>
  <sensor>
    <framepos name="e_p" objtype="site" objname="e"/>
    <framequat name="e_q" objtype="site" objname="e"/>
    <framequat name="a_q" objtype="site" objname="a"/>
    <framequat name="x_q" objtype="site" objname="x"/>
    <framequat name="z_q" objtype="site" objname="z"/>
    <framequat name="own_q" objtype="site" objname="own"/>
    <framepos name="framed_p" objtype="site" objname="framed"/>
    <framequat name="framed_q" objtype="site" objname="framed"/>
    <framepos name="ends_p" objtype="site" objname="ends"/>
    <framequat name="ends_q" objtype="site" objname="ends"/>
    <framequat name="down_q" objtype="site" objname="down"/>
  </sensor>
</mujoco>"""


def test_sites_are_placed_by_their_classes_and_ends_as_mujocos(tmp_path):
    model, data, sim = both(tmp_path, SITE_CLASSES)
    mujoco.mj_forward(model, data)
    assert set(assert_same_sensors(model, data, sim, "site classes")) == set(
        mujoco_sensors(model, data))


def test_touch_sensors_read_what_mujocos_do_at_rest(tmp_path):
    # A box at rest: MuJoCo's soft contact carries the same weight, to its
    # solver's tolerance, and splits it between the corners alike.
    model, data, sim = both(tmp_path, TOUCH)
    mujoco.mj_step(model, data, nstep=int(2.0 / model.opt.timestep))
    mujoco.mj_forward(model, data)
    sim.run(2.0)
    theirs, ours = mujoco_sensors(model, data), sim.sensor_data("touch")
    assert set(ours) == set(theirs)
    for name, value in ours.items():
        np.testing.assert_allclose(value, theirs[name], rtol=1e-4, atol=1e-9, err_msg=name)


def test_set_ctrl_drives_the_actuators_as_mujocos_ctrl(tmp_path):
    # A motor on the tendon and one on a finger's joint, their controls set
    # during the run as MuJoCo's ctrl is, the second beyond its ctrlrange
    # (clamped): both engines take the same steps, to round-off.
    text = gripper('<motor name="squeeze" tendon="split" gear="2"/>'
                   '<motor name="lift" joint="finger2" gear="0.5" ctrlrange="-1 1"/>',
                   "0 0").replace('coef="0.5"', 'coef="-0.7"')
    model, data, sim = both(tmp_path, text)
    assert sim.actuator_names("gripper") == ["squeeze", "lift"]
    for ctrl in ([1.5, 0.0], [0.4, 3.0], [-0.2, -0.5]):
        data.ctrl[:] = ctrl
        sim.set_ctrl("gripper", ctrl)
        for _ in range(100):
            mujoco.mj_step(model, data)
            sim.step()
        np.testing.assert_allclose(sim.joint_efforts("gripper"), data.qfrc_actuator,
                                   rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(sim.actuator_forces("gripper"), data.actuator_force,
                                   rtol=1e-12, atol=1e-15)
    assert abs(data.qpos[1]) > 0.01 and abs(data.qpos[0]) > 0.01
    np.testing.assert_allclose(sim.joint_positions("gripper"), data.qpos, rtol=0, atol=1e-12)


def dynamic_sensors_over_steps(tmp_path, text, keyframe, tree, names, steps=50):
    """Both engines from `keyframe` of the file `text`, each step: Coulomb's
    sensors `names` of `tree` take the last step's acceleration at the state
    after it; MuJoCo's, given that acceleration (its own, from its
    velocities) at the same state (mj_forward, then qacc set,
    mj_rnePostConstraint and mj_sensorAcc), equal them to 1e-9. MuJoCo's
    data at the end, with Coulomb's last readings as `coulomb`."""
    model, data, _ = both(tmp_path, text)
    sim = coulomb.Simulation.from_file(str(tmp_path / "model.xml"), keyframe=keyframe)
    mujoco.mj_resetDataKeyframe(model, data, model.key(keyframe).id)
    for _ in range(steps):
        velocity = data.qvel.copy()
        mujoco.mj_step(model, data)
        sim.step()
        acceleration = (data.qvel - velocity) / model.opt.timestep
        mujoco.mj_forward(model, data)
        data.qacc[:] = acceleration
        mujoco.mj_rnePostConstraint(model, data)
        mujoco.mj_sensorAcc(model, data)
        theirs, ours = mujoco_sensors(model, data), sim.sensor_data(tree)
        for name in names:
            np.testing.assert_allclose(ours[name], theirs[name], rtol=0, atol=1e-9,
                                       err_msg=name)
    return SimpleNamespace(qvel=data.qvel.copy(), coulomb=ours)


def test_force_torque_and_accelerometer_read_what_mujocos_do(tmp_path):
    # While the arm swings, each step: Coulomb's readings take the last
    # step's acceleration at the state after it; MuJoCo's, given that
    # acceleration (its own, from its velocities) at the same state
    # (mj_forward, then qacc set, mj_rnePostConstraint and mj_sensorAcc),
    # equal them to round-off: the same Newton–Euler over the subtree.
    data = dynamic_sensors_over_steps(tmp_path, HANGING_ARM, "swing", "hanging arm",
                                      ("sensor0", "sensor1", "sensor2"), steps=200)
    assert np.abs(data.qvel).max() > 0.5  # it swings


FRAME_ACCELERATIONS = """
    <framelinacc name="a" objtype="site" objname="finger"/>
    <frameangacc name="alpha" objtype="site" objname="finger"/>
    <framelinacc name="a_base" objtype="xbody" objname="base"/>
    <accelerometer name="imu_a" site="imu"/>
    <force name="base_f" site="imu"/><torque name="base_t" site="imu"/>
    <force name="elbow_f" site="knuckle"/><torque name="elbow_t" site="knuckle"/>
  </sensor>"""


def sensors_over_steps(tmp_path, text, keyframe, tree, steps=50, visit=None):
    """Both engines from `keyframe` of the file `text`: at it and after each
    of `steps` steps, every sensor of `tree` reads what MuJoCo's does
    (assert_same_sensors), Coulomb's readings passed to `visit` if given.
    Coulomb's last readings."""
    model, data, _ = both(tmp_path, text)
    sim = coulomb.Simulation.from_file(str(tmp_path / "model.xml"), keyframe=keyframe)
    mujoco.mj_resetDataKeyframe(model, data, model.key(keyframe).id)
    for _ in range(steps):
        mujoco.mj_forward(model, data)
        ours = assert_same_sensors(model, data, sim, tree)
        assert set(ours) == set(mujoco_sensors(model, data))
        if visit is not None:
            visit(ours)
        mujoco.mj_step(model, data)
        sim.step()
    return ours


WORLD_SUBTREE = ('<subtreecom name="all_com" body="world"/>'
                 '<subtreelinvel name="all_v" body="world"/>'
                 '<subtreeangmom name="all_L" body="world"/>\n  </sensor>')


def test_subtree_and_relative_frame_sensors_read_what_mujocos_do(tmp_path):
    # At a keyframe that moves every joint, and after each of 50 steps; the
    # world's subtree is the whole arm.
    ours = sensors_over_steps(tmp_path, FLOATING_ARM.replace("  </sensor>", WORLD_SUBTREE),
                              "moving", "floating arm")
    assert np.linalg.norm(ours["L"]) > 0.05 and np.linalg.norm(ours["link_L"]) > 0.01
    np.testing.assert_allclose(ours["all_L"], ours["L"], rtol=0, atol=1e-12)


def test_the_worlds_subtree_sums_every_robot_as_mujocos(tmp_path):
    # The pebble and the turning probe of RANGEFINDERS, two robots of the
    # file, the pebble thrown: the world's subtree holds both.
    text = RANGEFINDERS.replace("  </sensor>", WORLD_SUBTREE).replace(
        'qvel="0 0 0 0 0 0 0 0 0 0.3 -0.2 1.5 -3"', 'qvel="1 -2 3 4 0 0 0 0 0 0.3 -0.2 1.5 -3"')
    ours = sensors_over_steps(tmp_path, text, "turning", "probe")
    assert np.linalg.norm(ours["all_v"]) > 0.01 and np.linalg.norm(ours["all_L"]) > 0.01


ENERGIES = '<e_potential name="U"/><e_kinetic name="T"/>\n  </sensor>'


@pytest.mark.parametrize("springs", [False, True])
def test_energy_sensors_read_what_mujocos_do(tmp_path, springs):
    # The floating arm's energies over 50 steps; with springs on its joints
    # (at rest at their springref, not at qpos0) at the keyframe only, where
    # the two engines' states are the same (MuJoCo's springs are explicit
    # forces, Coulomb's implicit in the solve).
    text = FLOATING_ARM.replace("  </sensor>", ENERGIES)
    if springs:
        text = text.replace('axis="0 1 0.3"/>', 'axis="0 1 0.3" stiffness="3" springref="20"/>')
        text = text.replace('axis="1 0 0.2"/>', 'axis="1 0 0.2" stiffness="40" '
                            'springref="0.02"/>')
    ours = sensors_over_steps(tmp_path, text, "moving", "floating arm",
                              steps=1 if springs else 50)
    assert ours["T"][0] > 0.1 and abs(ours["U"][0]) > 1.0


def test_frame_accelerations_read_what_mujocos_do(tmp_path):
    # MuJoCo given the step's acceleration, as for the accelerometer; the
    # free base's load cell reads nothing (its free joint carries nothing),
    # the elbow's the wrench that moves the link and the tip.
    data = dynamic_sensors_over_steps(
        tmp_path, FLOATING_ARM.replace("  </sensor>", FRAME_ACCELERATIONS), "moving",
        "floating arm", ("a", "alpha", "a_base", "imu_a", "base_f", "base_t", "elbow_f",
                         "elbow_t"))
    ours = data.coulomb
    assert np.linalg.norm(ours["alpha"]) > 1.0 and np.linalg.norm(ours["elbow_t"]) > 0.01


# A probe falling and turning among the world's shapes, its rangefinders
# aimed at each (and at the sky), one on a link aimed back at the probe.
RANGEFINDERS = """<mujoco model="probe">
  <worldbody>
    <geom type="plane" size="0 0 0.1"/>
    <geom type="sphere" size="0.2" pos="1 0 1"/>
    <geom type="box" size="0.1 0.2 0.3" pos="0 1 1" euler="0 0 30"/>
    <geom type="capsule" fromto="-1 -0.3 0.95 -1.1 0.3 1.05" size="0.1"/>
    <geom type="cylinder" size="0.3 0.1" pos="0 -1 1" euler="80 0 0"/>
    <site name="sky" pos="0 0 3" euler="180 0 0"/><site name="over" pos="1 0 3" euler="180 0 0"/>
    <body name="pebble" pos="-3 3 0.05"><freejoint/><geom type="sphere" size="0.05" mass="0.1"/>
    </body>
    <body name="probe" pos="0 0 1">
      <freejoint/>
      <geom type="sphere" size="0.05" mass="1"/>
      <site name="east" euler="0 90 0"/><site name="north" euler="-90 0 0"/>
      <site name="west" euler="0 -90 0"/><site name="south" euler="90 0 0"/>
      <site name="down" euler="180 0 0"/><site name="up"/>
      <site name="slanted" pos="0.02 0 0" euler="150 20 0"/>
      <body name="arm" pos="0.2 0 0">
        <joint name="swing" type="hinge" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01" mass="0.1"/>
        <site name="back" euler="0 -90 0"/>
      </body>
    </body>
  </worldbody>
  <sensor>
    <rangefinder site="east"/><rangefinder site="north"/><rangefinder site="west"/>
    <rangefinder site="south"/><rangefinder site="down"/><rangefinder site="up"/>
    <rangefinder site="slanted"/><rangefinder site="back"/>
    <rangefinder name="capped" site="east" cutoff="0.1"/>
    <rangefinder name="sky" site="sky"/><rangefinder name="over" site="over"/>
  </sensor>
  <keyframe><key name="turning" qpos="-3 3 0.05 1 0 0 0 0 0 1 1 0 0 0 0.2"
                 qvel="0 0 0 0 0 0 0 0 0 0.3 -0.2 1.5 -3"/>
  </keyframe>
</mujoco>"""


def test_rangefinders_read_what_mujocos_do(tmp_path):
    # At each of 50 steps, after mj_forward: every shape met where MuJoCo's
    # ray meets it, the sky −1, the probe's own sphere left out but met from
    # its arm (and the arm met from the probe), the cutoff applied. A world
    # site's ray leaves out the world's geoms, as MuJoCo's: from above, the
    # probe is met, the world's sphere and plane are not (the pebble, the
    # file's first body, is the robot that holds the world's geoms).
    ours = sensors_over_steps(tmp_path, RANGEFINDERS, "turning", "probe")
    assert ours["sensor5"][0] == -1.0 and ours["capped"][0] == 0.1
    assert 1.5 < ours["sky"][0] < 2 and ours["over"][0] == -1.0
    assert all(0 < ours[f"sensor{k}"][0] < 2 for k in (0, 1, 2, 3, 4, 6, 7))


def test_a_scan_of_rays_meets_what_mujocos_multiray_does(tmp_path):
    # From the turning probe of RANGEFINDERS at its keyframe, 500 directions
    # over the sphere, the probe left out: the world's plane, sphere, box,
    # capsule and cylinder, the arm and the pebble where mj_multiRay meets
    # them (−1 for nothing in both).
    model, data, _ = both(tmp_path, RANGEFINDERS)
    sim = coulomb.Simulation.from_file(str(tmp_path / "model.xml"), keyframe="turning")
    mujoco.mj_resetDataKeyframe(model, data, model.key("turning").id)
    mujoco.mj_forward(model, data)
    directions = np.random.default_rng(3).normal(size=(500, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    origin = data.xpos[model.body("probe").id].copy()
    geoms, theirs = np.zeros(500, dtype=np.int32), np.zeros(500)
    mujoco.mj_multiRay(model, data, origin, directions.flatten(), None, 1,
                       model.body("probe").id, geoms, theirs, None, 500, 1e9)
    ours = sim.cast_rays(origin, directions, exclude="probe")
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    assert len(set(geoms[geoms >= 0])) >= 6


# A probe gliding (no gravity) over a plane of half-sizes 1 × 0.5, turned
# 30° about z, then past its edge: MuJoCo's rays meet a plane only within
# its size (an axis of size 0 unbounded), while contacts see it whole.
FINITE_PLANE = """<mujoco model="glide">
  <option gravity="0 0 0"/>
  <worldbody>
    <geom type="plane" size="1 0.5 0.1" pos="0.2 0 0" euler="0 0 30"/>
    <geom type="plane" size="0 0.6 0.1" pos="0 0 -0.5"/>
    <body name="probe" pos="0.5 0.3 1">
      <freejoint/>
      <geom type="sphere" size="0.05" mass="1"/>
      <site name="down" euler="180 0 0"/>
    </body>
  </worldbody>
  <sensor><rangefinder name="down" site="down"/></sensor>
  <keyframe><key name="gliding" qpos="0.5 0.3 1 1 0 0 0" qvel="2 0.5 0 0 0 0"/></keyframe>
</mujoco>"""


def test_a_rangefinder_meets_a_plane_within_its_size_as_mujocos(tmp_path):
    # Over 0.8 s: the first plane (1 m below), then the second one's strip
    # (1.5 m below, unbounded along x), then nothing.
    readings = set()
    sensors_over_steps(tmp_path, FINITE_PLANE, "gliding", "glide", steps=400,
                       visit=lambda ours: readings.add(round(float(ours["down"][0]), 6)))
    assert readings == {1.0, 1.5, -1.0}


# A ram on a vertical slide, pushed onto the floor by its motor: the slide
# transmits the motor's push, which the floor's contact balances with the
# ram's weight; the contact force counts on the ram's subtree.
RAM = """<mujoco model="ram">
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="ram" pos="0 0 0.2">
      <joint name="lift" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.1 0.1 0.05" mass="1"/>
      <site name="load_cell" pos="0 0 0.05"/>
    </body>
  </worldbody>
  <actuator><motor name="press" joint="lift"/></actuator>
  <sensor><force site="load_cell"/><torque site="load_cell"/><touch site="load_cell"/>
  </sensor>
  <keyframe><key name="pressed" qpos="-0.15" ctrl="-5"/></keyframe>
</mujoco>"""


def test_a_force_sensor_counts_the_contacts_on_its_links(tmp_path):
    # At rest the slide pushes the ram down by the motor's 5 N (the floor
    # carries m g + 5 N): MuJoCo's soft contact carries the same load.
    model, data, _ = both(tmp_path, RAM)
    sim = coulomb.Simulation.from_file(str(tmp_path / "model.xml"), keyframe="pressed")
    mujoco.mj_resetDataKeyframe(model, data, model.key("pressed").id)
    mujoco.mj_step(model, data, nstep=int(2.0 / model.opt.timestep))
    mujoco.mj_forward(model, data)
    sim.run(2.0)
    ours, theirs = sim.sensor_data("ram"), mujoco_sensors(model, data)
    np.testing.assert_allclose(ours["sensor0"], [0.0, 0.0, -5.0], atol=1e-5)
    np.testing.assert_allclose(ours["sensor1"], [0.0, 0.0, 0.0], atol=1e-5)
    for name in ("sensor0", "sensor1"):
        np.testing.assert_allclose(ours[name], theirs[name], atol=1e-4, err_msg=name)


def held_hand(weld, mocap=""):
    """A free box, the hand, in a file whose weld (`weld`: its attributes)
    holds it to the world, or in MuJoCo's form to a `mocap` body at the
    world's origin."""
    return f"""<mujoco model="hand">
  <option timestep="0.002"/>
  <worldbody>
    {mocap}
    <body name="hand" pos="{{pos}}" quat="{{quat}}">
      <freejoint/>
      <geom type="box" size="0.05 0.03 0.02" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <equality><weld name="grab" body1="hand" {weld}/></equality>
</mujoco>"""


def hand_files(tmp_path, weld, pos, quat):
    """The hand held by `weld` in Coulomb (to the world) and in MuJoCo (to a
    mocap body there, its weld as stiff as its step allows)."""
    fill = {"pos": " ".join(map(str, pos)), "quat": " ".join(map(str, quat))}
    coulomb_file, mujoco_file = tmp_path / "coulomb.xml", tmp_path / "mujoco.xml"
    coulomb_file.write_text(held_hand(weld).format(**fill))
    mujoco_file.write_text(held_hand(weld + ' body2="target" solref="0.004 1"',
                                     '<body name="target" mocap="true"/>').format(**fill))
    model = mujoco.MjModel.from_xml_path(str(mujoco_file))
    return model, mujoco.MjData(model), coulomb.Simulation.from_file(str(coulomb_file))


def quaternion_about(axis, angle):
    return np.array([np.cos(angle / 2), *(np.sin(angle / 2) * np.asarray(axis, float))])


def rotation(quaternion):
    w, x, y, z = quaternion / np.linalg.norm(quaternion)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def turn_between(R_a, R_b):
    """The angle [rad] of the turn from R_a to R_b."""
    return np.arccos(np.clip((np.trace(R_a.T @ R_b) - 1) / 2, -1.0, 1.0))


def test_a_weld_to_a_moved_frame_follows_it_as_mujocos_to_a_mocap_body(tmp_path):
    # A weld with a relpose (body1's point relpos at the frame's origin, the
    # frame turned from body1 by 20° about y) holds the hand to a frame T
    # that moves on a loop and turns about z: Coulomb's set_connection_frame,
    # MuJoCo's mocap_pos and mocap_quat, both set to T at the step's end
    # before it. The hand keeps T = X_hand X_rel, Coulomb's near-rigid weld
    # within 1 mm and 0.01 rad, MuJoCo's soft one within 1 cm and 0.05 rad,
    # under gravity.
    relpos, q_rel = np.array([0.05, 0.0, 0.02]), quaternion_about([0, 1, 0], np.radians(20))
    R_rel = rotation(q_rel)
    weld = ('relpose="{} {} {} {} {} {} {}"'.format(*relpos, *q_rel))
    start = -R_rel.T @ relpos  # T at the world's frame at the start
    model, data, sim = hand_files(tmp_path, weld, start, q_rel * [1, -1, -1, -1])
    assert sim.connection_names("hand") == ["grab"] and sim.connection_active("hand", "grab")

    def frame(t):
        p = [0.2 * np.sin(np.pi * t), 0.1 * np.sin(2 * np.pi * t), 0.1 * (1 - np.cos(np.pi * t))]
        return np.array(p), quaternion_about([0, 0, 1], 0.5 * np.sin(np.pi * t))

    worst = {"coulomb": (0.0, 0.0), "mujoco": (0.0, 0.0)}
    for k in range(1, int(1.5 / model.opt.timestep) + 1):
        p_T, q_T = frame(k * model.opt.timestep)
        sim.set_connection_frame("hand", "grab", p_T, q_T)
        sim.step()
        data.mocap_pos[0], data.mocap_quat[0] = p_T, q_T
        mujoco.mj_step(model, data)
        hands = {"coulomb": (sim.body_position("hand"), rotation(sim.body_orientation("hand"))),
                 "mujoco": (data.body("hand").xpos, data.body("hand").xmat.reshape(3, 3))}
        for engine, (p, R) in hands.items():
            miss = (np.linalg.norm(p + R @ relpos - p_T), turn_between(R @ R_rel, rotation(q_T)))
            worst[engine] = tuple(map(max, worst[engine], miss))
    assert worst["coulomb"][0] < 1e-3 and worst["coulomb"][1] < 1e-2, worst
    assert worst["mujoco"][0] < 1e-2 and worst["mujoco"][1] < 5e-2, worst
    position, quaternion = sim.connection_frame("hand", "grab")
    np.testing.assert_allclose(position, frame(1.5)[0], atol=1e-15)
    np.testing.assert_allclose(quaternion, frame(1.5)[1], atol=1e-15)


def test_a_weld_switched_on_and_off_holds_and_lets_go_as_mujocos(tmp_path):
    # The hand, its weld off in the file (active="false"), falls freely for
    # 0.2 s; switched on, it is pulled back to the frame (held 1 m up) and
    # held; switched off at 0.6 s, it falls freely again. Free fall by the
    # steps' own map (z'' = −g to round-off in the finite differences);
    # held within 1 mm in Coulomb, 1 cm in MuJoCo; the engines then fall
    # together from there.
    model, data, sim = hand_files(tmp_path, 'active="false" relpose="0 0 0 1 0 0 0"',
                                  [0, 0, 1], [1, 0, 0, 0])
    assert not sim.connection_active("hand", "grab")
    sim.set_connection_frame("hand", "grab", [0, 0, 1])
    data.mocap_pos[0] = [0, 0, 1]
    dt, g = model.opt.timestep, 9.81
    heights = {"coulomb": [], "mujoco": []}
    for k in range(1, int(0.8 / dt) + 1):
        if k == int(0.2 / dt) or k == int(0.6 / dt):
            on = k == int(0.2 / dt)
            sim.set_connection_active("hand", "grab", on)
            data.eq_active[0] = on
        sim.step()
        mujoco.mj_step(model, data)
        heights["coulomb"].append(sim.body_position("hand")[2])
        heights["mujoco"].append(data.body("hand").xpos[2])
    for engine, z in heights.items():
        z = np.array(z)
        falling = [z[: int(0.2 / dt) - 1], z[int(0.6 / dt):]]
        for part in falling:
            np.testing.assert_allclose(np.diff(part, 2) / dt**2, -g, atol=1e-6, err_msg=engine)
        held = z[int(0.5 / dt): int(0.6 / dt) - 1]
        assert np.abs(held - 1.0).max() < (1e-3 if engine == "coulomb" else 1e-2), engine
    assert np.abs(np.array(heights["coulomb"]) - heights["mujoco"])[-1] < 1e-2
    assert not sim.connection_active("hand", "grab")


def mocap_scene(equality, mocap_pose):
    """MuJoCo's teleoperation form: a free hand held by `equality` to a
    mocap body `target` at `mocap_pose` (its pos and quat attributes), and a
    mocap paddle with a ball resting on it."""
    return f"""<mujoco model="teleop">
  <option timestep="0.002"/>
  <worldbody>
    <body name="target" mocap="true" {mocap_pose}><site name="grip" pos="0.02 0 0"/></body>
    <body name="hand" pos="0.1 0.2 0.9" quat="0.9 0.1 0.3 0.2">
      <freejoint/>
      <site name="handle" pos="0 0.03 0"/>
      <geom type="box" size="0.05 0.03 0.02" mass="1" contype="0" conaffinity="0"/>
    </body>
    <body name="paddle" mocap="true" pos="1 0 0.5">
      <geom type="box" size="0.2 0.2 0.01"/>
    </body>
    <body name="ball" pos="1 0 0.56">
      <freejoint/>
      <geom type="sphere" size="0.05" mass="0.2"/>
    </body>
  </worldbody>
  <equality>{equality}</equality>
</mujoco>"""


def rigid_motion(t):
    """D(t) = (R_D, p_D) that drive_mocaps moves the target by: a loop and
    a turn about z."""
    R_D = rotation(quaternion_about([0, 0, 1], 0.5 * np.sin(np.pi * t)))
    p_D = np.array([0.2 * np.sin(np.pi * t), 0.1 * np.sin(2 * np.pi * t), 0.1 * (1 - np.cos(np.pi * t))])
    return R_D, p_D


def drive_mocaps(tmp_path, equality, mocap_pose, seconds):
    """Both engines on mocap_scene, the target moved by a rigid motion D(t)
    (a loop and a turn about z, from its file pose) and the paddle raised
    0.1 m and slid 0.05 m along x: the hand's and the ball's poses at each
    step, and D's final value applied to the file's poses."""
    path = tmp_path / "teleop.xml"
    path.write_text(mocap_scene(equality, mocap_pose))
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.mocap_names == ["target", "paddle"]
    p0, q0 = sim.mocap_pose("target")
    np.testing.assert_allclose(p0, data.mocap_pos[0], atol=1e-12)
    np.testing.assert_allclose(q0, data.mocap_quat[0], atol=1e-12)
    R0 = rotation(q0)

    def moved(t):  # D(t) X_WM0
        R_D, p_D = rigid_motion(t)
        return R_D @ p0 + p_D, quaternion_from(R_D @ R0), R_D, p_D

    hands, balls = {"coulomb": [], "mujoco": []}, {"coulomb": [], "mujoco": []}
    dt = model.opt.timestep
    for k in range(1, int(seconds / dt) + 1):
        t = k * dt
        p_T, q_T, _, _ = moved(t)
        paddle = [1 + 0.05 * min(t, 1.0), 0, 0.5 + 0.1 * min(t, 1.0)]
        sim.set_mocap_pose("target", p_T, q_T)
        sim.set_mocap_pose("paddle", paddle)
        sim.step()
        data.mocap_pos[:] = [p_T, paddle]
        data.mocap_quat[0] = q_T
        mujoco.mj_step(model, data)
        hands["coulomb"].append((sim.body_position("hand"), rotation(sim.body_orientation("hand"))))
        hands["mujoco"].append((data.body("hand").xpos.copy(), data.body("hand").xmat.reshape(3, 3).copy()))
        balls["coulomb"].append(sim.body_position("ball"))
        balls["mujoco"].append(data.body("ball").xpos.copy())
    return sim, hands, balls, moved(seconds)


def quaternion_from(R):
    """The unit quaternion (w, x, y, z) of rotation R (w ≥ 0)."""
    w = np.sqrt(max(0.0, 1 + np.trace(R))) / 2
    if w > 1e-3:
        return np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w),
                         (R[1, 0] - R[0, 1]) / (4 * w)])
    quaternion = np.zeros(4)
    mujoco.mju_mat2Quat(quaternion, R.reshape(-1))
    return quaternion


def test_a_hand_welded_to_a_mocap_body_follows_it_as_in_mujoco(tmp_path):
    # MuJoCo's teleoperation file read as it is: the hand welded (no
    # relpose: where it is at qpos0 relative to the target) to a mocap body
    # placed and turned away from the origin, whose pose a script sets.
    # Moved by a rigid motion D, the hand must be at D X_WH0: Coulomb within
    # 1 mm and 0.01 rad, MuJoCo (weld solref 0.004 1) within 2 cm, 0.05 rad.
    # The ball rides up on the paddle raised 0.1 m, resting on its top at
    # the end within 1 mm in both engines; slid 0.05 m along x, the paddle
    # does not drag it (a mocap body's geom has no velocity, its pose jumps
    # each step: no friction acts along a surface that does not move), in
    # both engines alike.
    sim, hands, balls, final = drive_mocaps(
        tmp_path, '<weld name="grab" body1="hand" body2="target" solref="0.004 1"/>',
        'pos="0.3 -0.2 0.7" quat="0.8 0.2 -0.1 0.4"', 1.5)
    assert sim.connection_names("hand") == ["grab"]
    np.testing.assert_allclose(sim.connection_frame("hand", "grab")[0], final[0], atol=1e-15)
    R_H0 = rotation(np.array([0.9, 0.1, 0.3, 0.2]))
    p_H0 = np.array([0.1, 0.2, 0.9])
    _, _, R_D, p_D = final
    for engine, (tolerance, turn) in {"coulomb": (1e-3, 1e-2),
                                      "mujoco": (2e-2, 5e-2)}.items():
        p, R = hands[engine][-1]
        assert np.linalg.norm(p - (R_D @ p_H0 + p_D)) < tolerance, engine
        assert turn_between(R, R_D @ R_H0) < turn, engine
        ball = balls[engine][-1]
        np.testing.assert_allclose(ball[:2], [1.0, 0.0], atol=1e-3, err_msg=engine)
        assert abs(ball[2] - (0.6 + 0.01 + 0.05)) < 1e-3, (engine, ball)
    assert np.linalg.norm(balls["coulomb"][-1] - balls["mujoco"][-1]) < 1e-3


def test_a_mocap_body_that_holds_a_point_of_the_hand_leads_it_as_in_mujoco(tmp_path):
    # The equality the other way round (body1 the mocap body): a connect of
    # the target's point `anchor` to the hand's point there at qpos0. Moved
    # by D, that point of the hand is at D X_WM0 anchor: Coulomb within 1 mm
    # at every step, MuJoCo within 1 cm.
    anchor = np.array([0.05, 0.02, -0.03])
    sim, hands, _, _ = drive_mocaps(
        tmp_path, '<connect body1="target" body2="hand" anchor="{} {} {}" '
        'solref="0.004 1"/>'.format(*anchor), 'pos="0.1 0.2 0.8"', 1.0)
    p_M0 = np.array([0.1, 0.2, 0.8])
    R_H0 = rotation(np.array([0.9, 0.1, 0.3, 0.2]))
    point_on_hand = R_H0.T @ (p_M0 + anchor - np.array([0.1, 0.2, 0.9]))
    dt = 0.002
    for engine, tolerance in {"coulomb": 1e-3, "mujoco": 1e-2}.items():
        worst = 0.0
        for k, (p, R) in enumerate(hands[engine], start=1):
            R_D, p_D = rigid_motion(k * dt)
            worst = max(worst, np.linalg.norm(p + R @ point_on_hand - (R_D @ (p_M0 + anchor) + p_D)))
        assert worst < tolerance, (engine, worst)


def test_a_mocap_bodys_site_holds_the_hands_site_wherever_it_goes_as_in_mujoco(tmp_path):
    # A connect by sites, site1 the mocap body's: the sites are pulled
    # together whatever qpos0 says (here 0.1 m apart), then the hand's site
    # follows the mocap body's as it moves: at the end within 1 mm of it
    # in Coulomb (0.34 mm), 2 cm in MuJoCo (12.7 mm).
    sim, hands, _, (p_T, q_T, _, _) = drive_mocaps(
        tmp_path, '<connect site1="grip" site2="handle" solref="0.004 1"/>',
        'pos="0.1 0.2 0.8"', 1.0)
    grip = p_T + rotation(q_T) @ [0.02, 0, 0]
    for engine, tolerance in {"coulomb": 1e-3, "mujoco": 2e-2}.items():
        p, R = hands[engine][-1]
        assert np.linalg.norm(p + R @ [0, 0.03, 0] - grip) < tolerance, engine


def test_a_keyframe_places_the_mocap_bodies_as_mujocos(tmp_path):
    # <key mpos mquat>: each mocap body starts there (the weld to the
    # target holds to it), as MuJoCo's mj_resetDataKeyframe puts them; the
    # hand, its qpos from the key, starts held. mpos of the wrong size is
    # refused at the keyframe.
    hand_q = [0.4, 0.1, 1.1, 1, 0, 0, 0]
    key = ('<keyframe><key name="held" qpos="{} 1 0 0.56 1 0 0 0" '
           'mpos="0.4 0.1 1.0 1 0 0.5" mquat="0 0 0 1 1 0 0 0"/></keyframe>'.format(
               " ".join(map(str, hand_q))))
    path = tmp_path / "teleop.xml"
    path.write_text(mocap_scene('<weld name="grab" body1="hand" body2="target"/>',
                                'pos="0.1 0.2 0.8"').replace("</mujoco>", key + "</mujoco>"))
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("held").id)
    sim = coulomb.Simulation.from_file(str(path), keyframe="held")
    for m, name in enumerate(["target", "paddle"]):
        position, quaternion = sim.mocap_pose(name)
        np.testing.assert_allclose(position, data.mocap_pos[m], atol=1e-15)
        np.testing.assert_allclose(np.abs(quaternion), np.abs(data.mocap_quat[m]), atol=1e-15)
    np.testing.assert_allclose(sim.connection_frame("hand", "grab")[0], [0.4, 0.1, 1.0],
                               atol=1e-15)
    np.testing.assert_allclose(sim.body_position("hand"), hand_q[:3], atol=1e-15)
    path.write_text(path.read_text().replace('mpos="0.4 0.1 1.0 1 0 0.5"', 'mpos="0.4 0.1 1.0"'))
    with pytest.raises(ValueError, match="mpos has 3 numbers, expected 3 for each of the 2"):
        coulomb.Simulation.from_file(str(path), keyframe="held")


GRASP = """<mujoco model="grasp">
  <option timestep="0.002"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body name="target" mocap="true" pos="0 0 0.14"/>
    <body name="hand" pos="0 0 0.14">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.02" mass="1" contype="0" conaffinity="0"/>
    </body>
    <body name="object" pos="0 0 0.04">
      <freejoint/>
      <geom type="box" size="0.04 0.04 0.04" mass="0.3"/>
    </body>
  </worldbody>
  <equality>
    <weld name="drive" body1="hand" body2="target" solref="0.004 1"/>
    <weld name="grasp" body1="object" body2="hand" active="false" solref="0.004 1"/>
  </equality>
</mujoco>"""


def test_an_object_grasped_by_a_weld_to_the_hand_is_carried_and_let_go_as_in_mujoco(tmp_path):
    # MuJoCo's grasp: a weld between two top-level bodies, the object and
    # the hand, off in the file, switched on to pick the object up (held
    # 0.1 m below the hand, as at qpos0), carried 0.3 m over and up by the
    # mocap target, switched off to let it fall. Carried, the object is
    # where the hand holds it: Coulomb within 0.1 mm (2.3 µm), MuJoCo within
    # 1 mm (0.13 mm); let go, it rests on the floor 0.3 m over in both, within
    # 5 mm of each other (2.8 mm).
    path = tmp_path / "grasp.xml"
    path.write_text(GRASP)
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.warnings == []
    assert sim.connection_names("object") == ["grasp"]
    assert not sim.connection_active("object", "grasp")
    dt = model.opt.timestep
    carried = {"coulomb": 0.0, "mujoco": 0.0}
    for k in range(1, int(1.8 / dt) + 1):
        t = k * dt
        if k in (int(0.2 / dt), int(1.2 / dt)):
            on = k == int(0.2 / dt)
            sim.set_connection_active("object", "grasp", on)
            data.eq_active[1] = on
        s = np.clip((t - 0.2) / 1.0, 0, 1)
        s = s * s * (3 - 2 * s)  # smooth: at rest at both ends
        target = [0.3 * s, 0, 0.14 + 0.3 * s]
        sim.set_mocap_pose("target", target)
        data.mocap_pos[0] = target
        sim.step()
        mujoco.mj_step(model, data)
        if 0.4 < t < 1.2:
            hand = {"coulomb": sim.body_position("hand"), "mujoco": data.body("hand").xpos}
            held = {"coulomb": sim.body_position("object"),
                    "mujoco": data.body("object").xpos}
            for engine in carried:
                miss = np.linalg.norm(held[engine] - (hand[engine] - [0, 0, 0.1]))
                carried[engine] = max(carried[engine], miss)
    assert carried["coulomb"] < 1e-4 and carried["mujoco"] < 1e-3, carried
    ours, theirs = sim.body_position("object"), data.body("object").xpos
    np.testing.assert_allclose(ours, [0.3, 0, 0.04], atol=2e-3)
    np.testing.assert_allclose(ours, theirs, atol=5e-3)


# Eggs (ellipsoids of semi-axes 0.1, 0.05, 0.2) set down on their flattest
# side (the shortest semi-axis, the body's y, turned vertical): one on the
# floor, one on a table (a box: a pair Coal's GJK solves), a light one on
# top of the first, egg on egg. They rest where the closed form puts them
# (centres at 0.05, the table top + 0.05, and 0.15 on the lower egg's top
# point), as MuJoCo's do, whose soft contacts sink by up to a millimetre.
EGGS = """<mujoco model="eggs">
  <option timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <geom name="table" type="box" size="0.3 0.3 0.1" pos="1 0 0.1"/>
    <body name="floor_egg" pos="0 0 0.05" euler="90 0 0">
      <freejoint/><geom type="ellipsoid" size="0.1 0.05 0.2" mass="1"/>
    </body>
    <body name="table_egg" pos="1 0 0.25" euler="90 30 0">
      <freejoint/><geom type="ellipsoid" size="0.1 0.05 0.2" mass="1"/>
    </body>
    <body name="top_egg" pos="0 0 0.15" euler="90 90 0">
      <freejoint/><geom type="ellipsoid" size="0.1 0.05 0.2" mass="0.2"/>
    </body>
  </worldbody>
</mujoco>"""


def test_ellipsoids_rest_on_their_flattest_side_as_in_mujoco(tmp_path):
    model, data, sim = both(tmp_path, EGGS)
    steps = 200  # 1 s
    mujoco.mj_step(model, data, nstep=steps)
    mujoco.mj_kinematics(model, data)
    trajectory = sim.run(steps * sim.time_step)
    assert trajectory.summary["momentum_error_max"] < 1e-6
    for body, height in (("floor_egg", 0.05), ("table_egg", 0.25), ("top_egg", 0.15)):
        position = sim.body_position(body)
        assert position[2] == pytest.approx(height, abs=1e-4), body
        # MuJoCo's soft contacts sink the top egg by ~1 mm (two in series),
        # its soft stiction lets the lower egg creep by a few mm.
        assert position[2] == pytest.approx(data.body(body).xpos[2], abs=1.5e-3), body
        np.testing.assert_allclose(position, data.body(body).xpos, atol=5e-3, err_msg=body)
        # Flat: the body's y-axis vertical to within a few mrad (the table
        # egg rocks by about 1 mrad: Coal's GJK places its contact point on
        # the curved surface to a fraction of a mm, and rocking without
        # slip does not dissipate).
        w, x, y, z = sim.body_orientation(body)
        assert abs(2 * (y * z + w * x)) > np.cos(5e-3), body
    assert len(sim.contacts()["body_a"]) == 3


def test_a_tilted_egg_rocks_at_the_closed_form_frequency(tmp_path):
    # The egg on its flattest side, tilted by θ0 = 0.05 rad in the plane of
    # its semi-axes a = 0.1 and b = 0.05 (about its c-axis), released at
    # rest, just touching: it rocks without slipping about the bottom point,
    # whose radius of curvature is ρ = a²/b, so that for small θ the centre
    # rises by (ρ − b) θ²/2 and ω² = m g (ρ − b) / (I_c + m b²), I_c =
    # m (a² + b²)/5: a period of 0.366 s. Its energy never grows.
    a, b, c, m, theta0 = 0.1, 0.05, 0.2, 1.0, 0.05
    # Body y up (about x by 90°), then tilted about world y (the body's −z).
    turn = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    tilt = np.array([[np.cos(theta0), 0, np.sin(theta0)], [0, 1, 0],
                     [-np.sin(theta0), 0, np.cos(theta0)]])
    rotation = tilt @ turn
    height = np.linalg.norm(np.diag([a, b, c]) @ rotation.T @ [0, 0, 1])
    quaternion = np.empty(4)
    mujoco.mju_mat2Quat(quaternion, rotation.flatten())
    text = f"""<mujoco><option timestep="0.001"/><worldbody>
      <geom type="plane" size="3 3 0.1"/>
      <body name="egg" pos="0 0 {float(height)!r}" quat="{' '.join(repr(float(q)) for q in quaternion)}">
        <freejoint/><geom type="ellipsoid" size="{a} {b} {c}" mass="{m}"/>
      </body></worldbody></mujoco>"""
    _, _, sim = both(tmp_path, text)
    tilts, energies = [], []
    for _ in range(1500):
        trajectory = sim.run(sim.time_step)
        w, x, y, z = sim.body_orientation("egg")
        tilts.append(2 * (x * z - w * y))  # the body x-axis' world z: −sin θ
        energies.append(trajectory.summary["energy_final"])
    omega = np.sqrt(m * 9.81 * (a * a / b - b) / (m * (a * a + b * b) / 5 + m * b * b))
    tilts = np.array(tilts)
    crossings = np.flatnonzero((tilts[:-1] < 0) != (tilts[1:] < 0)) * sim.time_step
    assert len(crossings) >= 7
    period = 2 * np.mean(np.diff(crossings))
    assert period == pytest.approx(2 * np.pi / omega, rel=0.02)
    assert np.abs(tilts).max() == pytest.approx(np.sin(theta0), rel=0.05)
    assert max(energies) <= energies[0] + 1e-3


@pytest.mark.parametrize("x, y", [(-1.0, 1.0), (1.0, -1.0)])
def test_a_ball_comes_to_rest_on_a_height_field_where_mujocos_does(tmp_path, x, y):
    # The same file in both engines: the ball dropped over the plateau and
    # over the flat ground rests where MuJoCo's does, to MuJoCo's soft
    # contact's sinking (its default solref) and Coulomb's near-rigid one's.
    text = ball_over(TERRAIN_GEOM, f"<asset>{TERRAIN}</asset>").replace(
        'pos="0 0 3"', f'pos="{x} {y} 0.8"')
    model, data, sim = both(tmp_path, text)
    while data.time < 2.0 - 1e-9:
        mujoco.mj_step(model, data)
    sim.run(2.0)
    np.testing.assert_allclose(sim.body_position("ball"), data.qpos[:3], atol=3e-3)



@pytest.mark.parametrize("kind", PNG_KINDS)
def test_a_png_height_field_has_mujocos_elevations(tmp_path, kind):
    # MuJoCo reads the PNG itself (hfield_data, its row 0 along −y); the
    # ball dropped over its plateau rests where Coulomb's reading of the
    # same file puts it, and MuJoCo's elevations are the plateau's.
    pixels, color_type, bit_depth = PNG_KINDS[kind]
    write_png(tmp_path / "terrain.png", pixels, color_type, bit_depth)
    asset = '<hfield name="terrain" file="terrain.png" size="1.5 1.5 0.3 0.1"/>'
    text = ball_over(TERRAIN_GEOM, f"<asset>{asset}</asset>").replace(
        'pos="0 0 3"', 'pos="-1.0 1.0 0.8"')
    model, data, sim = both(tmp_path, text)
    plateau = np.array([[0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]])
    np.testing.assert_allclose(model.hfield_data.reshape(4, 4), plateau, atol=1e-6)
    while data.time < 2.0 - 1e-9:
        mujoco.mj_step(model, data)
    sim.run(2.0)
    np.testing.assert_allclose(sim.body_position("ball"), data.qpos[:3], atol=3e-3)
