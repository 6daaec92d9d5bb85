"""Robots from MuJoCo's MJCF files, against the same robots from URDF and
against statics."""

import math
import pathlib
import pickle
import re
import subprocess

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


@pytest.mark.parametrize("text, floats", [
    (PENDULUM_MJCF, False),  # its hinge hangs it from the world
    (BALL_MJCF, True),       # a <freejoint/>
    (BALL_MJCF.replace("<freejoint/>", '<joint name="free" type="free"/>'), True),
    (BALL_MJCF.replace("<freejoint/>", '<joint name="free" class="loose"/>').replace(
        "<worldbody>", '<default><default class="loose"><joint type="free"/></default>'
        "</default><worldbody>"), True),
])
def test_an_mjcf_robots_base_is_the_files_unless_the_scene_says(tmp_path, text, floats):
    by_file = load(tmp_path, text, pose={"position": [0, 0, 1]})
    said = load(tmp_path, text, pose={"position": [0, 0, 1]},
                base="floating" if floats else "fixed")
    np.testing.assert_array_equal(by_file.run(1.0).q, said.run(1.0).q)
    assert (by_file.q.size == 7) == floats  # a free body's pose, or the hinge


# An arm on a hinge whose tip slides without mass.
MASSLESS_TIP_MJCF = """<mujoco><worldbody><body name="arm" pos="0 0 0.5">
  <joint name="hinge" type="hinge"/><geom type="sphere" size="0.05" mass="1"/>
  <body name="tip" pos="0.2 0 0"><joint name="slide" type="slide"/>
    <geom type="sphere" size="0.05" mass="0"/></body></body></worldbody></mujoco>"""


@pytest.mark.parametrize("text, base, says", [
    # The pendulum's base link has no mass: the base turning about the hinge
    # while the hinge turns back moves no mass.
    (PENDULUM_MJCF, "floating", "moving its floating base and joint 'hinge' together moves "
                                "no mass: give the links mass and inertia, or fix the base or a joint"),
    (BALL_MJCF.replace('mass="1.5"', 'mass="0"'), None,
     "its floating base, link 'ball', lacks mass or inertia: give it both, or fix the base"),
    (MASSLESS_TIP_MJCF, None, "joint 'slide' moves no mass (link 'tip' and those beyond it "
                              "have none): give them a mass, or make the joint fixed"),
], ids=["base_and_joint", "base", "joint"])
def test_a_robot_with_a_motion_that_moves_no_mass_is_refused_in_one_line(
        tmp_path, text, base, says):
    with pytest.raises(ValueError) as error:
        load(tmp_path, text, **({"base": base} if base else {}))
    message = str(error.value)
    assert message.endswith("r: its mass matrix is singular: " + says), message
    assert "\n" not in message


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


def hfield_file(asset, world_geom='<geom name="t" type="hfield" hfield="h"/>', body_geom=""):
    return f"""<mujoco><asset>{asset}</asset><worldbody>{world_geom}
        <body name="b"><freejoint/><geom type="sphere" size="0.1"/>{body_geom}</body>
        </worldbody></mujoco>"""


@pytest.mark.parametrize("text, message", [
    ("""<mujoco><worldbody><body name="b"><joint name="s" type="slide" axis="0 0 1"/>
        <geom type="box" size="0.1 0.1 0.1" mass="1"/>
        <geom name="lid" type="plane" size="1 1 0.1"/></body></worldbody></mujoco>""",
     r"lid: a plane on link 'b' \(a plane is fixed: make it a geom of <worldbody>\)"),
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
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom name="g" type="sphere" size="0.1" friction="-0.1"/></body></worldbody></mujoco>""",
     "geom 'g': friction '-0.1': negative"),
    ("""<mujoco><default><geom friction="0.5 0 0 1"/></default><worldbody><body name="b">
        <freejoint/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>""",
     "geom 'bGeom_0': friction '0.5 0 0 1': expected one to three numbers"),
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom type="sphere" size="0.1" friction="ice"/></body></worldbody></mujoco>""",
     "geom 'bGeom_0': friction 'ice': not a number"),
    ("""<mujoco><worldbody><geom name="g" type="plane" size="1 1 1"/><body name="b">
        <freejoint/><geom name="g" type="sphere" size="0.1"/></body></worldbody></mujoco>""",
     "two geoms are named 'g'"),
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom name="g" type="sphere" size="0.1" contype="-1"/></body></worldbody></mujoco>""",
     "geom 'g': contype '-1': expected an integer ≥ 0"),
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom name="g" type="sphere" size="0.1" conaffinity="1.5"/></body></worldbody>
        </mujoco>""", "geom 'g': conaffinity '1.5': expected an integer ≥ 0"),
    ("""<mujoco><worldbody><body name="b" euler="10 20"><freejoint/>
        <geom type="sphere" size="0.1"/></body></worldbody></mujoco>""",
     "<body> euler '10 20': expected 3 numbers"),
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom type="sphere" size="0.1" axisangle="0 0 0 30"/></body></worldbody></mujoco>""",
     "<geom> axisangle: a zero vector"),
    ("""<mujoco><compiler eulerseq="xyw"/><worldbody><body name="b"><freejoint/>
        <geom type="sphere" size="0.1"/></body></worldbody></mujoco>""",
     '<compiler eulerseq="xyw">: expected three of x, y, z, X, Y, Z'),
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom name="g" type="mesh" mesh="rock"/></body></worldbody></mujoco>""",
     "geom 'g': no <mesh> asset named 'rock'"),
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom name="g" type="box" size="0.1 0.1 0.1 0.1"/></body></worldbody></mujoco>""",
     "geom 'g': size has more than 3 numbers"),
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom name="g" type="box" size="0.1 x 0.1"/></body></worldbody></mujoco>""",
     "geom 'g': size '0.1 x 0.1': not a number"),
    # Sizes MuJoCo refuses: absent (a fuzzed attribute name), zero, or too
    # few for the type (a capsule placed by fromto needs its radius alone).
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom name="g" type="box" ]ize="0.1 0.1 0.1" mass="1"/></body></worldbody></mujoco>""",
     r"geom 'g': size 0 must be positive \(MuJoCo refuses it too\)"),
    ("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom type="capsule" size="0.1" mass="1"/></body></worldbody></mujoco>""",
     "a capsule geom of body 'b': size 1 must be positive"),
    ("""<mujoco><default><geom size="0.1 0.1 0"/></default><worldbody><body name="b">
        <freejoint/><geom name="g" type="box"/><geom type="capsule" fromto="0 0 0 0 0 1"/>
        </body></worldbody></mujoco>""", "geom 'g': size 2 must be positive"),
    # Height fields: MuJoCo's are the world's; the asset must exist and fit.
    (hfield_file('<hfield name="h" nrow="3" ncol="3" size="1 1 0.1 0.1"/>',
                 body_geom='<geom name="t" type="hfield" hfield="h"/>'),
     "geom 't': an hfield geom of body 'b' .*make it a geom of <worldbody>"),
    (hfield_file('<hfield name="h" nrow="3" ncol="3" size="1 1 0.1 0.1"/>',
                 world_geom='<geom name="t" type="hfield" hfield="nope"/>'),
     "geom 't': no <hfield> asset named 'nope'"),
    (hfield_file('<hfield name="h" nrow="2" ncol="3" size="1 1 0.1 0.1" elevation="1 2 3"/>'),
     "hfield 'h': elevation has 3 numbers for nrow × ncol = 6"),
    (hfield_file('<hfield name="h" file="terrain.png" size="1 1 0.1 0.1"/>'),
     "terrain.png: file not found"),
    (hfield_file('<hfield name="h" file="missing.bin" size="1 1 0.1 0.1"/>'),
     "missing.bin: file not found"),
    (hfield_file('<hfield name="h" file="short.bin" size="1 1 0.1 0.1"/>'),
     r"short.bin: not a MuJoCo binary height field \(int32 nrow"),
    (hfield_file('<hfield name="h" file="huge.bin" size="1 1 0.1 0.1"/>'),
     r"huge.bin: not a MuJoCo binary height field \(int32 nrow"),
    (hfield_file('<hfield name="h" nrow="3" ncol="3" size="1 1 0.1 0"/>'),
     "geom 't': the base depth must be positive"),
    (hfield_file('<hfield name="h" nrow="1" ncol="3" size="1 1 0.1 0.1"/>'),
     "geom 't': a height field needs at least 2 rows and 2 columns, got 1 × 3"),
    (hfield_file('<hfield name="h" nrow="100000" ncol="100000" size="1 1 0.1 0.1"/>'),
     r"hfield 'h': 100000 × 100000 elevations; at most 1048576 \(1024 × 1024\) are read"),
])
def test_mjcf_files_a_robot_cannot_be_are_refused_in_one_line(tmp_path, text, message):
    # The binary height fields two cases name: 3 × 3 floats less one, and
    # sides of 2^31 − 1 (their byte count would overflow a 64-bit integer).
    (tmp_path / "short.bin").write_bytes(np.array([3, 3], np.int32).tobytes() + bytes(32))
    (tmp_path / "huge.bin").write_bytes(np.array([2**31 - 1] * 2, np.int32).tobytes()
                                        + bytes(8))
    with pytest.raises(ValueError, match=r"robots\[0\]\.mjcf: .*" + message) as error:
        load(tmp_path, text)
    assert "\n" not in str(error.value)


# A ball dropped in a file whose <worldbody> has geoms of its own: MuJoCo's
# scene files bring their floor (a plane, infinite as MuJoCo collides it) and
# fixed obstacles. No scene ground: what holds the ball is the file's.
def ball_over(world, contact=""):
    return f"""<mujoco model="ball">
  <worldbody>
    {world}
    <body name="ball" pos="0 0 3">
      <freejoint/>
      <geom name="sphere" type="sphere" size="0.1" mass="1.5"/>
    </body>
  </worldbody>
  {contact}
</mujoco>"""


def load_alone(tmp_path, text, bodies=(), exclude=(), **robot):
    path = tmp_path / "model.xml"
    path.write_text(text)
    return coulomb.Simulation.from_dict({
        "time_step": 0.01, "bodies": list(bodies), "exclude": [list(e) for e in exclude],
        "robots": [{"name": "r", "mjcf": str(path), **robot}]})


FLOOR = '<geom name="floor" type="plane" size="5 5 0.1" pos="0 0 0.2"/>'


def test_an_mjcf_files_floor_holds_its_robot_where_the_file_puts_it(tmp_path):
    # The ball's pose is the scene's, the floor stays in the file's world:
    # the ball rests on it at 0.2 + 0.1.
    sim = load_alone(tmp_path, ball_over(FLOOR), pose={"position": [0.3, 0, 0.6]})
    trajectory = sim.run(1.0)
    np.testing.assert_allclose(sim.body_position("ball"), [0.3, 0, 0.3], atol=2e-3)
    assert np.abs(sim.v).max() < 1e-3
    assert trajectory.summary["momentum_error_max"] < 1e-6
    contacts = sim.contacts()
    assert set(contacts["body_a"]) | set(contacts["body_b"]) == {"r", "world"}


@pytest.mark.parametrize("robot, contact", [
    ({"world_geoms": False}, ""),
    ({}, '<contact><exclude body1="world" body2="ball"/></contact>'),
])
def test_an_mjcf_floor_left_out_or_excluded_holds_nothing(tmp_path, robot, contact):
    sim = load_alone(tmp_path, ball_over(FLOOR, contact), pose={"position": [0, 0, 0.6]},
                     **robot)
    sim.run(1.0)
    assert sim.body_position("ball")[2] < 0.6 - 0.5 * G * 0.9**2  # falling freely


def test_a_world_touch_site_of_a_scene_robots_file_reads_its_floors_contacts(tmp_path):
    # The floor of a robot's file is the world's (MultibodySystem's
    # kFileWorld role): a touch site of that file's <worldbody> around the
    # floor reads the resting ball's weight, 1.5 g.
    pad = '<site name="pad" type="box" size="1 1 0.05" pos="0 0 0.2"/>'
    sensor = '<sensor><touch name="pad" site="pad"/></sensor>'
    sim = load_alone(tmp_path, ball_over(FLOOR + pad, sensor),
                     pose={"position": [0, 0, 0.31]})
    sim.run(1.0)
    assert sim.sensor_data("r")["pad"][0] == pytest.approx(1.5 * G, rel=1e-5)


def test_a_link_welded_to_the_world_does_not_touch_a_link_it_overlaps_at_the_start(tmp_path):
    # The base has no joint: welded to the world, its box is the world's
    # geometry. The forearm's ball starts inside it and stays inside it as
    # the arm swings about the base's centre (radius 0.15 < 0.2): links that
    # overlap in the initial configuration never collide (robots.md,
    # self-collision), a welded link's too, so the arm swings freely, no
    # contact, and no impulse ever throws it.
    arm = """<mujoco model="arm">
  <worldbody>
    <body name="base" pos="0 0 1">
      <geom type="box" size="0.2 0.2 0.2"/>
      <body name="upper">
        <joint type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.02" mass="0.1"/>
        <body name="fore" pos="0.1 0 0">
          <joint type="hinge" axis="0 1 0"/>
          <geom type="sphere" size="0.04" pos="0.05 0 0" mass="0.1"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""
    sim = load_alone(tmp_path, arm)
    for _ in range(30):
        sim.step()
        assert len(sim.contacts()["body_a"]) == 0
    assert sim.q[0] > 0.1  # swung down about +y


# MuJoCo's height field, a union of triangular prisms down to its base:
# elevations normalized to [0, 1] and scaled by size's third number, the
# elevation attribute's first row along +y (an image's top). A 1 × 1 m
# plateau at 0.3 m (x < −0.5, y > 0.5) and flat ground elsewhere; the field
# sits at z = 0.2. A ball dropped over the plateau's middle rests on it,
# one dropped over the far corner rests on the ground, each at the surface's
# height plus its radius (0.1).
TERRAIN = """<hfield name="terrain" nrow="4" ncol="4" size="1.5 1.5 0.3 0.1"
  elevation="5 5 2 2  5 5 2 2  2 2 2 2  2 2 2 2"/>"""
TERRAIN_GEOM = '<geom name="ground" type="hfield" hfield="terrain" pos="0 0 0.2"/>'


@pytest.mark.parametrize("x, y, height", [(-1.0, 1.0, 0.3), (1.0, -1.0, 0.0)])
def test_a_ball_rests_on_an_mjcf_height_field_at_its_elevation(tmp_path, x, y, height):
    sim = load_alone(tmp_path, ball_over(TERRAIN_GEOM, f"<asset>{TERRAIN}</asset>"),
                     pose={"position": [x, y, 0.8]})
    trajectory = sim.run(1.0)
    np.testing.assert_allclose(sim.body_position("ball"), [x, y, 0.2 + height + 0.1],
                               atol=2e-3)
    assert np.abs(sim.v).max() < 1e-3
    assert trajectory.summary["momentum_error_max"] < 1e-6
    assert set(sim.contacts()["body_a"]) | set(sim.contacts()["body_b"]) == {"r", "world"}


def test_a_binary_mjcf_height_field_is_read_row_0_first(tmp_path):
    # The binary form (int32 nrow, int32 ncol, float32 data) stores its rows
    # from −y: the same plateau as TERRAIN, its rows given the other way.
    rows = np.array([[2, 2, 2, 2], [2, 2, 2, 2], [5, 5, 2, 2], [5, 5, 2, 2]], np.float32)
    (tmp_path / "terrain.bin").write_bytes(np.array([4, 4], np.int32).tobytes()
                                           + rows.tobytes())
    asset = '<hfield name="terrain" file="terrain.bin" size="1.5 1.5 0.3 0.1"/>'
    sim = load_alone(tmp_path, ball_over(TERRAIN_GEOM, f"<asset>{asset}</asset>"),
                     pose={"position": [-1.0, 1.0, 0.8]})
    sim.run(1.0)
    np.testing.assert_allclose(sim.body_position("ball"), [-1.0, 1.0, 0.6], atol=2e-3)


def write_png(path, pixels, color_type, bit_depth):
    """A PNG file of `pixels` (rows from the image's top; samples last),
    unfiltered: the PNG specification's chunks, zlib's stream, CRCs."""
    import struct
    import zlib
    dtype = ">u2" if bit_depth == 16 else "u1"
    raw = b"".join(b"\0" + np.asarray(row).astype(dtype).tobytes() for row in pixels)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    header = struct.pack(">IIBBBBB", pixels.shape[1], pixels.shape[0], bit_depth,
                         color_type, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


# TERRAIN's plateau as images (its top row along +y), in the kinds of PNG
# MuJoCo reads: gray, 16-bit gray (its high byte), color (its red), gray
# with alpha; each normalized to [0, 1] as any height field.
PLATEAU = np.array([[5, 5, 2, 2], [5, 5, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2]]) * 40
PNG_KINDS = {
    "gray": (PLATEAU, 0, 8),
    "gray16": (PLATEAU * 256 + 77, 0, 16),
    "rgb": (np.stack([PLATEAU, 255 - PLATEAU, PLATEAU // 2], axis=-1), 2, 8),
    "gray_alpha": (np.stack([PLATEAU, np.full_like(PLATEAU, 9)], axis=-1), 4, 8),
}


@pytest.mark.parametrize("kind", PNG_KINDS)
def test_a_png_mjcf_height_field_is_read_top_row_along_plus_y(tmp_path, kind):
    pixels, color_type, bit_depth = PNG_KINDS[kind]
    write_png(tmp_path / "terrain.png", pixels, color_type, bit_depth)
    asset = '<hfield name="terrain" file="terrain.png" size="1.5 1.5 0.3 0.1"/>'
    for x, y, height in [(-1.0, 1.0, 0.3), (1.0, -1.0, 0.0)]:
        sim = load_alone(tmp_path, ball_over(TERRAIN_GEOM, f"<asset>{asset}</asset>"),
                         pose={"position": [x, y, 0.8]})
        sim.run(1.0)
        np.testing.assert_allclose(sim.body_position("ball"), [x, y, 0.2 + height + 0.1],
                                   atol=2e-3)


@pytest.mark.parametrize("corrupt, message", [
    (False, r"palette PNG not read; save it as grayscale"),
    (True, r"corrupt PNG \(a chunk's CRC does not match\)"),
])
def test_a_png_that_is_not_read_is_refused_naming_the_file(tmp_path, corrupt, message):
    write_png(tmp_path / "terrain.png", PLATEAU, 3, 8)  # palette indices
    if corrupt:
        data = bytearray((tmp_path / "terrain.png").read_bytes())
        data[25] = 0  # IHDR's color type, its CRC left as it was
        (tmp_path / "terrain.png").write_bytes(bytes(data))
    asset = '<hfield name="terrain" file="terrain.png" size="1.5 1.5 0.3 0.1"/>'
    with pytest.raises(ValueError, match=r"terrain\.png: " + message):
        load_alone(tmp_path, ball_over(TERRAIN_GEOM, f"<asset>{asset}</asset>"))


def test_a_files_height_field_comes_once_for_all_its_bodies(tmp_path):
    # Two top-level bodies, each a robot of the scene: the terrain's 18
    # prisms (2 × 3 × 3 cells) are the world's once, as its other world geoms.
    h5py = pytest.importorskip("h5py")
    balls = "".join(f'<body name="b{k}" pos="{k - 0.5} 0 1"><freejoint/>'
                    f'<geom type="sphere" size="0.1"/></body>' for k in range(2))
    path = tmp_path / "two.xml"
    path.write_text(f"<mujoco><asset>{TERRAIN}</asset><worldbody>{TERRAIN_GEOM}"
                    f"{balls}</worldbody></mujoco>")
    sim = coulomb.Simulation.from_file(str(path))
    sim.run(0.05).save(tmp_path / "run.h5")
    with h5py.File(tmp_path / "run.h5") as file:
        bodies = list(file["geometry/body"][:].astype(str))
    assert bodies.count("world") == 2 * 3 * 3 and len(bodies) == 18 + 2


def test_an_mjcf_world_box_is_placed_by_its_pos_and_euler(tmp_path):
    # The table is long along y once turned 90° about z: the ball, 0.3 m
    # along y from its centre, lands on its top (0.4 + 0.1); unturned, the
    # table would miss it and the ball would rest on the floor at 0.1.
    table = '<geom name="table" type="box" size="0.5 0.05 0.2" pos="0 0 0.2" euler="0 0 90"/>'
    sim = load_alone(tmp_path, ball_over(table + FLOOR.replace("0 0 0.2", "0 0 0")),
                     pose={"position": [0, 0.3, 0.8]})
    sim.run(1.0)
    np.testing.assert_allclose(sim.body_position("ball"), [0, 0.3, 0.5], atol=2e-3)


BOX_ON_A_SLOPE = """<mujoco model="slope">
  <worldbody>
    <geom name="slope" type="plane" size="5 5 0.1" euler="0 20 0"/>
    <body name="box">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>"""


@pytest.mark.parametrize("friction", [0.5, 0.2])
def test_a_box_on_an_mjcf_slope_sticks_or_slides_as_coulomb_says(tmp_path, friction):
    # The plane turned 20° about y: its normal n = (sin θ, 0, cos θ), downhill
    # t = (cos θ, 0, −sin θ). Stiction holds the box while μ ≥ tan θ
    # (0.364); below, it slides with a = g (sin θ − μ cos θ).
    theta = math.radians(20)
    normal = np.array([math.sin(theta), 0, math.cos(theta)])
    downhill = np.array([math.cos(theta), 0, -math.sin(theta)])
    start = 0.1 * normal
    path = tmp_path / "slope.xml"
    path.write_text(BOX_ON_A_SLOPE)
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.005, "contact": {"friction": friction},
        "robots": [{"name": "r", "mjcf": str(path),
                    "pose": {"position": start.tolist(), "rpy": [0, theta, 0]}}]})
    duration = 1.0
    sim.run(duration)
    moved = sim.body_position("box") - start
    acceleration = max(0.0, G * (math.sin(theta) - friction * math.cos(theta)))
    slide = 0.5 * acceleration * duration**2
    assert moved @ downhill == pytest.approx(slide, abs=1e-4, rel=0.02)
    # On the plane: SAP's convex model lets a sliding contact drift off its
    # surface slowly (2 mm over this slide at 1.5 m/s), never into it.
    assert -1e-4 < moved @ normal < 3e-3


# The box of the slope above, placed on it by the file itself, the geoms'
# frictions in the file (`floor` and `box`: their attributes; `defaults`:
# a <default> section). δt = 5 ms.
THETA = math.radians(20)
SLOPE_NORMAL = np.array([math.sin(THETA), 0, math.cos(THETA)])
DOWNHILL = np.array([math.cos(THETA), 0, -math.sin(THETA)])


def frictional_slope(floor="", box="", defaults="", body=""):
    start = " ".join(str(x) for x in 0.1 * SLOPE_NORMAL)
    return f"""<mujoco model="slope">
  <option timestep="0.005"/>
  {defaults}
  <worldbody>
    <geom name="slope" type="plane" size="5 5 0.1" euler="0 20 0" {floor}/>
    <body name="box" pos="{start}" euler="0 20 0" {body}>
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" {box}/>
    </body>
  </worldbody>
</mujoco>"""


def slide_after_a_second(sim):
    """How far the box moved downhill in 1 s, and off the slope."""
    start = sim.body_position("box")
    sim.run(1.0)
    moved = sim.body_position("box") - start
    return moved @ DOWNHILL, moved @ SLOPE_NORMAL


def slide_at(friction):
    """½ a t², a = g (sin θ − μ cos θ), or 0 while μ ≥ tan θ (0.364)."""
    return 0.5 * max(0.0, G * (math.sin(THETA) - friction * math.cos(THETA)))


ICE = '<default><default class="ice"><geom friction="0.2"/></default></default>'


@pytest.mark.parametrize("floor, box, defaults, body", [
    ('friction="0.2"', 'friction="0.2 0.005 0.0001"', "", ""),  # their own
    ("", "", '<default><geom friction="0.2"/></default>', ""),  # the top default
    ('class="ice"', 'class="ice"', ICE, ""),  # a class
    ('class="ice"', "", ICE, 'childclass="ice"'),  # the body's childclass
])
@pytest.mark.parametrize("alone", [True, False])
def test_an_mjcf_geoms_friction_is_its_own_or_its_classes(tmp_path, floor, box,
                                                          defaults, body, alone):
    # At μ = 0.2 on both sides the box slides (μ = 1, the default, would
    # hold it), run by itself or as a scene's robot alike.
    path = tmp_path / "slope.xml"
    path.write_text(frictional_slope(floor, box, defaults, body))
    sim = (coulomb.Simulation.from_file(str(path)) if alone else
           coulomb.Simulation.from_dict({"time_step": 0.005,
                                         "robots": [{"name": "r", "mjcf": str(path)}]}))
    downhill, off = slide_after_a_second(sim)
    assert downhill == pytest.approx(slide_at(0.2), rel=0.02)
    assert -1e-4 < off < 3e-3


@pytest.mark.parametrize("contact, friction", [
    (None, 0.5),  # run by itself: MuJoCo's rule, the larger
    ({}, 2 * 0.5 * 0.2 / 0.7),  # a scene: its rule, the harmonic mean by default
    ({"friction_combination": "max"}, 0.5),
    ({"friction_combination": "harmonic_mean"}, 2 * 0.5 * 0.2 / 0.7),
])
def test_a_pairs_friction_combines_its_geoms_by_the_scenes_rule(tmp_path, contact,
                                                                 friction):
    path = tmp_path / "slope.xml"
    path.write_text(frictional_slope('friction="0.5"', 'friction="0.2"'))
    sim = (coulomb.Simulation.from_file(str(path)) if contact is None else
           coulomb.Simulation.from_dict({"time_step": 0.005, "contact": contact,
                                         "robots": [{"name": "r", "mjcf": str(path)}]}))
    downhill, _ = slide_after_a_second(sim)
    assert downhill == pytest.approx(slide_at(friction), rel=0.02, abs=1e-4)


def test_a_robots_own_friction_replaces_its_files(tmp_path):
    path = tmp_path / "slope.xml"
    path.write_text(frictional_slope('friction="0.5"', 'friction="0.5"'))
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.005,
        "robots": [{"name": "r", "mjcf": str(path), "contact": {"friction": 0.1}}]})
    downhill, _ = slide_after_a_second(sim)
    assert downhill == pytest.approx(slide_at(0.1), rel=0.02)


@pytest.mark.parametrize("floor, ball, held", [
    ("", "", True),  # both 1 and 1, MuJoCo's default
    ("", 'contype="2" conaffinity="2"', False),  # another group
    ("", 'contype="0" conaffinity="1"', True),  # the floor's type in its affinity
    ('contype="0" conaffinity="1"', 'contype="0" conaffinity="1"', False),  # neither's
    ('contype="4" conaffinity="4"', "", False),
    ("", 'class="ghost"', False),  # from a class
    ('class="ghost"', 'class="ghost"', True),
])
def test_an_mjcf_geoms_contype_and_conaffinity_say_what_it_collides_with(
        tmp_path, floor, ball, held):
    # MuJoCo's rule: two geoms collide iff (contype_a & conaffinity_b) or
    # (contype_b & conaffinity_a). The ball rests on the floor at 0.2 + 0.1,
    # or falls through it.
    text = ball_over(FLOOR.replace("/>", f" {floor}/>")).replace(
        'mass="1.5"/>', f'mass="1.5" {ball}/>').replace(
        "<worldbody>", '<default><default class="ghost"><geom contype="2" conaffinity="2"/>'
        "</default></default><worldbody>")
    path = tmp_path / "ball.xml"
    path.write_text(text)
    sim = coulomb.Simulation.from_file(str(path))
    sim.run(1.5)
    if held:
        assert sim.body_position("ball")[2] == pytest.approx(0.3, abs=2e-3)
    else:
        assert sim.body_position("ball")[2] < -5


def test_bodies_and_geoms_without_names_keep_their_joints_and_frictions(tmp_path):
    # Pinocchio's parser merges a body without a name into its unnamed
    # parent (its joint lost); Coulomb names them first. The nested body's
    # geom, without a name either, keeps its friction: the box slides on it.
    text = frictional_slope('friction="0.2"').replace('name="box" ', "").replace(
        '<geom type="box" size="0.1 0.1 0.1" mass="1" />',
        '<body><joint name="spin" type="hinge" axis="0 0 1"/>'
        '<geom type="box" size="0.1 0.1 0.1" mass="1" friction="0.2"/></body>'
        '<inertial pos="0 0 0" mass="0.01" diaginertia="1e-4 1e-4 1e-4"/>')
    path = tmp_path / "slope.xml"
    path.write_text(text)
    sim = coulomb.Simulation.from_file(str(path))
    assert "spin" in sim.joint_names("slope")
    start = sim.q[:3].copy()
    sim.run(1.0)
    assert (sim.q[:3] - start) @ DOWNHILL == pytest.approx(slide_at(0.2), rel=0.02)


def test_an_mjcf_fixed_robots_world_geoms_move_with_its_pose(tmp_path):
    # The file's world is placed at the fixed robot's pose, its shelf with
    # it: a box of the scene lands on the shelf's top, 0.5 + 0.05 + 0.05.
    text = PENDULUM_MJCF.replace(
        "<worldbody>", '<worldbody><geom name="shelf" type="box" size="0.3 0.3 0.05"/>')
    box = {"name": "box", "shape": {"box": {"size": [0.1, 0.1, 0.1]}}, "mass": 1.0,
           "pose": {"position": [0, 0, 1]}}
    sim = load_alone(tmp_path, text, bodies=[box], pose={"position": [0, 0, 0.5]})
    sim.run(1.0)
    assert sim.body_position("box")[2] == pytest.approx(0.6, abs=2e-3)


def test_a_scene_exclude_of_a_robot_keeps_its_files_floor(tmp_path):
    # Excluding the robot from the box leaves the box on the file's floor:
    # the floor is the world's, not the robot's.
    box = {"name": "box", "shape": {"box": {"size": [0.1, 0.1, 0.1]}}, "mass": 1.0,
           "pose": {"position": [1, 0, 0.5]}}
    sim = load_alone(tmp_path, ball_over(FLOOR), bodies=[box], exclude=[("r", "box")],
                     pose={"position": [0, 0, 0.6]})
    sim.run(1.0)
    assert sim.body_position("box")[2] == pytest.approx(0.25, abs=2e-3)


def test_an_mjcf_file_runs_as_a_scene_by_itself(tmp_path):
    # MuJoCo's time step and gravity from <option>, its floor from
    # <worldbody>: the ball falls as symplectic Euler says, z_n = z_0 −
    # g δt² n (n + 1)/2, then rests on the floor at its radius.
    path = tmp_path / "drop.xml"
    path.write_text(ball_over(FLOOR.replace("0 0 0.2", "0 0 0")).replace(
        "<worldbody>", '<option timestep="0.005" gravity="0 0 -5"/><worldbody>'))
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.time_step == 0.005
    assert sim.body_names == ["ball"]  # the model's name
    n = 100
    sim.run(n * 0.005)
    assert sim.body_position("ball")[2] == pytest.approx(3 - 5 * 0.005**2 * n * (n + 1) / 2,
                                                         abs=1e-12)
    sim.run(2.0)
    assert sim.body_position("ball")[2] == pytest.approx(0.1, abs=2e-3)


@pytest.mark.parametrize("pose, position, orientation", [
    (None, [0.1, 0.2, 3], [math.sqrt(0.5), 0, 0, math.sqrt(0.5)]),  # the file's: 90° about z
    ({"position": [0, 0, 1]}, [0, 0, 1], [1, 0, 0, 0]),  # the scene's, exactly
])
def test_an_mjcf_free_root_starts_at_the_files_pose_unless_the_scene_poses_it(
        tmp_path, pose, position, orientation):
    text = ball_over("").replace('pos="0 0 3"', 'pos="0.1 0.2 3" euler="0 0 90"')
    sim = load_alone(tmp_path, text, **({"pose": pose} if pose else {}))
    np.testing.assert_allclose(sim.body_position("ball"), position, atol=1e-12)
    np.testing.assert_allclose(sim.body_orientation("ball"), orientation, atol=1e-12)


def test_an_mjcf_file_without_options_takes_mujocos_defaults(tmp_path):
    path = tmp_path / "pendulum.xml"
    path.write_text(PENDULUM_MJCF.replace('model="pendulum"', ""))
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.time_step == 0.002
    assert sim.robot_names == ["pendulum"]  # the file's name, as the model has none
    sim.set_state([0.5], [0.0])
    sim.run(0.002)
    # θ̈ = −(m g l / I) sin θ about the hinge, I = 0.1 + m l² (l = 0.5, m = 2)
    assert sim.v[0] == pytest.approx(-2 * 9.81 * 0.5 / (0.1 + 2 * 0.25) * math.sin(0.5)
                                     * 0.002, rel=1e-9)


def with_option(option):
    return PENDULUM_MJCF.replace("<worldbody>", option + "<worldbody>")


@pytest.mark.parametrize("text, message", [
    (with_option('<option timestep="0"/>'), "<option timestep> '0': expected a time > 0"),
    (with_option('<option gravity="0 -9.81"/>'),
     "<option gravity> '0 -9.81': expected 3 numbers"),
    (with_option('<option gravity="0 0 down"/>'), "<option gravity> '0 0 down': not a number"),
    ('<mujoco><worldbody><geom type="plane" size="1 1 1"/></worldbody></mujoco>',
     "<worldbody> has no body: nothing to simulate"),
])
def test_an_mjcf_scene_without_a_body_or_with_bad_options_is_refused_naming_it(tmp_path, text, message):
    path = tmp_path / "bad.xml"
    path.write_text(text)
    with pytest.raises(ValueError, match="^" + re.escape(f"{path}: {message}") + "$"):
        coulomb.Simulation.from_file(str(path))


def test_an_mjcf_scenes_robot_errors_name_the_file_alone(tmp_path):
    path = tmp_path / "lid.xml"
    path.write_text("""<mujoco><worldbody><body name="b"><freejoint/>
        <geom type="box" size="0.1 0.1 0.1" mass="1"/>
        <geom name="lid" type="plane" size="1 1 0.1"/></body></worldbody></mujoco>""")
    with pytest.raises(ValueError, match="^" + re.escape(str(path)) + ": cannot load MJCF: "
                       ".*lid: a plane on link 'b'"):
        coulomb.Simulation.from_file(str(path))


# A MuJoCo scene of several top-level bodies: a lift (a slide held by a
# position servo), a table (a static body with a leg) and a cube above it,
# with what links bodies of two robots, which no robot reads.
SEVERAL_BODIES = """<mujoco model="several">
  <compiler meshdir="meshes"/>
  <asset><mesh name="block" file="block.obj"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="lift" pos="-1 0 1">
      <joint name="raise" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.1 0.1 0.1" mass="2"/>
    </body>
    <body name="table" pos="1 0 0.5" euler="0 0 90">
      <geom name="top" type="box" size="0.3 0.2 0.02"/>
      <body name="leg" pos="0 0 -0.25"><geom type="box" size="0.02 0.02 0.25"/></body>
    </body>
    <body name="cube" pos="1 0 1">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="0.5"/>
    </body>
    <body name="pedestal" pos="0 2 0"><geom type="mesh" mesh="block"/></body>
    <body name="ball" pos="0 2 1">
      <freejoint/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
  <actuator><position joint="raise" kp="400" kv="40"/></actuator>
  <equality><weld body1="cube" body2="lift"/></equality>
  <contact><exclude body1="cube" body2="lift"/></contact>
  <keyframe>
    <key name="home" qpos="0  1 0 1 1 0 0 0  0 2 1 1 0 0 0"/>
    <key name="raised" qpos="0.3  1 0 0.8 0.7071067811865476 0 0 0.7071067811865476  0 2 1.5 1 0 0 0"
         qvel="0.5  0 0 0 0 0 0  1 0 0 0 0 2" ctrl="0.3"/>
  </keyframe>
</mujoco>"""

# A 0.4 m cube around its origin, as an OBJ file.
BLOCK_OBJ = "\n".join(
    [f"v {x} {y} {z}" for x in (-0.2, 0.2) for y in (-0.2, 0.2) for z in (-0.2, 0.2)]
    + [f"f {a} {b} {c}" for a, b, c in [(1, 2, 4), (1, 4, 3), (5, 7, 8), (5, 8, 6),
                                        (1, 5, 6), (1, 6, 2), (3, 4, 8), (3, 8, 7),
                                        (1, 3, 7), (1, 7, 5), (2, 6, 8), (2, 8, 4)]])


def several_bodies(tmp_path):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "block.obj").write_text(BLOCK_OBJ)
    path = tmp_path / "several.xml"
    path.write_text(SEVERAL_BODIES)
    return path


def test_an_mjcf_scene_of_several_bodies_runs_each_where_the_file_puts_it(
        tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"  # where the bodies' files go, and are gone from
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    sim = coulomb.Simulation.from_file(str(several_bodies(tmp_path)))
    assert list(scratch.iterdir()) == []
    assert sim.body_names == ["lift", "cube", "ball"]  # the table and pedestal are fixed
    sim.run(1.5)
    # The cube welded to the lift where the file puts them (2 m apart), as
    # MuJoCo welds them: the servo holds both, kp (0 − q) = (m_lift +
    # m_cube) g, the cube hanging 2 m from the lift, above the table. The
    # ball on the mesh pedestal (0.2 + 0.1), above where the file puts it.
    q = -(2 + 0.5) * G / 400
    assert sim.joint_positions("lift")[0] == pytest.approx(q, rel=1e-3)
    np.testing.assert_allclose(sim.body_position("cube"), [1, 0, 1 + q], atol=1e-4)
    np.testing.assert_allclose(sim.body_position("ball"), [0, 2, 0.3], atol=2e-3)
    assert sim.connection_names("cube") == ["equality0"]
    assert sim.warnings == []  # the weld and the exclude of two bodies read


def test_a_keyframe_of_several_bodies_starts_each_at_its_share(tmp_path):
    # MuJoCo's qpos lists the lift's slide (1), the cube's free joint (7)
    # and the ball's (7), qvel 1 + 6 + 6, ctrl the lift's servo: each body
    # takes its own entries, run by itself or as one scene entry.
    path = several_bodies(tmp_path)
    sim = coulomb.Simulation.from_file(str(path), keyframe="raised")
    assert sim.joint_positions("lift") == pytest.approx([0.3], abs=1e-15)
    assert sim.joint_velocities("lift") == pytest.approx([0.5], abs=1e-15)
    np.testing.assert_allclose(sim.body_position("cube"), [1, 0, 0.8], atol=1e-12)
    np.testing.assert_allclose(sim.body_orientation("cube"),
                               [math.sqrt(0.5), 0, 0, math.sqrt(0.5)], atol=1e-12)
    np.testing.assert_allclose(sim.body_position("ball"), [0, 2, 1.5], atol=1e-12)
    linear, angular = sim.body_velocity("ball")
    np.testing.assert_allclose(linear, [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(angular, [0, 0, 2], atol=1e-12)
    # The servo's target is the key's ctrl: the lift settles at 0.3 less
    # its sag m g / kp, m its mass and the cube's welded to it.
    sim.run(2.0)
    assert sim.joint_positions("lift")[0] == pytest.approx(0.3 - 2.5 * G / 400, rel=1e-3)
    with pytest.warns(UserWarning):
        entry = coulomb.Simulation.from_dict({
            "time_step": 0.01, "robots": [{"name": "c", "mjcf": str(path), "body": "cube",
                                           "keyframe": "raised"}]})
    np.testing.assert_allclose(entry.body_position("c"), [1, 0, 0.8], atol=1e-12)


@pytest.mark.parametrize("key, message", [
    ('<key name="short" qpos="0"/>',
     "keyframe 'short': qpos has 1 numbers, the file's joints take 15"),
    ('<key name="short" qvel="1 2"/>',
     "keyframe 'short': qvel has 2 numbers, the file's joints take 13"),
    ('<key name="short" ctrl="1 2"/>',
     "keyframe 'short': ctrl has 2 numbers, the file's actuators take 1"),
])
def test_a_keyframe_of_several_bodies_of_the_wrong_size_is_refused(tmp_path, key, message):
    path = several_bodies(tmp_path)
    path.write_text(path.read_text().replace("<keyframe>", "<keyframe>" + key))
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        coulomb.Simulation.from_file(str(path), keyframe="short")
    assert "\n" not in str(error.value)


def test_a_keyframe_is_named_for_an_mjcf_file_only(tmp_path):
    path = several_bodies(tmp_path)
    with pytest.raises(ValueError, match="no keyframe named 'away'"):
        coulomb.Simulation.from_file(str(path), keyframe="away")
    scene = tmp_path / "scene.yaml"
    scene.write_text("bodies: []\n")
    with pytest.raises(ValueError, match="a keyframe is taken by an MJCF file run by itself"):
        coulomb.Simulation.from_file(str(scene), keyframe="home")


def test_an_mjcf_files_top_level_bodies_need_names_only_when_several(tmp_path):
    lone = '<body pos="0 0 1"><freejoint/><geom type="sphere" size="0.1"/></body>'
    path = tmp_path / "lone.xml"
    path.write_text(f"<mujoco><worldbody>{lone}</worldbody></mujoco>")
    sim = coulomb.Simulation.from_file(str(path))
    n = 10
    sim.run(n * 0.002)  # from the file's pos, as symplectic Euler falls
    assert sim.body_position("lone")[2] == pytest.approx(1 - G * 0.002**2 * n * (n + 1) / 2,
                                                         abs=1e-12)
    twins = '<body name="a"><freejoint/><geom type="sphere" size="0.1"/></body>' * 2
    path.write_text(f"<mujoco><worldbody>{twins}</worldbody></mujoco>")
    with pytest.raises(ValueError, match="^" + re.escape(
            f"{path}: two bodies of <worldbody> are named 'a' (each top-level body is a "
            "robot of the scene: rename one)") + "$"):
        coulomb.Simulation.from_file(str(path))
    path.write_text(f'<mujoco><worldbody><body name="a"/>{lone}</worldbody></mujoco>')
    with pytest.raises(ValueError, match="^" + re.escape(f"{path}: a body of <worldbody> has "
                                                         "no name (name it: each top-level "
                                                         "body is a robot of the scene)")):
        coulomb.Simulation.from_file(str(path))


def test_a_scene_robot_takes_one_body_of_an_mjcf_file(tmp_path):
    # The table alone, posed by the scene (its file placement replaced), and
    # a box of the scene landing on its top: 0.3 + 0.02 + 0.05. The file's
    # weld and exclude of two bodies the scene does not load are no warning.
    box = {"name": "box", "shape": {"box": {"size": [0.1, 0.1, 0.1]}}, "mass": 1.0,
           "pose": {"position": [0, 0, 1]}}
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.01, "bodies": [box],
        "robots": [{"name": "t", "mjcf": str(several_bodies(tmp_path)), "body": "table",
                    "world_geoms": False, "pose": {"position": [0, 0, 0.3]}}]})
    assert sim.warnings == []
    sim.run(1.0)
    assert sim.body_position("box")[2] == pytest.approx(0.37, abs=2e-3)


@pytest.mark.parametrize("robot, message", [
    ({"body": "shelf"}, r"robots\[0\]\.body: .*several\.xml: no body 'shelf' in <worldbody>"),
    ({"body": "twin"}, r"robots\[0\]\.body: .*several\.xml: two bodies of <worldbody> are "
                       r"named 'twin' \(rename one\)"),
    ({}, r"robots\[0\]\.mjcf: .*7 bodies in <worldbody> \(one robot per entry of the "
         r"scene: name its body with `body:`\)"),
])
def test_a_body_of_an_mjcf_file_is_named_or_refused(tmp_path, robot, message):
    path = several_bodies(tmp_path)
    twins = '<body name="twin"><freejoint/><geom type="sphere" size="0.1"/></body>' * 2
    path.write_text(path.read_text().replace("</worldbody>", twins + "</worldbody>"))
    with pytest.raises(ValueError, match=message):
        coulomb.Simulation.from_dict({"robots": [{"name": "r", "mjcf": str(path), **robot}]})


def test_a_body_key_needs_an_mjcf_file(tmp_path):
    (tmp_path / "pendulum.urdf").write_text(PENDULUM_URDF)
    with pytest.raises(ValueError, match=r"robots\[0\]\.body: applies to an MJCF file only"):
        coulomb.Simulation.from_dict(scene({"name": "r", "urdf": str(tmp_path / "pendulum.urdf"),
                                            "body": "bob"}))


# MuJoCo's <include>: a scene file with its floor that includes the robot's
# file, which includes its actuators; meshes found from the main file's
# folder. A scene robot and a file run by itself read it alike.
INCLUDING = """<mujoco model="scene">
  <include file="robot/lift.xml"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
  </worldbody>
</mujoco>"""
LIFT = """<mujoco model="lift">
  <compiler meshdir="robot/meshes"/>
  <asset><mesh name="block" file="block.obj"/></asset>
  <worldbody>
    <body name="lift" pos="0 0 1">
      <joint name="raise" type="slide" axis="0 0 1"/>
      <inertial pos="0 0 0" mass="2" diaginertia="0.01 0.01 0.01"/>
      <geom type="mesh" mesh="block"/>
    </body>
  </worldbody>
  <include file="robot/actuators.xml"/>
</mujoco>"""
ACTUATORS = """<mujoco><actuator><position joint="raise" kp="400" kv="40"/></actuator></mujoco>"""


def including_scene(tmp_path):
    (tmp_path / "robot" / "meshes").mkdir(parents=True)
    (tmp_path / "robot" / "meshes" / "block.obj").write_text(BLOCK_OBJ)
    (tmp_path / "robot" / "lift.xml").write_text(LIFT)
    (tmp_path / "robot" / "actuators.xml").write_text(ACTUATORS)
    (tmp_path / "scene.xml").write_text(INCLUDING)
    return tmp_path / "scene.xml"


@pytest.mark.parametrize("as_scene", [True, False])
def test_an_mjcf_files_includes_are_expanded(tmp_path, as_scene):
    path = including_scene(tmp_path)
    # Run by itself, the robot is named after the main file's model.
    sim = (coulomb.Simulation.from_file(str(path)) if as_scene else
           coulomb.Simulation.from_dict({"robots": [{"name": "scene", "mjcf": str(path)}]}))
    assert sim.joint_names("scene") == ["raise"]
    sim.run(1.5)
    # The included servo holds the lift: kp (0 − q) = m g.
    assert sim.joint_positions("scene")[0] == pytest.approx(-2 * G / 400, rel=1e-3)
    # Sent below the floor (the main file's <worldbody>, merged with the
    # robot's), the 0.4 m block rests on it: q = 0.2 − 1.
    sim.set_pd_targets("scene", [-0.9])
    sim.run(1.5)
    assert sim.joint_positions("scene")[0] == pytest.approx(-0.8, abs=2e-3)


@pytest.mark.parametrize("include, message", [
    ('<include file="missing.xml"/>', r'<include file="missing.xml">: .*missing\.xml: file '
                                      "not found"),
    ('<include file="robot/actuators.xml"/><include file="robot/actuators.xml"/>',
     r'<include file="robot/actuators.xml">: a file is included at most once'),
    ('<include file="scene.xml"/>', r'<include file="scene.xml">: a file is included at '
                                    "most once"),
    ('<include/>', "<include> needs a file"),
])
def test_bad_mjcf_includes_are_refused_in_one_line(tmp_path, include, message):
    path = including_scene(tmp_path)
    path.write_text(INCLUDING.replace('<include file="robot/lift.xml"/>',
                                      '<include file="robot/lift.xml"/>' + include))
    with pytest.raises(ValueError, match=message) as error:
        coulomb.Simulation.from_file(str(path))
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("implicit", [True, False])
def test_a_joint_damper_is_implicit_or_the_schemes(tmp_path, implicit):
    # A 1 kg slider at 1 m/s against d = 50 N·s/m, δt = 0.01 s (no gravity
    # along it): implicit, v_n = v_0 / (1 + δt d/m)^n; the θ-method's
    # symplectic Euler takes it explicitly, v_n = v_0 (1 − δt d/m)^n.
    path = tmp_path / "slider.xml"
    path.write_text("""<mujoco><worldbody><body name="block">
        <joint name="slide" type="slide" axis="1 0 0" damping="50"/>
        <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body></worldbody>
        <keyframe><key name="go" qvel="1"/></keyframe></mujoco>""")
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.01, "implicit_damping": implicit,
        "robots": [{"name": "r", "mjcf": str(path), "keyframe": "go"}]})
    ratio = 1 / 1.5 if implicit else 0.5
    for n in range(1, 6):
        sim.step()
        assert sim.v[0] == pytest.approx(ratio**n, rel=1e-12)


@pytest.mark.parametrize("option, implicit", [
    ("", True),  # Euler, MuJoCo's default, with its eulerdamp
    ('<option><flag eulerdamp="disable"/></option>', False),
    ('<option integrator="implicitfast"><flag eulerdamp="disable"/></option>', True),
    ('<option integrator="implicit"/>', True),
    ('<option integrator="RK4"/>', False),  # explicit: the scene's scheme steps
])
def test_an_mjcf_files_integrator_says_whether_its_dampers_are_implicit(
        tmp_path, option, implicit):
    # The slider above run by itself at δt = 0.01 s: v_n = v_0 / (1 + δt
    # d/m)^n where MuJoCo's integrator takes damping implicitly, else
    # v_0 (1 − δt d/m)^n.
    path = tmp_path / "slider.xml"
    path.write_text(f"""<mujoco>{option}<option timestep="0.01"/><worldbody>
        <body name="block"><joint name="slide" type="slide" axis="1 0 0" damping="50"/>
        <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body></worldbody>
        </mujoco>""")
    sim = coulomb.Simulation.from_file(str(path))
    sim.set_state(sim.q, [1.0])
    ratio = 1 / 1.5 if implicit else 0.5
    for n in range(1, 6):
        sim.step()
        assert sim.v[0] == pytest.approx(ratio**n, rel=1e-12)


def test_an_unknown_mjcf_integrator_is_refused_naming_it(tmp_path):
    path = tmp_path / "model.xml"
    path.write_text(ball_over(FLOOR).replace("<worldbody>",
                                             '<option integrator="Verlet"/><worldbody>'))
    with pytest.raises(ValueError, match=r"model\.xml: <option integrator> 'Verlet': "
                                         "expected Euler, RK4, implicit or implicitfast"):
        coulomb.Simulation.from_file(str(path))


def test_a_robot_names_one_file():
    with pytest.raises(ValueError, match="one of urdf or mjcf"):
        coulomb.Simulation.from_dict(scene({"name": "r", "urdf": "a.urdf", "mjcf": "a.xml"}))
    with pytest.raises(ValueError, match="MJCF file not found"):
        coulomb.Simulation.from_dict(scene({"name": "r", "mjcf": "no_such_model.xml"}))


def test_the_mjcf_scene_file_lays_its_forearm_on_its_table(scenes_dir):
    # The forearm's end (capsule radius 0.04) comes to rest on the table top
    # at z = 0.40: shoulder at z = 0.6, links 0.4 and 0.3 along x at q = 0.
    sim = coulomb.Simulation.from_file(str(scenes_dir / "arm_over_a_table.xml"))
    assert sim.time_step == 0.005
    trajectory = sim.run(2.0)
    shoulder, elbow = sim.joint_positions("arm")
    end = 0.6 - 0.4 * math.sin(shoulder) - 0.3 * math.sin(shoulder + elbow)
    assert end - 0.04 == pytest.approx(0.40, abs=1e-4)
    assert elbow > 0.3  # folded down from level
    assert sim.contacts()["body_b"] == ["world"]
    assert np.abs(sim.v).max() < 1e-3
    assert trajectory.summary["momentum_error_max"] < 1e-6


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
    # (The URDF twin's joint has an effort limit of its own, 100 N·m: the
    # same limit on both makes them the same law, to the bit.)
    gains = {"hinge": {"kp": 30.0, "kd": 2.0, "effort_limit": math.inf}}
    twin = urdf_twin(tmp_path, controllers=gains)
    sim = load(tmp_path, with_actuators('<position joint="hinge" kp="200"/>'),
               base="fixed", joints={"hinge": 0.7}, controllers=gains)
    np.testing.assert_array_equal(sim.run(1.0).q, twin.run(1.0).q)
    free = load(tmp_path, with_actuators('<position joint="hinge" kp="200"/>'),
                base="fixed", joints={"hinge": 0.7}, actuators=False)
    np.testing.assert_array_equal(free.run(1.0).q, urdf_twin(tmp_path).run(1.0).q)


@pytest.mark.parametrize("actuator, message", [
    ('<muscle joint="hinge"/>', "<muscle> is not read"),
    ('<general joint="hinge" dyntype="filter"/>', "only gaintype fixed and dyntype none"),
    ('<general joint="hinge" biastype="affine" biasprm="0 5 0"/>',
     "a <general> law is read as a motor"),  # a negative kp: no servo
    ('<general joint="hinge" biastype="affine" biasprm="0 -5 1"/>',
     "a <general> law is read as a motor"),  # a negative kv
    ('<general joint="hinge" biastype="affine" biasprm="1 0 0"/>', "a constant bias"),
    ('<general joint="hinge" gainprm="5 1"/>', "only its first 1 entries are read"),
    ('<position joint="hinge" ctrlrange="1 0"/>', "ctrlrange '1 0': expected lower < upper"),
    ('<position joint="hinge" inheritrange="1"/>', "inheritrange on joint 'hinge', which has "
     "no range"),
    ('<position joint="hinge" inheritrange="1" ctrlrange="0 1"/>',
     "both ctrlrange and inheritrange"),
    ('<position joint="hinge" kp="5" dampratio="1"/>', "attribute 'dampratio'"),
    ('<position joint="hinge" gear="2"/>', "only a motor's gear is read"),
    ('<motor joint="hinge" forcerange="-1 2"/>', r"forcerange '-1 2': only \[−F, F\]"),
    ('<motor joint="hinge" forcelimited="true"/>', "forcelimited without a forcerange"),
    ('<motor joint="hinge" ctrlrange="0 1"/>', r"ctrlrange '0 1': only \[−F, F\]"),
    ('<motor tendon="cable"/>', r"no fixed tendon named 'cable' \(spatial tendons are not "
     r"read\)"),
    ('<motor joint="hinge" tendon="cable"/>', "acts on both a joint and a tendon"),
    ('<motor site="tip"/>', "attribute 'site'"),
    ('<motor/>', "acts on no joint or tendon"),
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


def test_actuators_of_another_type_than_their_class_defaults_are_refused(tmp_path):
    text = with_actuators('<motor class="arm" joint="hinge"/>').replace(
        "<worldbody>", '<default><default class="arm"><position kp="9"/></default>'
        "</default><worldbody>")
    with pytest.raises(ValueError, match="class 'arm' sets <position> defaults: they are "
                       "read for <position> actuators only, not for a <motor>"):
        load(tmp_path, text, base="fixed")
    load(tmp_path, text, base="fixed", actuators=False)
    with pytest.raises(ValueError, match="only an MJCF file has actuators"):
        urdf_twin(tmp_path, actuators=False)


def with_actuator_defaults(defaults, actuator):
    return with_actuators(actuator).replace("<worldbody>", f"{defaults}<worldbody>")


@pytest.mark.parametrize("text, controller", [
    # MuJoCo's general laws of the three kinds.
    (with_actuators('<general joint="hinge" gainprm="200" biastype="affine" '
                    'biasprm="0 -200 -20"/>'), {"kp": 200.0, "kd": 20.0}),
    (with_actuators('<general joint="hinge" gainprm="3 0 0" biastype="affine" '
                    'biasprm="0 0 -3"/>'), {"kd": 3.0}),
    (with_actuators('<general joint="hinge" gainprm="5" forcerange="-4 4"/>'),
     {"effort_limit": 4.0}),
    # Defaults: the top class, a named class, a nested class inheriting and
    # overriding, and the actuator's own attribute overriding its class's.
    (with_actuator_defaults('<default><position kp="200" kv="20"/></default>',
                            '<position joint="hinge"/>'), {"kp": 200.0, "kd": 20.0}),
    (with_actuator_defaults('<default><default class="arm"><velocity kv="3"/></default>'
                            '</default>', '<velocity class="arm" joint="hinge"/>'), {"kd": 3.0}),
    (with_actuator_defaults('<default><default class="arm"><position kp="200" kv="20" '
                            'forcerange="-4 4"/><default class="wrist"><position kp="50"/>'
                            '</default></default></default>',
                            '<position class="wrist" joint="hinge"/>'),
     {"kp": 50.0, "kd": 20.0, "effort_limit": 4.0}),
    (with_actuator_defaults('<default><position kp="200" kv="20"/></default>',
                            '<position joint="hinge" kv="5"/>'), {"kp": 200.0, "kd": 5.0}),
    # A servo written as a <general> with its law in the defaults, as many
    # published models write them.
    (with_actuator_defaults('<default><default class="arm"><general biastype="affine" '
                            'gainprm="200" biasprm="0 -200 -20" forcerange="-4 4"/>'
                            '</default></default>', '<general class="arm" joint="hinge"/>'),
     {"kp": 200.0, "kd": 20.0, "effort_limit": 4.0}),
])
def test_general_actuators_and_actuator_defaults_are_the_scenes_pd_controller(
        tmp_path, text, controller):
    controller = {"effort_limit": math.inf, **controller}
    twin = urdf_twin(tmp_path, controllers={"hinge": controller})
    sim = load(tmp_path, text, base="fixed", joints={"hinge": 0.7})
    np.testing.assert_array_equal(sim.run(2.0).q, twin.run(2.0).q)
    np.testing.assert_array_equal(sim.joint_efforts("r"), twin.joint_efforts("r"))


def test_a_general_motors_effort_is_bounded_by_its_gain_times_its_control_range(tmp_path):
    sim = load(tmp_path, with_actuators('<general joint="hinge" gear="2" gainprm="5" '
                                        'ctrlrange="-1 1"/>'), base="fixed")
    sim.set_joint_efforts("r", [100.0])
    sim.step()
    assert sim.joint_efforts("r")[0] == pytest.approx(2 * 5 * 1.0, rel=1e-12)


def balance(kp, target):
    """The pendulum's static angle under a position servo: kp (q_d − q) =
    m g l sin q, solved by bisection on [−π/2, π/2]."""
    low, high = -math.pi / 2, math.pi / 2
    for _ in range(200):
        middle = 0.5 * (low + high)
        if kp * (target - middle) - 2.0 * G * 0.5 * math.sin(middle) > 0:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


@pytest.mark.parametrize("ranges, joint, first, second", [
    # MuJoCo's control starts at 0, clamped into the range like every control.
    ('ctrlrange="0.2 0.5"', "", 0.2, 0.5),
    ('ctrlrange="-0.5 -0.1"', "", -0.1, -0.5),
    # inheritrange: the joint's range (degrees, MuJoCo's default) scaled
    # about its middle: [−30°, 50°] at 1/2 is [−10°, 30°], which holds 0.
    ('inheritrange="0.5"', 'range="-30 50"', 0.0, math.radians(30)),
])
def test_a_position_servos_targets_are_clamped_into_its_control_range(tmp_path, ranges,
                                                                      joint, first, second):
    kp = 200.0
    text = with_actuators(f'<position joint="hinge" kp="{kp}" kv="20" {ranges}/>').replace(
        'axis="0 1 0"/>', f'axis="0 1 0" {joint}/>')
    sim = load(tmp_path, text, base="fixed")
    sim.run(5.0)
    assert sim.q[0] == pytest.approx(balance(kp, first), abs=1e-6)
    sim.set_pd_targets("r", [np.sign(second) * 2.0])  # beyond the range
    sim.run(5.0)
    assert sim.q[0] == pytest.approx(balance(kp, second), abs=1e-6)


def test_a_velocity_servos_target_velocity_is_clamped_into_its_control_range(tmp_path):
    servo = '<velocity joint="hinge" kv="30" ctrlrange="-1 1"/>'
    sim = load(tmp_path, with_actuators(servo), base="fixed")
    at_bound = load(tmp_path, with_actuators(servo), base="fixed")
    sim.set_pd_targets("r", [0.0], [5.0])
    at_bound.set_pd_targets("r", [0.0], [1.0])
    np.testing.assert_array_equal(sim.run(1.0).q, at_bound.run(1.0).q)
    assert sim.v[0] > 0.5  # driven at about the bound, against gravity


# Two fingers sliding along z under a fixed hand, driven through a fixed
# tendon L = ½ q1 + q2 (MuJoCo's moment arms: finger k takes c_k f of the
# tendon's force f). Their masses are 0.2 kg times their coefficients, so
# that a force f = 0.2 g holds both, and any force moves both alike.
GRIPPER = """<mujoco model="gripper">
  <worldbody>
    <body name="hand" pos="0 0 1">
      <geom type="box" size="0.05 0.05 0.02" mass="1" contype="0" conaffinity="0"/>
      <body name="left" pos="0 0.03 -0.05">
        <joint name="finger1" type="slide" axis="0 0 1"/>
        <geom type="box" size="0.01 0.005 0.02" mass="0.1"/>
      </body>
      <body name="right" pos="0 -0.03 -0.05">
        <joint name="finger2" type="slide" axis="0 0 1"/>
        <geom type="box" size="0.01 0.005 0.02" mass="0.2"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="split"><joint joint="finger1" coef="0.5"/><joint joint="finger2" coef="1"/></fixed>
  </tendon>
  <actuator>ACTUATOR</actuator>
  <keyframe><key name="open" ctrl="CTRL"/></keyframe>
</mujoco>"""
HOLDING_FORCE = 0.2 * G
# A servo written as published grippers write it: f = a ctrl − kp L − kv L̇,
# its control 0–255 for a target of 0–40 mm (a = 0.04 kp / 255).
GRIPPER_SERVO = ('<general name="grip" tendon="split" ctrlrange="0 255" '
                 'gainprm="0.01568627451" biastype="affine" biasprm="0 -100 -10"/>')


def gripper(actuator=GRIPPER_SERVO, ctrl="255"):
    return GRIPPER.replace("ACTUATOR", actuator).replace("CTRL", ctrl)


def run_alone(tmp_path, text, keyframe=None):
    """The MJCF file `text` run by itself (Simulation.from_file)."""
    path = tmp_path / "gripper.xml"
    path.write_text(text)
    return coulomb.Simulation.from_file(str(path), keyframe=keyframe)


def test_a_servo_on_a_fixed_tendon_holds_it_where_its_law_balances_gravity(tmp_path):
    # At rest f = kp (s ctrl − L) = 0.2 g: L = s ctrl − 0.2 g / kp, each
    # finger at L / 1.5 (they move alike), with efforts c_k f; to 1e-7 m,
    # a force error of 1e-5 N: the solve stops at a relative 1e-6.
    sim = run_alone(tmp_path, gripper(), keyframe="open")
    assert sim.tendon_names("gripper") == ["split"]
    target_per_control = 0.01568627451 / 100
    sim.run(3.0)
    length = target_per_control * 255 - HOLDING_FORCE / 100
    assert sim.tendon_lengths("gripper")[0] == pytest.approx(length, abs=1e-7)
    np.testing.assert_allclose(sim.joint_positions("gripper"), [length / 1.5] * 2,
                               atol=1e-7)
    np.testing.assert_allclose(sim.joint_efforts("gripper"),
                               [0.5 * HOLDING_FORCE, HOLDING_FORCE], rtol=1e-6)
    # A target from Python, in metres of tendon; beyond the control range
    # it is clamped to the range's 40 mm.
    for target, held in ((0.01, 0.01), (1.0, target_per_control * 255)):
        sim.set_pd_target("gripper", "split", target)
        sim.run(3.0)
        assert sim.tendon_lengths("gripper")[0] == pytest.approx(
            held - HOLDING_FORCE / 100, abs=1e-7)


def test_a_motor_on_a_fixed_tendon_pushes_each_joint_by_its_coefficient(tmp_path):
    # f = g a ctrl = 2 × 3 × 0.2 g / 6 = 0.2 g holds the fingers still; twice
    # that lifts both at g: symplectic Euler's q_n = δt² g n (n + 1) / 2.
    sim = run_alone(tmp_path, gripper('<general tendon="split" gear="2" gainprm="3"/>',
                                      str(HOLDING_FORCE / 6)), keyframe="open")
    sim.run(0.5)
    np.testing.assert_allclose(sim.joint_positions("gripper"), [0.0, 0.0], atol=1e-14)
    sim.set_tendon_force("gripper", "split", 2 * HOLDING_FORCE)
    steps = 50
    sim.run(steps * sim.time_step)
    rise = sim.time_step ** 2 * G * steps * (steps + 1) / 2
    np.testing.assert_allclose(sim.joint_positions("gripper"), [rise, rise], rtol=1e-9)
    np.testing.assert_allclose(sim.joint_efforts("gripper"),
                               [HOLDING_FORCE, 2 * HOLDING_FORCE], rtol=1e-12)


def test_a_motors_force_range_bounds_its_force_along_the_tendon(tmp_path):
    sim = run_alone(tmp_path, gripper('<motor tendon="split" gear="2" forcerange="-1 1"/>', "0"))
    sim.set_tendon_force("gripper", "split", 100.0)
    sim.step()
    np.testing.assert_allclose(sim.joint_efforts("gripper"), [1.0, 2.0], rtol=1e-12)


def test_a_target_a_force_or_a_control_that_is_not_a_number_is_refused(tmp_path):
    sim = run_alone(tmp_path, gripper('<motor tendon="split" gear="2" forcerange="-1 1"/>', "0"))
    for call, says in ((lambda: sim.set_pd_target("gripper", "split", "0.1"), "position"),
                       (lambda: sim.set_pd_target("gripper", "split", 0.1, None), "velocity"),
                       (lambda: sim.set_tendon_force("gripper", "split", True), "force"),
                       (lambda: sim.set_ctrl("gripper", {"split": "1"}), "ctrl['split']"),
                       (lambda: sim.run("1"), "duration")):
        with pytest.raises(TypeError, match=re.escape(says + ": expected a number")):
            call()
    assert sim.time == 0.0
    # numpy's numbers are numbers.
    sim.set_tendon_force("gripper", "split", np.float32(0.5))
    sim.run(np.array(0.02))
    assert sim.time == pytest.approx(0.02)


def test_a_scene_controller_drives_a_fixed_tendon_by_its_name(tmp_path):
    path = tmp_path / "gripper.xml"
    path.write_text(gripper())
    sim = coulomb.Simulation.from_dict(scene({
        "name": "g", "mjcf": str(path), "base": "fixed", "pose": {"position": [0, 0, 1]},
        "actuators": False,
        "controllers": {"split": {"kp": 50.0, "kd": 5.0, "target": 0.03}}}))
    sim.run(3.0)
    assert sim.tendon_lengths("g")[0] == pytest.approx(0.03 - HOLDING_FORCE / 50, abs=1e-7)
    snapshot = pickle.loads(pickle.dumps(sim.snapshot()))  # through its bytes
    sim.set_pd_target("g", "split", 0.0)
    sim.run(1.0)
    sim.restore(snapshot)  # the tendon's controller, its target 0.03, comes back
    sim.run(1.0)
    assert sim.tendon_lengths("g")[0] == pytest.approx(0.03 - HOLDING_FORCE / 50, abs=1e-7)


def test_each_body_of_a_file_drives_its_own_fixed_tendons(tmp_path):
    # Two grippers in one file, each its own robot with its tendon and
    # servo, the key's controls 255 and 127.5 taken in actuator order; a
    # tendon joining a finger of each, and an equality between their
    # tendons, are said not to be read, by each.
    hand = re.search(r'    <body name="hand".*?\n    </body>\n', GRIPPER, re.S).group(0)
    second = hand.replace('"hand" pos="0 0 1"', '"hand2" pos="1 0 1"')
    for old, new in (("left", "left2"), ("right", "right2"), ("finger1", "finger3"),
                     ("finger2", "finger4")):
        second = second.replace(f'"{old}"', f'"{new}"')
    text = (gripper(GRIPPER_SERVO + GRIPPER_SERVO.replace('"grip" tendon="split"',
                                                          '"grip2" tendon="split2"'),
                    "255 127.5")
            .replace(hand, hand + second)
            .replace("</tendon>", '<fixed name="split2"><joint joint="finger3" coef="0.5"/>'
                     '<joint joint="finger4" coef="1"/></fixed><fixed name="cross"><joint '
                     'joint="finger1" coef="1"/><joint joint="finger3" coef="1"/></fixed>'
                     '</tendon><equality><tendon tendon1="split" tendon2="split2"/>'
                     "</equality>"))
    path = tmp_path / "grippers.xml"
    path.write_text(text)
    with pytest.warns(UserWarning):
        sim = coulomb.Simulation.from_file(str(path), keyframe="open")
    assert [sim.tendon_names(robot) for robot in ("hand", "hand2")] == [["split"], ["split2"]]
    sim.run(3.0)
    for robot, control in (("hand", 255), ("hand2", 127.5)):
        assert sim.tendon_lengths(robot)[0] == pytest.approx(
            0.04 * control / 255 - HOLDING_FORCE / 100, abs=1e-7)
    assert [w.split(": ", 1)[1] for w in sim.warnings] == [
        "<tendon><fixed> 'cross' joins joint 'finger1' to another body's: not read",
        "<equality><tendon> names 'split2' of another body of the file: not read",
        "<tendon><fixed> 'cross' joins joint 'finger3' to another body's: not read",
        "<equality><tendon> names 'split' of another body of the file: not read"]


def gripper_with_tendon(attributes, actuator="", ctrl="0", finger1=""):
    """The gripper, its tendon given `attributes`, finger1's joint `finger1`."""
    return gripper(actuator, ctrl).replace('<fixed name="split"',
                                           f'<fixed name="split" {attributes}').replace(
        '<joint name="finger1" type="slide" axis="0 0 1"/>',
        f'<joint name="finger1" type="slide" axis="0 0 1" {finger1}/>')


@pytest.mark.parametrize("attributes, finger1, rest", [
    ('stiffness="50" springlength="0.02"', "", 0.02),
    # Its length with the joints at their springref, as MuJoCo's (not at
    # their ref, qpos0).
    ('stiffness="50"', 'ref="0.03" springref="0.012"', 0.5 * 0.012),
])
def test_a_tendon_spring_holds_the_fingers_where_it_balances_their_weight(
        tmp_path, attributes, finger1, rest):
    # k (L_rest − L) = 0.2 g at rest.
    sim = run_alone(tmp_path, gripper_with_tendon(attributes + ' damping="3"', finger1=finger1))
    sim.run(3.0)
    assert sim.tendon_lengths("gripper")[0] == pytest.approx(rest - HOLDING_FORCE / 50,
                                                             abs=1e-7)


def test_a_tendon_damper_lets_the_fingers_rise_at_their_terminal_rate(tmp_path):
    # A force F along the tendon against 0.2 g and d L̇: L̇ = (F − 0.2 g) / d.
    sim = run_alone(tmp_path, gripper_with_tendon('damping="40"'))
    sim.set_tendon_force("gripper", "split", 3 * HOLDING_FORCE)
    sim.run(1.0)
    before = sim.tendon_lengths("gripper")[0]
    sim.run(0.1)
    rate = (sim.tendon_lengths("gripper")[0] - before) / 0.1
    assert rate == pytest.approx(2 * HOLDING_FORCE / 40, rel=1e-5)  # the solve's tolerance


def test_a_tendon_range_stops_the_fingers_at_its_bound(tmp_path):
    sim = run_alone(tmp_path, gripper_with_tendon('range="-0.01 0.015"'))
    sim.set_tendon_force("gripper", "split", 3 * HOLDING_FORCE)
    sim.run(1.0)
    lengths = []
    for _ in range(100):
        sim.step()
        lengths.append(sim.tendon_lengths("gripper")[0])
    assert max(lengths) < 0.015 + 1e-4  # near-rigid: within 0.1 mm of the bound
    assert lengths[-1] == pytest.approx(0.015, abs=1e-4)
    sim.set_tendon_force("gripper", "split", 0.0)  # let go: it falls to the lower bound
    sim.run(1.0)
    assert sim.tendon_lengths("gripper")[0] == pytest.approx(-0.01, abs=1e-4)


@pytest.mark.parametrize("force, moves", [(0.6, False), (1.5, True)])
def test_a_tendons_friction_holds_it_until_the_force_along_it_exceeds_it(tmp_path, force,
                                                                        moves):
    # frictionloss 0.5 N against a net force (F − 0.2 g) along the tendon.
    sim = run_alone(tmp_path, gripper_with_tendon('frictionloss="0.5"'))
    sim.set_tendon_force("gripper", "split", HOLDING_FORCE + force * 0.5)
    snapshot = pickle.loads(pickle.dumps(sim.snapshot()))  # its friction through bytes
    sim.run(0.5)
    rise = sim.tendon_lengths("gripper")[0]
    assert (rise > 1e-3) if moves else (abs(rise) < 1e-5)
    sim.restore(snapshot)
    sim.run(0.5)
    assert sim.tendon_lengths("gripper")[0] == pytest.approx(rise, abs=1e-12)


def test_a_scenes_springs_and_limits_may_name_a_tendon(tmp_path):
    # The scene's spring replaces the file's (k = 50 at 0.02 instead of
    # k = 5 at 0): at rest at 0.02 − 0.2 g / 50; its limits then stop it.
    path = tmp_path / "gripper.xml"
    path.write_text(gripper_with_tendon('stiffness="5" damping="3"'))
    robot = {"name": "g", "mjcf": str(path), "base": "fixed",
             "pose": {"position": [0, 0, 1]}, "actuators": False,
             "springs": {"split": {"stiffness": 50.0, "rest": 0.02, "damping": 3.0}}}
    sim = coulomb.Simulation.from_dict(scene(robot))
    sim.run(3.0)
    assert sim.tendon_lengths("g")[0] == pytest.approx(0.02 - HOLDING_FORCE / 50, abs=1e-7)
    sim = coulomb.Simulation.from_dict(scene({**robot, "limits": {"split": [-0.01, 0.0]}}))
    sim.run(3.0)
    assert sim.tendon_lengths("g")[0] == pytest.approx(-0.01, abs=1e-4)


@pytest.mark.parametrize("tendon, message", [
    ('<fixed name="finger1"><joint joint="finger2" coef="1"/></fixed>',
     "tendon 'finger1': a joint or another tendon has that name"),
    ('<fixed name="t"><joint joint="thumb" coef="1"/></fixed>', "no joint named 'thumb'"),
    ('<fixed name="t"/>', "fixed tendon 't': no <joint> in it"),
    ('<fixed name="t"><joint joint="finger1" coef="x"/></fixed>',
     "fixed tendon 't': coef of joint 'finger1'"),
    ('<fixed name="t"><joint coef="1"/></fixed>', "a <joint> needs its joint and coef"),
    ('<fixed name="t"><joint joint="finger1"/></fixed>', "a <joint> needs its joint and coef"),
    ('<fixed name="t"><joint joint="finger1" coef="1"/></fixed><fixed name="t"><joint '
     'joint="finger2" coef="1"/></fixed>', "two tendons are named 't'"),
    ('<fixed name="t" stiffness="-1"><joint joint="finger1" coef="1"/></fixed>',
     "fixed tendon 't': negative stiffness"),
    ('<fixed name="t" springlength="0 0.1"><joint joint="finger1" coef="1"/></fixed>',
     "fixed tendon 't': springlength: a dead band is not read"),
    ('<fixed name="t" range="0.1 0"><joint joint="finger1" coef="1"/></fixed>',
     "fixed tendon 't': range: expected lower < upper"),
    ('<fixed name="t" limited="true"><joint joint="finger1" coef="1"/></fixed>',
     "fixed tendon 't': range"),
])
def test_bad_fixed_tendons_are_refused_in_one_line(tmp_path, tendon, message):
    text = re.sub(r"<tendon>.*</tendon>", f"<tendon>{tendon}</tendon>", gripper("", "0"),
                  flags=re.S)
    with pytest.raises(ValueError, match=message) as error:
        load(tmp_path, text, base="fixed")
    assert "\n" not in str(error.value)


def test_python_names_the_joint_or_tendon_it_cannot_drive(tmp_path):
    sim = run_alone(tmp_path, gripper("", "0"))
    with pytest.raises(KeyError, match="gripper: no joint or tendon named 'cable' "
                       r"\(joints and tendons: finger1, finger2, split\)"):
        sim.set_pd_target("gripper", "cable", 0.0)
    with pytest.raises(ValueError, match="'split' has no PD gains"):
        sim.set_pd_target("gripper", "split", 0.0)
    with pytest.raises(KeyError, match=r"gripper: no tendon named 'finger1' \(tendons: "
                       r"split\)"):
        sim.set_tendon_force("gripper", "finger1", 1.0)
    sim.set_pd_gains("gripper", [10.0, 0.0], [1.0, 0.0])  # finger1 alone has gains
    sim.set_pd_target("gripper", "finger1", 0.01)
    with pytest.raises(ValueError, match="'finger2' has no PD gains"):
        sim.set_pd_target("gripper", "finger2", 0.01)


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


@pytest.mark.parametrize("text, spring", [
    # springref in degrees (MuJoCo's default unit), or in radians.
    (pendulum_with('stiffness="50" springref="30"'), (50.0, math.radians(30))),
    (pendulum_with('stiffness="50" springref="0.5"').replace(
        "<worldbody>", '<compiler angle="radian"/><worldbody>'), (50.0, 0.5)),
    (pendulum_with('stiffness="50"'), (50.0, 0.0)),
    # With the joint's damping, read by Pinocchio's parser, in one spring-damper.
    (pendulum_with('stiffness="50" springref="30" damping="3"'), (50.0, math.radians(30), 3.0)),
    # From the top class, a body's childclass, a nested class inheriting.
    (pendulum_with(defaults='<default><joint stiffness="50" springref="30"/></default>'),
     (50.0, math.radians(30))),
    (pendulum_with(defaults='<default><default class="soft"><joint stiffness="20"/></default>'
                   '</default>', body_attributes='childclass="soft"'), (20.0, 0.0)),
    (pendulum_with('class="stiff"', defaults='<default><default class="soft">'
                   '<joint stiffness="20" springref="10"/><default class="stiff">'
                   '<joint stiffness="80"/></default></default></default>',
                   body_attributes='childclass="soft"'), (80.0, math.radians(10))),
])
def test_an_mjcf_joints_stiffness_is_the_scenes_spring(tmp_path, text, spring):
    stiffness, rest, damping = (*spring, 0.0)[:3]
    twin = urdf_twin(tmp_path, springs={"hinge": {"stiffness": stiffness, "rest": rest,
                                                  "damping": damping}})
    sim = load(tmp_path, text, base="fixed", joints={"hinge": 0.7})
    np.testing.assert_array_equal(sim.run(1.0).q, twin.run(1.0).q)


SLIDER_MJCF = """<mujoco model="slider">
  <worldbody>
    <body name="carriage">
      <joint name="lift" type="slide" axis="0 0 1" stiffness="400" springref="0.3"
             damping="40"/>
      <inertial pos="0 0 0" mass="2" diaginertia="0.1 0.1 0.1"/>
    </body>
  </worldbody>
</mujoco>"""


def test_a_springs_static_balance_is_where_its_force_holds_the_weight(tmp_path):
    # A slide joint's springref is a length (no conversion from degrees):
    # k (q_s − q) = m g.
    sim = load(tmp_path, SLIDER_MJCF, base="fixed")
    sim.run(5.0)
    assert sim.q[0] == pytest.approx(0.3 - 2.0 * G / 400.0, abs=1e-9)
    # The pendulum's: k (q_s − q) = m g l sin q, q_s = 30°.
    sim = load(tmp_path, pendulum_with('stiffness="50" springref="30" damping="5"'),
               base="fixed")
    sim.run(10.0)
    q = sim.q[0]
    assert 50.0 * (math.radians(30) - q) == pytest.approx(2.0 * G * 0.5 * math.sin(q),
                                                        rel=1e-6)


@pytest.mark.parametrize("attributes, message", [
    ('stiffness="-1"', "joint 'hinge': negative stiffness"),
    ('stiffness="stiff"', "joint 'hinge': stiffness 'stiff': not a number"),
    ('stiffness="5" springref="1 2"', "joint 'hinge': springref '1 2': expected one number"),
    ('ref="nan"', "joint 'hinge': ref 'nan': not a number"),
    ('type="screw"', "joint 'hinge': unknown type 'screw'"),
    ('stiffness="5" class="soft"', "class 'soft' is not defined"),
])
def test_mjcf_joint_springs_that_cannot_be_read_are_refused_in_one_line(tmp_path, attributes,
                                                                       message):
    with pytest.raises(ValueError, match=r"robots\[0\]\.mjcf: .*" + message) as error:
        load(tmp_path, pendulum_with(attributes), base="fixed")
    assert "\n" not in str(error.value)


def test_an_undefined_class_is_refused_in_one_line(tmp_path):
    with pytest.raises(ValueError, match="class 'stiff' is not defined in <default>"):
        load(tmp_path, with_actuators('<motor class="stiff" joint="hinge"/>'), base="fixed")
    with pytest.raises(ValueError, match="class 'soft' is not defined in <default>"):
        load(tmp_path, pendulum_with(body_attributes='childclass="soft"'), base="fixed")


def test_a_ball_joints_stiffness_is_refused(tmp_path):
    text = PENDULUM_MJCF.replace('type="hinge" axis="0 1 0"', 'type="ball" stiffness="3"')
    with pytest.raises(ValueError, match="a ball joint's stiffness is not read"):
        load(tmp_path, text, base="fixed")


# A hinge with a ref, a ball joint and a slide, with two servos and keyframes.
ARM_MJCF = """<mujoco model="arm">
  <worldbody>
    <body name="upper">
      <joint name="shoulder" type="hinge" axis="0 1 0" ref="10"/>
      <inertial pos="0.2 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <body name="fore" pos="0.4 0 0">
        <joint name="wrist" type="ball"/>
        <inertial pos="0.1 0 0" mass="0.5" diaginertia="0.01 0.01 0.01"/>
        <body name="tip" pos="0.2 0 0">
          <joint name="extend" type="slide" axis="1 0 0"/>
          <inertial pos="0 0 0" mass="0.2" diaginertia="0.001 0.001 0.001"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position joint="shoulder" kp="50" kv="5" ctrlrange="-1 1"/>
    <velocity joint="extend" kv="20"/>
  </actuator>
  <keyframe>
    <key name="home" qpos="0.3 0.7071067811865476 0 0.7071067811865476 0 0.05"
         ctrl="0.4 0.2"/>
    <key name="far" qpos="0.3 0.7071067811865476 0 0.7071067811865476 0 0.05"
         ctrl="1.7 0.2"/>
    <key name="pose" qpos="0.3 0.7071067811865476 0 0.7071067811865476 0 0.05"/>
    <key name="moving" qpos="0.3 0.7071067811865476 0 0.7071067811865476 0 0.05"
         qvel="0.5 0 0 1 0.2"/>
  </keyframe>
</mujoco>"""


def rotation_about_y(angle):
    """The unit quaternion (w, x, y, z) of a rotation by `angle` about y."""
    return np.array([math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0])


def test_an_mjcf_robot_starts_at_its_joints_ref_where_the_file_draws_it(tmp_path):
    # MuJoCo's qpos0 puts the hinge at its ref (10°), the configuration in
    # which the bodies sit as the file draws them: the upper arm unturned.
    sim = load(tmp_path, ARM_MJCF)
    assert sim.joint_positions("r")[0] == pytest.approx(math.radians(10))
    np.testing.assert_allclose(sim.body_orientation("upper"), [1, 0, 0, 0], atol=1e-15)
    np.testing.assert_allclose(sim.body_position("tip"), [0.6, 0, 0], atol=1e-15)


def test_a_keyframe_sets_the_joints_in_mujocos_qpos_order(tmp_path):
    sim = load(tmp_path, ARM_MJCF, keyframe="pose")
    np.testing.assert_array_equal(sim.joint_positions("r"), [0.3, 0.05])
    # The shoulder turns the arm by q − ref about y, the ball joint's
    # quaternion (w x y z) by 90° more; the slide moves the tip along the
    # forearm's x.
    upper = 0.3 - math.radians(10)
    np.testing.assert_allclose(sim.body_orientation("upper"), rotation_about_y(upper),
                               atol=1e-12)
    np.testing.assert_allclose(sim.body_orientation("fore"),
                               rotation_about_y(upper + math.pi / 2), atol=1e-12)
    fore_x = np.array([math.cos(upper + math.pi / 2), 0, -math.sin(upper + math.pi / 2)])
    elbow = 0.4 * np.array([math.cos(upper), 0, -math.sin(upper)])
    np.testing.assert_allclose(sim.body_position("tip"), elbow + 0.25 * fore_x, atol=1e-12)


def test_a_keyframes_qvel_sets_the_joint_velocities(tmp_path):
    sim = load(tmp_path, ARM_MJCF, keyframe="moving")
    np.testing.assert_array_equal(sim.joint_velocities("r"), [0.5, 0.2])
    # The forearm turns at the shoulder's 0.5 rad/s about y plus the ball
    # joint's 1 rad/s about its own z, which the forearm's pose turns into
    # (sin θ, 0, cos θ) in world, θ = q − ref + 90°.
    theta = 0.3 - math.radians(10) + math.pi / 2
    np.testing.assert_allclose(sim.body_velocity("fore")[1],
                               [math.sin(theta), 0.5, math.cos(theta)], atol=1e-12)


def test_a_keyframes_qvel_sets_a_floating_roots_velocity_as_mujoco_does(tmp_path):
    # A free joint's qvel: the linear velocity in world, the angular one in
    # the body frame (turned 90° about z here).
    text = BALL_MJCF.replace("</mujoco>", '<keyframe><key name="thrown" qpos="0 0 2 '
                             '0.7071067811865476 0 0 0.7071067811865476" qvel="1 0 0 2 0 0"/>'
                             "</keyframe></mujoco>")
    sim = load(tmp_path, text, keyframe="thrown")
    linear, angular = sim.body_velocity("ball")
    np.testing.assert_allclose(linear, [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(angular, [0, 2, 0], atol=1e-12)  # body x is world y


@pytest.mark.parametrize("key, targets", [("home", [0.4, 0.0]),
                                          ("far", [1.0, 0.0])])  # ctrl 1.7 clamped
def test_a_keyframes_ctrl_sets_the_servos_targets(tmp_path, key, targets):
    sim = load(tmp_path, ARM_MJCF, keyframe=key)
    twin = load(tmp_path, ARM_MJCF, keyframe="pose")
    twin.set_pd_targets("r", targets, [0.0, 0.2])  # the velocity servo's ctrl: 0.2 m/s
    np.testing.assert_array_equal(sim.run(1.0).q, twin.run(1.0).q)


def test_a_keyframes_ctrl_sets_a_motors_effort(tmp_path):
    text = with_actuators('<motor joint="hinge" gear="2"/>').replace(
        "</mujoco>", '<keyframe><key name="push" qpos="0.2" ctrl="1.5"/></keyframe></mujoco>')
    sim = load(tmp_path, text, keyframe="push")
    assert sim.joint_positions("r")[0] == 0.2
    sim.step()
    assert sim.joint_efforts("r")[0] == pytest.approx(2 * 1.5, rel=1e-12)  # gear × ctrl


def test_a_floating_robot_takes_its_pose_from_the_keyframe_unless_the_scene_places_it(
        tmp_path):
    text = BALL_MJCF.replace("</mujoco>", '<keyframe><key name="up" qpos="0.5 0 2 '
                             '0.7071067811865476 0 0 0.7071067811865476"/></keyframe></mujoco>')
    sim = load(tmp_path, text, keyframe="up")
    np.testing.assert_allclose(sim.body_position("ball"), [0.5, 0, 2], atol=1e-15)
    np.testing.assert_allclose(sim.body_orientation("ball"),
                               [math.sqrt(0.5), 0, 0, math.sqrt(0.5)], atol=1e-15)
    placed = load(tmp_path, text, keyframe="up", pose={"position": [0, 1, 1]})
    np.testing.assert_allclose(placed.body_position("ball"), [0, 1, 1], atol=1e-15)


@pytest.mark.parametrize("robot, message", [
    ({"keyframe": "away"}, r"robots\[0\]\.keyframe: .*no keyframe named 'away'"),
    ({"keyframe": 3}, r"robots\[0\]\.keyframe: .*no keyframe named '3'"),
])
def test_a_keyframe_that_is_not_in_the_file_is_refused(tmp_path, robot, message):
    with pytest.raises(ValueError, match=message):
        load(tmp_path, ARM_MJCF, **robot)


@pytest.mark.parametrize("key, message", [
    # Pinocchio's parser reads every keyframe's qpos too, and refuses these.
    ('<key name="k" qpos="0.3 0.05"/>',
     r"robots\[0\]\.mjcf: .*Keyframe size does not match model size"),
    ('<key name="k" qpos="0.3 1 0 0 0 x"/>',
     r"robots\[0\]\.mjcf: .*Keyframe size does not match model size"),
    ('<key name="k" ctrl="1 2 3"/>',
     r"robots\[0\]\.keyframe: .*keyframe 'k': ctrl has 3 numbers, the file's actuators 2"),
    ('<key name="k" qvel="1 2"/>',
     r"robots\[0\]\.keyframe: .*keyframe 'k': qvel has 2 numbers, the file's joints 5"),
])
def test_a_keyframe_that_does_not_fit_the_robot_is_refused_in_one_line(tmp_path, key,
                                                                      message):
    text = ARM_MJCF.replace('<key name="pose"', key + '<key name="pose"')
    with pytest.raises(ValueError, match=message) as error:
        load(tmp_path, text, keyframe="k")
    assert "\n" not in str(error.value)


def test_only_an_mjcf_file_has_keyframes(tmp_path):
    with pytest.raises(ValueError, match="only an MJCF file has keyframes"):
        urdf_twin(tmp_path, keyframe="home")


# A box on a slide and a hinge, above a fixed box of the base: the two are
# not adjacent links, so they collide unless the file excludes them. The
# scene's pose puts the base where MuJoCo puts it.
STACK_MJCF = """<mujoco model="stack">
  <worldbody>
    <body name="base" pos="0 0 0.5">
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
      <body name="mid" pos="0 0 0.5">
        <joint name="drop" type="slide" axis="0 0 1"/>
        <inertial pos="0 0 0" mass="0.1" diaginertia="0.001 0.001 0.001"/>
        <body name="top">
          <joint name="spin" type="hinge" axis="0 0 1"/>
          <geom type="box" size="0.1 0.1 0.1" mass="1"/>
        </body>
      </body>
    </body>
  </worldbody>
  CONTACT
</mujoco>"""


@pytest.mark.parametrize("contact, height", [
    ("", 0.7),  # on the base box: 0.5 + 0.1 + 0.1
    ('<contact><exclude body1="base" body2="top"/></contact>', 0.1),  # through it, on the ground
])
def test_an_mjcf_contact_exclude_lets_two_links_pass_through(tmp_path, contact, height):
    sim = load(tmp_path, STACK_MJCF.replace("CONTACT", contact),
               pose={"position": [0, 0, 0.5]})
    sim.run(2.0)
    assert sim.body_position("top")[2] == pytest.approx(height, abs=2e-3)
    assert sim.joint_velocities("r")[0] == pytest.approx(0.0, abs=1e-3)  # at rest


def test_an_mjcf_exclude_of_a_body_the_robot_lacks_is_refused(tmp_path):
    text = STACK_MJCF.replace("CONTACT", '<contact><exclude body1="base" body2="lid"/></contact>')
    with pytest.raises(ValueError, match=r"robots\[0\]\.mjcf: .*<contact><exclude>: no body "
                       "named 'lid'"):
        load(tmp_path, text)


def test_what_an_mjcf_file_holds_that_is_not_simulated_is_a_warning(tmp_path):
    text = PENDULUM_MJCF.replace("</mujoco>", """<equality>
    <flex flex="cloth"/><weld body1="bob"/><connect body1="bob" anchor="0 0 -1"/>
  </equality>
  <tendon><fixed name="t"><joint joint="hinge" coef="1"/></fixed>
    <fixed name="spring" stiffness="3" armature="0.1"><joint joint="hinge" coef="1"/></fixed>
    <fixed class="stop"><joint joint="hinge" coef="2"/></fixed>
    <spatial name="cable"><site site="a"/><site site="b"/></spatial></tendon>
  <contact><pair geom1="a" geom2="b"/><exclude body1="bob" body2="bob"/></contact>
</mujoco>""").replace('<body name="bob">', '<body name="bob" gravcomp="1"><geom '
                      'type="sphere" size="0.1" pos="0 0 -0.5" condim="1" mass="0.1"/>'
                      '<geom class="spin" type="sphere" size="0.1" pos="0 0 -0.3" mass="0.1"/>'
                      ).replace("<worldbody>", '<option density="1.2" wind="0 0 0"/>'
                                '<default><default class="spin"><geom condim="4"/></default>'
                                '<default class="stop"><tendon armature="0.2"/></default>'
                                "</default><worldbody>")
    with pytest.warns(UserWarning) as caught:  # hung above the ground: no overlap
        sim = load(tmp_path, text, pose={"position": [0, 0, 1]})
    expected = [
        "1 <equality> constraint (flex) is not read: the robot moves without it",
        "3 <tendon> elements (fixed with armature, spatial) are not read: the robot moves "
        "without them",
        "1 explicit contact pair (pair) is not read: the robot moves without it",
        "2 geoms' condim other than 3 is not read: their contacts have sliding friction "
        "(condim 3)",
        "<option density> is not read: the robot moves without fluid forces",
    ]
    assert [w.split(": ", 2)[-1] for w in sim.warnings] == expected
    assert all(w.startswith("robots[0].mjcf: ") for w in sim.warnings)
    assert [str(w.message) for w in caught] == sim.warnings
    assert load(tmp_path, PENDULUM_MJCF).warnings == []


@pytest.mark.parametrize("solver", ["sap", "canal"])
def test_a_weightless_links_gravcomp_lets_it_spin_at_its_speed(tmp_path, solver):
    # gravcomp="1": −m g at the centre of mass cancels gravity exactly; the
    # pendulum, started at 1 rad and 2 rad/s, turns at 2 rad/s, q = 1 + 2 t,
    # and its energy (the compensation's potential counted) stays.
    text = PENDULUM_MJCF.replace('<body name="bob">', '<body name="bob" gravcomp="1">').replace(
        "</mujoco>", '<keyframe><key name="spin" qpos="1" qvel="2"/></keyframe></mujoco>')
    (tmp_path / "model.xml").write_text(text)
    sim = coulomb.Simulation.from_dict(scene({
        "name": "r", "mjcf": str(tmp_path / "model.xml"), "keyframe": "spin"}),
        solver=solver)
    assert sim.warnings == []
    trajectory = sim.run(1.0)
    np.testing.assert_allclose(trajectory.q[:, 0], 1.0 + 2.0 * trajectory.time,
                               rtol=0, atol=1e-12)
    assert trajectory.summary["energy_final"] == pytest.approx(
        trajectory.summary["energy_initial"], abs=1e-12)


def test_a_fixed_robots_base_link_in_the_ground_is_world_geometry(tmp_path):
    # The base box, welded to the world, sits half in the ground: its
    # geometry is the world's, with no contact against the ground, and the
    # top box lands on it (0.1 + 0.1 above its centre at 0).
    sim = load(tmp_path, STACK_MJCF.replace("CONTACT", ""))
    trajectory = sim.run(2.0)
    assert sim.body_position("top")[2] == pytest.approx(0.2, abs=2e-3)
    assert trajectory.summary["momentum_error_max"] < 1e-6
    assert set(sim.contacts()["body_a"]) <= {"world"}  # against the base, the world's


# The Atwood machine of test_urdf.py, its coupling an <equality><joint>.
ATWOOD_MJCF = """<mujoco model="atwood">
  <compiler angle="radian"/>
  <worldbody>
    <body name="frame">
      <body name="heavy">
        <joint name="down" type="slide" axis="0 0 1"/>
        <inertial pos="0 0 0" mass="0.3" diaginertia="0.001 0.001 0.001"/>
      </body>
      <body name="light">
        <joint name="up" type="slide" axis="0 0 1" REF/>
        <inertial pos="0 0 0" mass="0.1" diaginertia="0.001 0.001 0.001"/>
      </body>
    </body>
  </worldbody>
  <equality><joint joint1="up" joint2="down" POLYCOEF/></equality>
</mujoco>"""


def atwood_mjcf(polycoef='polycoef="0 -1 0 0 0"', ref=""):
    return ATWOOD_MJCF.replace("POLYCOEF", polycoef).replace("REF", ref)


def test_an_mjcf_joint_equality_is_the_urdfs_mimic_joint(tmp_path):
    from test_urdf import atwood
    sim = load(tmp_path, atwood_mjcf())
    assert sim.warnings == []  # a joint equality is read
    np.testing.assert_allclose(sim.run(0.5).q, atwood(tmp_path).run(0.5).q, rtol=0,
                               atol=1e-12)


def test_an_mjcf_joint_equality_couples_the_joints_about_their_refs(tmp_path):
    # MuJoCo's q1 − ref1 = a0 + a1 (q2 − ref2): up − 0.1 = 0.05 − down.
    sim = load(tmp_path, atwood_mjcf('polycoef="0.05 -1"', 'ref="0.1"'))
    assert sim.joint_positions("r").tolist() == pytest.approx([0.0, 0.15], abs=1e-15)
    q = sim.run(0.5).q
    assert np.max(np.abs(q[:, 0] + q[:, 1] - 0.15)) < 1e-4
    assert q[-1, 0] < -0.5  # it runs


def load_without_ground(tmp_path, text, time_step=0.01):
    path = tmp_path / "model.xml"
    path.write_text(text)
    return coulomb.Simulation.from_dict({"time_step": time_step, "robots": [
        {"name": "r", "mjcf": str(path)}]})


def reduced_atwood(polynomial, time_step, steps, g=9.81, m_down=0.3, m_up=0.1):
    """The Atwood machine coupled by up = p(down), as one coordinate x = down
    from rest at 0: (m_d + m_u p′²) ẍ + m_u p′ p″ ẋ² + g (m_d + m_u p′) = 0,
    integrated by RK4 at 1/50 of the time step; x at each step's end."""
    p = np.polynomial.Polynomial(polynomial)
    dp, ddp = p.deriv(), p.deriv(2)

    def rate(state):
        x, xdot = state
        mass = m_down + m_up * dp(x) ** 2
        return np.array([xdot, -(m_up * dp(x) * ddp(x) * xdot**2 +
                                 g * (m_down + m_up * dp(x))) / mass])

    state, h, positions = np.zeros(2), time_step / 50, []
    for _ in range(steps):
        for _ in range(50):
            k1 = rate(state)
            k2 = rate(state + 0.5 * h * k1)
            k3 = rate(state + 0.5 * h * k2)
            k4 = rate(state + h * k3)
            state = state + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        positions.append(state[0])
    return np.array(positions)


def test_an_mjcf_joint_equality_couples_by_its_polynomial(tmp_path):
    # up − 0.1 = 0.02 − down − 3 down² (MuJoCo's polycoef about the refs,
    # 0.1 and 0): the light slider first rises, then sinks once p′ changes
    # sign, as the one-coordinate Lagrangian says (its RK4 solution, within
    # symplectic Euler's O(δt) error: 0.5 mm over 0.4 s at δt = 0.5 ms).
    sim = load_without_ground(tmp_path, atwood_mjcf('polycoef="0.02 -1 -3 0 0"', 'ref="0.1"'),
                              time_step=5e-4)
    assert sim.warnings == []
    assert sim.joint_positions("r").tolist() == pytest.approx([0.0, 0.12], abs=1e-15)
    q = sim.run(0.4).q[1:]
    down, up = q[:, 0], q[:, 1]
    # held to the step's linearization of p, ½ p″ (ẋ δt)² ≈ 3e-6
    np.testing.assert_allclose(up, 0.12 - down - 3 * down**2, rtol=0, atol=1e-5)
    reference = reduced_atwood([0.12, -1.0, -3.0], 5e-4, len(down))
    np.testing.assert_allclose(down, reference, rtol=0, atol=1e-3)
    assert down[-1] < -0.3 and up.argmax() not in (0, len(up) - 1)  # up rose, then sank


def test_an_mjcf_joint_equality_without_joint2_holds_the_joint(tmp_path):
    # up held at its ref plus a0, 0.15, while down falls freely: symplectic
    # Euler's q_n = −g δt² n(n+1)/2 to round-off. Holding up's weight m g,
    # the near-rigid coupling (docs/math.md §2) gives way by γ (δt + τ_d) R
    # with γ = m g δt, τ_d = δt/π, R = 1/(4π² m): g δt² (1 + 1/π)/(4π²).
    sim = load_without_ground(tmp_path, atwood_mjcf('polycoef="0.05"', 'ref="0.1"').replace(
        ' joint2="down"', ""))
    assert sim.warnings == []
    assert sim.joint_positions("r").tolist() == pytest.approx([0.0, 0.15], abs=1e-15)
    q = sim.run(0.5).q
    n = np.arange(len(q))
    np.testing.assert_allclose(q[:, 0], -9.81 * 0.01**2 * n * (n + 1) / 2, rtol=0, atol=1e-9)
    sag = 9.81 * 0.01**2 * (1 + 1 / np.pi) / (4 * np.pi**2)
    np.testing.assert_allclose(q[10:, 1], 0.15 - sag, rtol=0, atol=1e-9)
    assert np.all(np.abs(q[:, 1] - 0.15) <= sag + 1e-9)


@pytest.mark.parametrize("polycoef, message", [
    ('polycoef="0 x"', "polycoef '0 x': not a number"),
    ('polycoef="0 1 0 0 0 1"', "polycoef has more than five numbers"),
])
def test_an_mjcf_joint_equality_that_cannot_be_read_is_refused(tmp_path, polycoef, message):
    with pytest.raises(ValueError, match=r"robots\[0\]\.mjcf: .*<equality><joint "
                       r"joint1=\"up\">.*" + message):
        load(tmp_path, atwood_mjcf(polycoef))
    with pytest.raises(ValueError, match="joint1 missing"):
        load(tmp_path, atwood_mjcf().replace('joint1="up" ', ""))
    with pytest.raises(ValueError, match="no hinge or slide joint named 'across'"):
        load(tmp_path, atwood_mjcf().replace('joint2="down"', 'joint2="across"'))


# Three sliders on springs, two fixed tendons over them, and an equality
# between the tendons' lengths about their values at qpos0 (the refs):
# pair − 0.02 = 0.01 − 0.8 (single + 0.02) + 3 (single + 0.02)².
TENDON_EQUALITY = """<mujoco model="tendon equality">
  <worldbody><body name="frame">
    <body name="a"><joint name="ja" type="slide" axis="1 0 0" ref="0.02" stiffness="40"
        springref="0.05" damping="2"/><geom type="box" size="0.02 0.02 0.02" mass="0.1"/></body>
    <body name="b" pos="0 0.1 0"><joint name="jb" type="slide" axis="1 0 0" stiffness="60"
        springref="-0.03" damping="2"/><geom type="box" size="0.02 0.02 0.02" mass="0.2"/></body>
    <body name="c" pos="0 0.2 0"><joint name="jc" type="slide" axis="1 0 0" ref="-0.01"
        stiffness="30" springref="0.04" damping="2"/>
      <geom type="box" size="0.02 0.02 0.02" mass="0.15"/></body>
  </body></worldbody>
  <tendon>
    <fixed name="pair"><joint joint="ja" coef="1"/><joint joint="jb" coef="0.5"/></fixed>
    <fixed name="single"><joint joint="jc" coef="2"/></fixed>
  </tendon>
  <equality><tendon tendon1="pair" tendon2="single" polycoef="0.01 -0.8 3 0 0"/></equality>
</mujoco>"""


def tendon_equality_rest():
    """The sliders' rest: the springs' energy ½ Σ k (q − q_s)² at its
    minimum on g(q) = 0 (Newton's method on the Lagrangian's stationarity)."""
    k, springref = np.array([40.0, 60.0, 30.0]), np.array([0.05, -0.03, 0.04])
    polynomial = np.polynomial.Polynomial([0.01, -0.8, 3.0])

    def constraint(q):  # g and ∇g
        x = 2 * q[2] + 0.02
        return (q[0] + 0.5 * q[1] - 0.02 - polynomial(x),
                np.array([1.0, 0.5, -2 * polynomial.deriv()(x)]))

    q, multiplier = np.array([0.02, 0.0, -0.01]), 0.0
    for _ in range(50):
        g, grad = constraint(q)
        hessian = np.diag(k)
        hessian[2, 2] += multiplier * -4 * polynomial.deriv(2)(2 * q[2] + 0.02)
        kkt = np.block([[hessian, grad[:, None]], [grad[None, :], np.zeros((1, 1))]])
        residual = np.concatenate([k * (q - springref) + multiplier * grad, [g]])
        step = np.linalg.solve(kkt, -residual)
        q, multiplier = q + step[:3], multiplier + step[3]
    assert np.abs(residual).max() < 1e-14
    return q


def test_an_mjcf_tendon_equality_rests_the_sliders_at_the_constrained_minimum(tmp_path):
    # To the near-rigid equality's give under the springs' ~1 N, which
    # shrinks as δt² (docs/math.md §2): 2e-6 m at δt = 2 ms.
    sim = load_without_ground(tmp_path, TENDON_EQUALITY, time_step=0.002)
    assert sim.warnings == []
    sim.run(4.0)
    np.testing.assert_allclose(sim.joint_positions("r"), tendon_equality_rest(), atol=1e-5)
    pair, single = sim.tendon_lengths("r")
    assert pair - 0.02 == pytest.approx(
        0.01 - 0.8 * (single + 0.02) + 3 * (single + 0.02) ** 2, abs=1e-5)


def test_an_mjcf_tendon_equality_without_tendon2_holds_the_tendon(tmp_path):
    sim = load_without_ground(tmp_path, TENDON_EQUALITY.replace(' tendon2="single"', "").replace(
        "0.01 -0.8 3 0 0", "0.01"))
    sim.run(4.0)
    assert sim.tendon_lengths("r")[0] == pytest.approx(0.03, abs=1e-5)
    assert sim.joint_positions("r")[2] == pytest.approx(0.04, abs=1e-6)  # free: at springref


def test_an_mjcf_tendon_equality_of_unknown_tendons_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"<equality><tendon tendon1=\"pair\">: no fixed "
                       "tendon named 'double'"):
        load(tmp_path, TENDON_EQUALITY.replace('tendon2="single"', 'tendon2="double"'))


# A parallelogram four-bar: crank, coupler and rocker on three hinges, the
# rocker's end connected to the world where it is at qpos0, (0.4, 0, 0).
FOUR_BAR_MJCF = """<mujoco model="four_bar">
  <compiler angle="radian"/>
  <worldbody>
    <body name="crank">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 0.15" mass="1" diaginertia="0.01 0.01 0.01"/>
      <body name="coupler" pos="0 0 0.3">
        <joint name="j2" type="hinge" axis="0 1 0"/>
        <inertial pos="0.2 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
        <body name="rocker" pos="0.4 0 0">
          <joint name="j3" type="hinge" axis="0 1 0"/>
          <inertial pos="0 0 -0.15" mass="1" diaginertia="0.01 0.01 0.01"/>
        </body>
      </body>
    </body>
  </worldbody>
  CONNECT
  <keyframe><key name="tilted" qpos="0.3 -0.3 0.3"/></keyframe>
</mujoco>"""
CONNECT = '<equality><connect body1="rocker" anchor="0 0 -0.3"/></equality>'
# The same by sites: the rocker's end held at the world's pin.
SITE_CONNECT = ('<equality><connect site1="pin" site2="rocker_end"/></equality>',
                '<site name="pin" pos="0.4 0 0"/>',
                '<site name="rocker_end" pos="0 0 -0.3"/>')


def four_bar(connect, world_site="", rocker_site=""):
    return FOUR_BAR_MJCF.replace("CONNECT", connect).replace(
        "<worldbody>", "<worldbody>" + world_site).replace(
        '<inertial pos="0 0 -0.15"', rocker_site + '<inertial pos="0 0 -0.15"')


@pytest.mark.parametrize("solver, connect", [
    ("sap", (CONNECT,)), ("canal", (CONNECT,)), ("sap", SITE_CONNECT),
    ("canal", SITE_CONNECT)])
def test_a_connect_closes_a_four_bar_whose_coupler_keeps_its_orientation(tmp_path, solver,
                                                                         connect):
    (tmp_path / "four_bar.xml").write_text(four_bar(*connect))
    sim = coulomb.Simulation.from_dict(scene({
        "name": "r", "mjcf": str(tmp_path / "four_bar.xml"), "keyframe": "tilted"}),
        solver=solver)
    assert sim.warnings == []
    tip = np.array([0.4, 0.0, 0.0])
    worst_gap, worst_turn = 0.0, 0.0
    for _ in range(50):  # 0.5 s
        sim.step()
        rocker_end = sim.body_position("rocker") + quaternion_rotate(
            sim.body_orientation("rocker"), [0, 0, -0.3])
        worst_gap = max(worst_gap, np.linalg.norm(rocker_end - tip))
        worst_turn = max(worst_turn, np.linalg.norm(sim.body_orientation("coupler")[1:]))
    # It falls over, from 0.3 rad to beyond 2.5 rad at several rad/s; the
    # near-rigid connect gives way by a fraction of a millimetre at that
    # speed, and the coupler of a parallelogram stays level within 2 mrad
    # (the quaternion's vector part is sin(angle/2)).
    assert sim.joint_positions("r")[0] > 2.5
    assert worst_gap < 5e-4
    assert worst_turn < 1e-3


def quaternion_rotate(q, p):
    """p turned by the unit quaternion q = (w, x, y, z)."""
    w, u = q[0], np.asarray(q[1:])
    p = np.asarray(p, dtype=float)
    return p + 2 * w * np.cross(u, p) + 2 * np.cross(u, np.cross(u, p))


def test_without_the_connect_the_four_bar_is_an_open_chain(tmp_path):
    sim = load(tmp_path, FOUR_BAR_MJCF.replace("CONNECT", ""), keyframe="tilted")
    sim.run(0.5)
    assert np.linalg.norm(sim.body_orientation("coupler")[1:]) > 0.05  # it folds


def test_a_site_connect_pulls_its_sites_together_wherever_qpos0_has_them(tmp_path):
    # MuJoCo's site form holds the sites together, not where qpos0 has
    # them: the pendulum hanging from the origin, its tip site 1 m down, is
    # pulled to the world's site level with the pivot, and rests there.
    pendulum = PENDULUM_MJCF.replace('<body name="bob"', '<site name="hold" pos="1 0 0"/>'
                                     '<body name="bob"').replace(
        "</body>", '<site name="tip" pos="0 0 -1"/></body>', 1)
    text = pendulum.replace("</mujoco>", '<equality><connect site1="tip" site2="hold"/>'
                            "</equality></mujoco>")
    sim = load(tmp_path, text, base="fixed")
    sim.run(3.0)
    assert sim.q[0] == pytest.approx(-math.pi / 2, abs=1e-3)  # the tip at (1, 0, 0)
    assert sim.v[0] == pytest.approx(0.0, abs=1e-3)


def test_a_site_weld_holds_a_link_in_the_sites_frame(tmp_path):
    # The forearm's site, turned 30° about y in the forearm, welded to a
    # world site turned 70° and placed where the site is with the upper arm
    # at 10° and the forearm at 40°: the forearm ends turned 40°, its site
    # at the world site's place.
    def turned(angle, x):  # R_y(angle) (x, 0, 0)
        return np.array([x * math.cos(angle), 0.0, -x * math.sin(angle)])
    fixture = turned(math.radians(10), 0.5) + turned(math.radians(40), 0.1)
    text = double_pendulum(weld='<equality><weld site1="elbow_site" site2="fixture"/>'
                           "</equality>").replace(
        '<body name="upper">', '<site name="fixture" pos="{} {} {}" euler="0 70 0"/>'
        '<body name="upper">'.format(*fixture)).replace(
        '<inertial pos="0.25 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>\n      </body>',
        '<inertial pos="0.25 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>'
        '<site name="elbow_site" pos="0.1 0 0" euler="0 30 0"/>\n      </body>')
    sim = load(tmp_path, text)
    assert sim.warnings == []
    sim.run(3.0)
    w, _, y, _ = sim.body_orientation("fore")
    assert 2 * math.atan2(y, w) == pytest.approx(math.radians(40), abs=2e-3)
    site = sim.body_position("fore") + quaternion_rotate(sim.body_orientation("fore"),
                                                          [0.1, 0, 0])
    np.testing.assert_allclose(site, fixture, atol=1e-3)


def test_a_connect_to_a_site_the_file_lacks_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"<equality><connect> site2=\"nowhere\": no site "
                       "of that name"):
        load(tmp_path, four_bar('<equality><connect site1="pin" site2="nowhere"/>'
                                "</equality>", SITE_CONNECT[1]))
    with pytest.raises(ValueError, match="<equality><weld> holds two sites of the world"):
        load(tmp_path, four_bar('<equality><weld site1="pin" site2="pin"/></equality>',
                                SITE_CONNECT[1]))


def test_a_connect_to_a_body_the_robot_lacks_is_refused(tmp_path):
    text = FOUR_BAR_MJCF.replace("CONNECT", '<equality><connect body1="slider" '
                                 'anchor="0 0 0"/></equality>')
    with pytest.raises(ValueError, match=r"robots\[0\]\.mjcf: .*<connect body1=\"slider\">: "
                       "a body of the robot is not named so"):
        load(tmp_path, text)
    with pytest.raises(ValueError, match="anchor must be three finite numbers"):
        load(tmp_path, FOUR_BAR_MJCF.replace("CONNECT", '<equality><connect body1="rocker" '
                                             'anchor="0 0"/></equality>'))


# Drawn horizontal: at qpos0 gravity swings it.
DOUBLE_PENDULUM_MJCF = """<mujoco model="double">
  <worldbody>
    <body name="upper">
      <joint name="shoulder" type="hinge" axis="0 1 0" REF/>
      <inertial pos="0.25 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <body name="fore" pos="0.5 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <inertial pos="0.25 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      </body>
    </body>
  </worldbody>
  WELD
</mujoco>"""


def double_pendulum(ref="", weld=""):
    return DOUBLE_PENDULUM_MJCF.replace("REF", ref).replace("WELD", weld)


def test_a_weld_to_the_world_holds_a_link_where_qpos0_puts_it(tmp_path):
    # qpos0 puts the shoulder at its ref, 40°, and the arm as drawn,
    # horizontal, where gravity would swing it.
    text = double_pendulum('ref="40"', '<equality><weld body1="fore"/></equality>')
    sim = load(tmp_path, text)
    assert sim.warnings == []
    q = sim.run(1.0).q
    assert np.max(np.abs(q[:, 0] - math.radians(40))) < 1e-3
    assert np.max(np.abs(q[:, 1])) < 1e-3
    free = load(tmp_path, double_pendulum('ref="40"'))
    assert np.ptp(free.run(1.0).q[:, 0]) > 0.5


def test_connections_are_named_switched_and_moved_through_the_api(tmp_path):
    # Named as the file names them (equality<k> for one without a name, k
    # its index among the file's equalities, joint equalities counted); a
    # connection of two links has no frame to move; bad names, positions
    # and quaternions are refused in one line; a snapshot (and a pickle)
    # carries which connections hold and where their frames are, so that
    # the restored simulation steps as the original, bit for bit.
    welds = ('<equality><joint joint1="elbow"/><weld body1="upper" body2="fore"/>'
             '<connect name="pin" body1="fore" anchor="0.5 0 0" active="false"/></equality>')
    sim = load(tmp_path, double_pendulum(weld=welds), joints={"shoulder": 0.7})
    assert sim.connection_names("r") == ["equality1", "pin"]
    assert sim.connection_active("r", "equality1") and not sim.connection_active("r", "pin")
    position, quaternion = sim.connection_frame("r", "pin")
    np.testing.assert_array_equal(position, [0, 0, 0])
    np.testing.assert_array_equal(quaternion, [1, 0, 0, 0])
    with pytest.raises(KeyError, match="no connect or weld named 'grip'.*equality1, pin"):
        sim.set_connection_active("r", "grip", True)
    with pytest.raises(KeyError, match="no body or robot"):
        sim.connection_names("nobody")
    with pytest.raises(ValueError, match="holds two bodies of the robot"):
        sim.set_connection_frame("r", "equality1", [0, 0, 0])
    for position, quaternion, complaint in [([0, 0, np.nan], [1, 0, 0, 0], "position"),
                                            ([0, 0], [1, 0, 0, 0], "position"),
                                            ([0, 0, 0], [0, 0, 0, 0], "quaternion"),
                                            ([0, 0, 0], [1, 0, np.inf, 0], "quaternion")]:
        with pytest.raises(ValueError, match=complaint):
            sim.set_connection_frame("r", "pin", position, quaternion)
    sim.run(0.2, record=False)
    sim.set_connection_active("r", "pin", True)
    sim.set_connection_frame("r", "pin", [0.05, 0.02, 0.1], [0.9, 0.1, 0.0, 0.1])
    snapshot = sim.snapshot()
    ahead = sim.run(0.3).q
    sim.set_connection_active("r", "pin", False)
    sim.set_connection_frame("r", "pin", [0, 0, 0])
    sim.restore(snapshot)
    assert sim.connection_active("r", "pin")
    np.testing.assert_array_equal(sim.run(0.3).q, ahead)
    twin = load(tmp_path, double_pendulum(weld=welds), joints={"shoulder": 0.7})
    twin.restore(pickle.loads(pickle.dumps(snapshot)))
    np.testing.assert_array_equal(twin.run(0.3).q, ahead)
    np.testing.assert_allclose(twin.connection_frame("r", "pin")[1],
                               np.array([0.9, 0.1, 0.0, 0.1]) / np.linalg.norm([0.9, 0.1, 0, 0.1]))


@pytest.mark.parametrize("solver", ["sap", "canal"])
def test_a_weld_between_two_links_makes_them_one_body(tmp_path, solver):
    (tmp_path / "double.xml").write_text(
        double_pendulum(weld='<equality><weld body1="upper" body2="fore"/></equality>'))
    sim = coulomb.Simulation.from_dict(scene({
        "name": "r", "mjcf": str(tmp_path / "double.xml"), "joints": {"shoulder": 0.7}}),
        solver=solver)
    q = sim.run(1.0).q
    assert np.ptp(q[:, 0]) > 1.0           # the shoulder swings
    assert np.max(np.abs(q[:, 1])) < 2e-3  # the elbow stays as qpos0 has it
    free = load(tmp_path, double_pendulum(), joints={"shoulder": 0.7})
    assert np.max(np.abs(free.run(1.0).q[:, 1])) > 0.1


@pytest.mark.parametrize("attributes, what", [
    ('relpose="0 0 0 1 0 0"', "relpose '0 0 0 1 0 0': expected 7 numbers"),
    ('relpose="0 0 0 1 0 0 0 0"', "relpose '0 0 0 1 0 0 0 0': expected 7 numbers"),
    ('relpose="0 0 0 1 0 0 x"', "relpose '0 0 0 1 0 0 x': not a number"),
    ('anchor="0 0" relpose="0 0 0 1 0 0 0"', "anchor '0 0': expected 3 numbers")])
def test_a_weld_with_a_bad_relpose_or_anchor_is_refused(tmp_path, attributes, what):
    text = double_pendulum(weld=f'<equality><weld body1="fore" {attributes}/></equality>')
    with pytest.raises(ValueError, match='<equality><weld body1="fore">: ' + re.escape(what)):
        load(tmp_path, text)


def quaternion_matrix(w, x, y, z):
    """R of the unit quaternion w x y z."""
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


# An arm whose sensors read its joints, a tendon and a site: sensors of every
# kind read, and one that is not (a body's inertial frame).
SENSED_ARM = """<mujoco model="sensed arm">
  <default><default class="tipsite"><site type="box" size="0.01 0.02 0.03"/></default></default>
  <worldbody>
    <site name="anchor" pos="0.1 0.2 0.3" euler="10 20 30"/>
    <body name="base" pos="0 0 0.5">
      <joint name="turn" type="hinge" axis="0 0 1"/>
      <geom type="box" size="0.05 0.05 0.05" mass="1" contype="0" conaffinity="0"/>
      <body name="link" pos="0.1 0 0" euler="0 30 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5" contype="0"
              conaffinity="0"/>
        <body name="slider" pos="0.05 0 0" euler="20 0 0">
          <joint name="extend" type="slide" axis="1 0 0"/>
          <geom type="box" size="0.02 0.02 0.02" mass="0.2" contype="0" conaffinity="0"/>
          <site name="tip" pos="0.3 0.01 -0.02" euler="15 -40 70" class="tipsite"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="both"><joint joint="turn" coef="0.5"/><joint joint="extend" coef="2"/>
  </fixed></tendon>
  <actuator><motor name="m" joint="elbow" gear="3"/></actuator>
  <sensor>
    <jointpos joint="elbow"/><jointvel name="ev" joint="extend"/><tendonpos tendon="both"/>
    <tendonvel tendon="both"/>
    <framepos objtype="site" objname="tip"/><framequat objtype="site" objname="tip"/>
    <framelinvel objtype="site" objname="tip"/><frameangvel objtype="site" objname="tip"/>
    <framepos name="link_pos" objtype="xbody" objname="link"/>
    <framequat objtype="xbody" objname="link"/><framelinvel objtype="xbody" objname="link"/>
    <gyro site="tip"/><velocimeter site="tip"/><jointactuatorfrc joint="elbow"/>
    <framepos name="anchor_pos" objtype="site" objname="anchor"/>
    <framequat objtype="site" objname="anchor"/>
    <velocimeter name="clipped" site="tip" cutoff="0.05"/>
    <framexaxis name="tip_x" objtype="site" objname="tip"/>
    <framezaxis name="link_z" objtype="xbody" objname="link"/>
    <framepos name="inertial" objtype="body" objname="link"/>
    <actuatorfrc name="m_force" actuator="m"/><actuatorpos name="alen" actuator="m"/>
    <actuatorvel name="avel" actuator="m"/><clock name="clk"/>
  </sensor>
  <keyframe><key name="moving" qpos="0.3 -0.7 0.05" qvel="1.5 -2 0.4" ctrl="0.2"/></keyframe>
</mujoco>"""


def test_sensors_read_the_joints_tendons_and_frames_they_name(tmp_path):
    # Closed forms at the keyframe: the joints' and the tendon's coordinates,
    # the world site where the file puts it, the body frame's velocity from
    # the base's turn alone (the link's origin is 0.1 m out on a vertical
    # axis turning at 1.5 rad/s), the site's gyro as R_WSᵀ ω.
    path = tmp_path / "arm.xml"
    path.write_text(SENSED_ARM)
    with pytest.warns(UserWarning, match=r"1 sensor is not read .*'inertial' \(framepos\)"):
        sim = coulomb.Simulation.from_file(str(path), keyframe="moving")
    data = sim.sensor_data("sensed arm")
    names = {1: "ev", 8: "link_pos", 14: "anchor_pos", 16: "clipped", 17: "tip_x",
             18: "link_z", 19: "m_force", 20: "alen", 21: "avel", 22: "clk"}
    assert list(data) == [names.get(k, f"sensor{k}") for k in range(23)]  # inertial: not read
    assert sim.sensor_names("sensed arm") == list(data)
    named = data
    assert named["sensor0"] == pytest.approx([-0.7], abs=1e-15)
    assert named["ev"] == pytest.approx([0.4], abs=1e-15)
    assert named["sensor2"] == pytest.approx([0.5 * 0.3 + 2 * 0.05], abs=1e-15)
    assert named["sensor3"] == pytest.approx([0.5 * 1.5 + 2 * 0.4], abs=1e-15)
    assert named["anchor_pos"] == pytest.approx([0.1, 0.2, 0.3], abs=1e-15)
    assert named["alen"] == pytest.approx([3 * -0.7], abs=1e-15)  # the gear times q
    assert named["avel"] == pytest.approx([3 * -2.0], abs=1e-15)
    assert named["clk"] == pytest.approx([0.0])
    turn = 0.3
    assert named["link_pos"] == pytest.approx(
        [0.1 * math.cos(turn), 0.1 * math.sin(turn), 0.5], abs=1e-12)
    assert named["sensor10"] == pytest.approx(
        [-0.15 * math.sin(turn), 0.15 * math.cos(turn), 0.0], abs=1e-12)
    rotation = quaternion_matrix(*named["sensor5"])  # the site's orientation
    np.testing.assert_allclose(named["sensor11"], rotation.T @ named["sensor7"], atol=1e-12)
    np.testing.assert_allclose(named["sensor12"], rotation.T @ named["sensor6"], atol=1e-12)
    np.testing.assert_allclose(named["clipped"], np.clip(named["sensor12"], -0.05, 0.05),
                               atol=0)
    assert np.abs(named["clipped"]).max() == 0.05  # the cutoff bites
    np.testing.assert_allclose(named["tip_x"], rotation[:, 0], atol=1e-15)
    link_rotation = quaternion_matrix(*named["sensor9"])
    np.testing.assert_allclose(named["link_z"], link_rotation[:, 2], atol=1e-15)
    assert named["sensor13"] == pytest.approx([0.0])  # no step yet
    sim.step()
    assert sim.sensor_data("sensed arm")["sensor13"] == pytest.approx([3 * 0.2], abs=1e-12)
    assert sim.sensor_data("sensed arm")["m_force"] == pytest.approx([0.2], abs=1e-12)
    assert sim.actuator_forces("sensed arm") == pytest.approx([0.2], abs=1e-12)


# A box resting on the floor, with touch sites under all of it, under its
# left half (a cylinder), along its front edge (a capsule laid along x), on
# its lid and around it above the floor.
TOUCH = """<mujoco model="touch">
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.2">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.05" mass="2"/>
      <site name="sole" type="box" pos="0 0 -0.05" size="0.11 0.11 0.01"/>
      <site name="lid" type="sphere" pos="0 0 0.05" size="0.05"/>
      <site name="left" type="cylinder" pos="-0.1 0 -0.05" size="0.12 0.01"/>
      <site name="front" type="capsule" pos="0 -0.1 -0.05" size="0.02 0.11" euler="0 90 0"/>
      <site name="ring" type="cylinder" pos="0 0 0.02" size="0.2 0.01"/>
      <site name="back" type="box" fromto="-0.2 0.1 -0.05 0.2 0.1 -0.05" size="0.02"/>
      <site name="right" type="cylinder" fromto="0.1 0 0 0.1 0 -0.06" size="0.105"/>
    </body>
  </worldbody>
  <sensor><touch name="sole" site="sole"/><touch name="lid" site="lid"/>
    <touch name="left" site="left"/><touch name="capped" site="sole" cutoff="5"/>
    <touch name="front" site="front"/><touch name="ring" site="ring"/>
    <touch name="back" site="back"/><touch name="right" site="right"/></sensor>
</mujoco>"""


def test_touch_sensors_sum_the_normal_forces_inside_their_sites(tmp_path):
    # At rest the floor carries m g: all of it under the sole, half of it
    # (two of four corners, by symmetry) under the left and front sites and
    # under those placed by their ends (a box along the back edge, a cylinder
    # down the right side), none on the lid or in the ring above the floor.
    path = tmp_path / "touch.xml"
    path.write_text(TOUCH)
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.sensor_data("touch")["sole"] == pytest.approx([0.0])  # no step yet
    trajectory = sim.run(2.0)
    assert trajectory.summary["momentum_error_max"] < 1e-6
    data = sim.sensor_data("touch")
    assert data["sole"][0] == pytest.approx(2 * G, rel=1e-5)
    assert data["left"][0] == pytest.approx(G, rel=1e-5)
    assert data["front"][0] == pytest.approx(G, rel=1e-5)
    assert data["back"][0] == pytest.approx(G, rel=1e-5)
    assert data["right"][0] == pytest.approx(G, rel=1e-5)
    assert data["lid"][0] == data["ring"][0] == 0.0
    assert data["capped"][0] == 5.0


# Touch sites on the world and on a link welded to it (the stand's shelf,
# whose flap swings on a hinge): a ball on the floor, a cube on the shelf, a
# crate on a table (a body without joints); rangefinders from inside the
# shelf and from over the table, both looking down.
WORLD_TOUCH = """<mujoco model="world touch">
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <site name="mat" type="box" pos="0 0 0" size="0.3 0.3 0.02"/>
    <site name="away" type="box" pos="-1 0 0" size="0.3 0.3 0.02"/>
    <site name="over_shelf" type="box" pos="1 1 0.32" size="0.21 0.21 0.02"/>
    <site name="over_table" type="box" pos="-1 1 0.22" size="0.21 0.21 0.02"/>
    <site name="table_eye" pos="-0.85 1.15 1" zaxis="0 0 -1"/>
    <body name="table" pos="-1 1 0.2"><geom type="box" size="0.2 0.2 0.02"/></body>
    <body name="crate" pos="-1 1 0.35"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
    <body name="stand" pos="1 1 0.3">
      <geom name="shelf" type="box" size="0.2 0.2 0.02"/>
      <site name="shelf_top" type="box" pos="0 0 0.02" size="0.21 0.21 0.02"/>
      <site name="shelf_eye" zaxis="0 0 -1"/>
      <body name="flap" pos="0.5 0 0">
        <joint type="hinge" axis="0 1 0"/>
        <geom type="capsule" size="0.02" fromto="0 0 0 0.1 0 0" mass="0.1"/>
      </body>
    </body>
    <body name="ball" pos="0 0 0.2"><freejoint/><geom type="sphere" size="0.1" mass="2"/></body>
    <body name="cube" pos="1 1 0.45"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="0.5"/></body>
  </worldbody>
  <sensor><touch name="mat" site="mat"/><touch name="away" site="away"/>
    <touch name="over_shelf" site="over_shelf"/><touch name="shelf" site="shelf_top"/>
    <touch name="over_table" site="over_table"/>
    <rangefinder name="table_eye" site="table_eye"/><rangefinder name="shelf_eye" site="shelf_eye"/>
  </sensor>
</mujoco>"""


def test_touch_sensors_on_the_world_and_on_a_welded_link(tmp_path):
    # A world site reads the contacts of the world's geometries inside it
    # (the ball's weight on the floor, under every robot that lists it),
    # not those of a link welded to the world or of a body without joints
    # (in MuJoCo bodies of their own: the cube on the shelf and the crate on
    # the table are not the world's); the shelf's own site reads the cube's
    # weight. A ray from a site leaves out its body's geometries (the
    # shelf's: it meets the floor 0.3 m down) and sees the table from the
    # world's site (0.78 m down to its top). MuJoCo reads the same.
    path = tmp_path / "touch.xml"
    path.write_text(WORLD_TOUCH)
    sim = coulomb.Simulation.from_file(str(path))
    sim.run(1.5)
    for robot in ("ball", "cube", "crate", "stand"):
        data = sim.sensor_data(robot)
        assert data["mat"][0] == pytest.approx(2 * G, rel=1e-5), robot
        assert data["away"][0] == data["over_shelf"][0] == data["over_table"][0] == 0.0
        assert data["table_eye"][0] == pytest.approx(0.78, abs=1e-12), robot
    assert sim.sensor_data("stand")["shelf"][0] == pytest.approx(0.5 * G, rel=1e-5)
    assert sim.sensor_data("stand")["shelf_eye"][0] == pytest.approx(0.3, abs=1e-12)


def test_cast_ray_meets_the_nearest_geometry(tmp_path):
    # The box resting on the floor: a ray down from 1 m over it meets its top
    # face (0.1 m up, less its rest penetration), one beside it the floor, a
    # ray up or from under the floor nothing; a ray from inside the box
    # leaves it through the face it points at.
    path = tmp_path / "touch.xml"
    path.write_text(TOUCH)
    sim = coulomb.Simulation.from_file(str(path))
    sim.run(1.0)
    top = sim.body_position("box")[2] + 0.05
    assert top == pytest.approx(0.1, abs=1e-4)
    assert sim.cast_ray([0.03, -0.02, 1.0], [0, 0, -2]) == pytest.approx(1.0 - top, abs=1e-12)
    assert sim.cast_ray([0.5, 0.0, 1.0], [0, 0, -1]) == pytest.approx(1.0, abs=1e-12)
    assert sim.cast_ray([0.5, 0.0, 1.0], [0, 0, 1]) is None
    assert sim.cast_ray([0.5, 0.0, -1.0], [0, 0, 1]) is None  # the floor, from below
    inside = sim.body_position("box")
    assert sim.cast_ray(inside, [1, 0, 0]) == pytest.approx(0.1, abs=1e-6)
    # The box left out: the floor below it, nothing beside it.
    assert sim.cast_ray(inside, [0, 0, -1], exclude="box") == pytest.approx(
        inside[2], abs=1e-12)
    assert sim.cast_ray(inside, [1, 0, 0], exclude="box") is None
    with pytest.raises(KeyError, match="crate"):
        sim.cast_ray(inside, [1, 0, 0], exclude="crate")
    with pytest.raises(ValueError, match="direction: a ray needs a finite, nonzero direction"):
        sim.cast_ray([0, 0, 1], [0, 0, 0])
    with pytest.raises(ValueError, match="origin: a ray needs a finite origin"):
        sim.cast_ray([0, float("nan"), 1], [0, 0, 1])


def test_cast_rays_scans_as_cast_ray_casts_each(tmp_path):
    # A scan of 200 directions (some meeting the box, the floor or nothing)
    # from over the resting box, with and without the box left out: each
    # distance cast_ray's, −1 for None.
    path = tmp_path / "touch.xml"
    path.write_text(TOUCH)
    sim = coulomb.Simulation.from_file(str(path))
    sim.run(0.5)
    directions = np.random.default_rng(7).normal(size=(200, 3))
    origin = sim.body_position("box") + [0.02, 0.01, 0.3]
    for exclude in (None, "box"):
        scan = sim.cast_rays(origin, directions, exclude=exclude)
        each = [sim.cast_ray(origin, d, exclude=exclude) for d in directions]
        np.testing.assert_array_equal(scan, [-1.0 if t is None else t for t in each])
        assert 0 < np.count_nonzero(scan < 0) < len(scan)
    assert sim.cast_rays(origin, np.zeros((0, 3))).shape == (0,)
    with pytest.raises(ValueError, match="direction 1: a ray needs a finite, nonzero direction"):
        sim.cast_rays(origin, [[0, 0, -1], [0, 0, 0]])
    with pytest.raises(ValueError, match="direction 0: a ray needs a finite, nonzero direction"):
        sim.cast_rays(origin, [[0, float("inf"), -1]])
    with pytest.raises(ValueError, match="origin: a ray needs a finite origin"):
        sim.cast_rays([0, float("nan"), 1], [[0, 0, -1]])
    with pytest.raises(ValueError, match=r"directions: expected an N × 3 array, got shape \(3,\)"):
        sim.cast_rays(origin, [0, 0, -1])
    with pytest.raises(KeyError, match="crate"):
        sim.cast_rays(origin, directions, exclude="crate")


def test_a_run_records_the_sensors_at_each_sample(tmp_path):
    # Each sample's readings are what sensor_data read then: the touch
    # sensors 0 at the start and m g once the box rests, the latest sample's
    # the current readings; a second run's trajectory holds its own samples.
    path = tmp_path / "touch.xml"
    path.write_text(TOUCH)
    sim = coulomb.Simulation.from_file(str(path))
    first = sim.run(1.0)
    sole = first.sensors["touch"]["sole"]
    assert sole.shape == (len(first.time), 1)
    assert set(first.sensors["touch"]) == set(sim.sensor_names("touch"))
    assert sole[0, 0] == 0.0 and sole[-1, 0] == pytest.approx(2 * G, rel=1e-5)
    for name, reading in sim.sensor_data("touch").items():
        np.testing.assert_array_equal(first.sensors["touch"][name][-1], reading)
    second = sim.run(0.5)
    assert second.sensors["touch"]["capped"].shape == (len(second.time), 1)
    np.testing.assert_array_equal(second.sensors["touch"]["capped"][:, 0], 5.0)
    assert sim.run(0.1, record=False).sensors["touch"]["sole"].shape == (0, 1)
    clone = pickle.loads(pickle.dumps(sim))  # nothing recorded yet
    assert clone.run(0.1, record=False).sensors["touch"]["sole"].shape == (0, 1)


def test_the_run_file_holds_the_sensors_as_the_trajectory_does(tmp_path, coulomb_bin):
    # `coulomb run --out` and Trajectory.save write each robot's readings
    # (one row per sample, a sensor's columns named by /sensors/ROBOT/names
    # and columns): those of the same run in Python, bit for bit.
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "touch.xml"
    path.write_text(TOUCH)
    subprocess.run([coulomb_bin, "run", str(path), "--duration", "0.5", "--out",
                    str(tmp_path / "cli")], check=True, capture_output=True)
    trajectory = coulomb.Simulation.from_file(str(path)).run(0.5)
    trajectory.save(tmp_path / "python.h5")
    for file in (tmp_path / "cli" / "trajectory.h5", tmp_path / "python.h5"):
        with h5py.File(file) as saved:
            group = saved["/sensors/touch"]
            names = [name.decode() for name in group["names"][:]]
            columns, readings = group["columns"][:], group["readings"][:]
            assert names == coulomb.Simulation.from_file(str(path)).sensor_names("touch")
            assert readings.shape == (len(trajectory.time), columns[-1])
            for k, name in enumerate(names):
                np.testing.assert_array_equal(readings[:, columns[k]:columns[k + 1]],
                                              trajectory.sensors["touch"][name], err_msg=name)


def test_recorded_joint_sensors_follow_the_recorded_joints(tmp_path):
    # The elbow's jointpos and the slide's jointvel against the recorded q
    # and v columns of those joints, sample by sample, while the arm moves.
    path = tmp_path / "arm.xml"
    path.write_text(SENSED_ARM)
    with pytest.warns(UserWarning):
        sim = coulomb.Simulation.from_file(str(path), keyframe="moving")
    trajectory = sim.run(0.2)
    joints = sim.joint_names("sensed arm")
    recorded = trajectory.sensors["sensed arm"]
    np.testing.assert_array_equal(recorded["sensor0"][:, 0],
                                  trajectory.q[:, joints.index("elbow")])
    np.testing.assert_array_equal(recorded["ev"][:, 0],
                                  trajectory.v[:, joints.index("extend")])
    assert np.ptp(recorded["sensor0"][:, 0]) > 0.01  # it moved


@pytest.mark.parametrize("sensor, message", [
    ('<touch site="nowhere"/>', r"sensor 'sensor0' \(touch\): no site named 'nowhere'"),
    ('<jointpos name="j"/>', r"sensor 'j' \(jointpos\): joint missing"),
    ('<jointpos joint="bent"/>', "no one-dof joint named 'bent'|no joint named 'bent'"),
    ('<framepos objtype="xbody" objname="bone"/>', "no body named 'bone'"),
    ('<tendonpos tendon="cable"/>', "no fixed tendon named 'cable'"),
    ('<touch site="sole" cutoff="-1"/>', "cutoff must be one number ≥ 0"),
    ('<touch name="t" site="sole"/><touch name="t" site="lid"/>', "a second of that name"),
    ('<framequat objtype="site" objname="lid" cutoff="1"/>',
     "an orientation or an axis takes no cutoff"),
    ('<framepos objtype="site" objname="lid" refname="box"/>',
     "reftype and refname go together"),
    ('<framelinacc objtype="site" objname="lid" reftype="xbody" refname="box"/>',
     r"sensor 'sensor0' \(framelinacc\): takes no reftype"),
    ('<framepos objtype="site" objname="lid" reftype="site" refname="hat"/>',
     "no site named 'hat'"),
    ('<subtreecom body="bone"/>', r"sensor 'sensor0' \(subtreecom\): no body named 'bone'"),
    ('<subtreecom/>', "body missing"),
    ('<actuatorfrc actuator="nowhere"/>', "no actuator named 'nowhere'"),
    ('<actuatorfrc/>', "actuator missing"),
])
def test_bad_sensors_are_refused_in_one_line(tmp_path, sensor, message):
    path = tmp_path / "touch.xml"
    path.write_text(re.sub(r"<sensor>.*</sensor>", f"<sensor>{sensor}</sensor>", TOUCH,
                           flags=re.S))
    with pytest.raises(ValueError, match=message):
        coulomb.Simulation.from_file(str(path))


@pytest.mark.parametrize("site, message", [
    ('type="cone"', "site 'sole': unknown type 'cone'"),
    ('type="box" size="0.1 x"', "site 'sole' size '0.1 x': not a number"),
    ('type="sphere" fromto="0 0 0 0 0 1"', "site 'sole' fromto: a sphere has no axis"),
    ('type="box" fromto="0 0 0 0 0 1 2"', "site 'sole' fromto .*expected 6 numbers"),
    ('type="capsule" fromto="0 0 1 0 0 1"', "site 'sole' fromto: its ends coincide"),
])
def test_bad_sites_are_refused_in_one_line(tmp_path, site, message):
    path = tmp_path / "touch.xml"
    path.write_text(TOUCH.replace(
        '<site name="sole" type="box" pos="0 0 -0.05" size="0.11 0.11 0.01"/>',
        f'<site name="sole" {site}/>'))
    with pytest.raises(ValueError, match=message):
        coulomb.Simulation.from_file(str(path))


def test_each_body_of_a_file_reads_its_own_actuator_forces(tmp_path):
    # Two sliders of one file, each a robot with its motor (gear 2 and 4):
    # each reads its own actuator's force, ctrl × gain, whatever the gear,
    # and the second its geom's frame.
    slider = ('<body name="{b}" pos="{x} 0 1"><joint name="{b}_slide" type="slide" '
              'axis="1 0 0"/><geom name="{b}_box" type="box" size="0.1 0.1 0.1" mass="1" '
              'pos="0.1 0 0"/></body>')
    path = tmp_path / "sliders.xml"
    path.write_text(f"""<mujoco><worldbody>{slider.format(b="a", x=0)}
      {slider.format(b="b", x=1)}</worldbody>
      <actuator><motor name="push_a" joint="a_slide" gear="2"/>
        <motor name="push_b" joint="b_slide" gear="4"/></actuator>
      <sensor><actuatorfrc name="fa" actuator="push_a"/>
        <actuatorfrc name="fb" actuator="push_b"/>
        <framepos name="where_b" objtype="geom" objname="b_box"/></sensor></mujoco>""")
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.sensor_names("a") == ["fa"] and sim.sensor_names("b") == ["fb", "where_b"]
    assert sim.sensor_data("b")["where_b"] == pytest.approx([1.1, 0, 1], abs=1e-15)
    sim.set_ctrl("a", [1.5])
    sim.set_ctrl("b", [-0.5])
    sim.step()
    assert sim.sensor_data("a")["fa"] == pytest.approx([1.5], abs=1e-12)
    assert sim.sensor_data("b")["fb"] == pytest.approx([-0.5], abs=1e-12)
    assert sim.joint_efforts("b") == pytest.approx([-2.0], abs=1e-12)


def test_each_body_of_a_file_reads_its_own_sensors(tmp_path):
    # Two boxes of one file, each a robot of the scene: each has the sensors
    # on its own sites; one on the other's site is not its.
    second = re.search(r'    <body name="box".*?\n    </body>\n', TOUCH, re.S).group(0)
    for old in ("box", "sole", "lid", "left", "front", "ring", "back", "right"):
        second = second.replace(f'name="{old}"', f'name="{old}2"')
    second = second.replace('pos="0 0 0.2"', 'pos="1 0 0.2"', 1)
    text = TOUCH.replace("    </body>\n", "    </body>\n" + second, 1).replace(
        "</sensor>", '<touch name="sole2" site="sole2"/><framepos name="where2" '
        'objtype="xbody" objname="box2"/></sensor>')
    path = tmp_path / "boxes.xml"
    path.write_text(text)
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.sensor_names("box") == ["sole", "lid", "left", "capped", "front", "ring",
                                       "back", "right"]
    assert sim.sensor_names("box2") == ["sole2", "where2"]
    assert sim.sensor_data("box2")["where2"] == pytest.approx([1.0, 0.0, 0.2], abs=1e-15)
    sim.run(1.0)
    assert sim.sensor_data("box2")["sole2"][0] == pytest.approx(2 * G, rel=1e-5)


def test_set_ctrl_moves_a_servos_target_as_its_control(tmp_path):
    # Started at control 0, then set to 255 (and beyond its ctrlrange, which
    # clamps it): the servo holds L where its law balances the weight, as
    # the keyframe's 255 does.
    sim = run_alone(tmp_path, gripper(ctrl="0"))
    assert sim.actuator_names("gripper") == ["grip"]
    sim.run(3.0)
    assert sim.tendon_lengths("gripper")[0] == pytest.approx(-HOLDING_FORCE / 100, abs=1e-7)
    for ctrl in ([255], {"grip": 300}):
        sim.set_ctrl("gripper", ctrl)
        sim.run(2.0)
        assert sim.tendon_lengths("gripper")[0] == pytest.approx(
            0.04 - HOLDING_FORCE / 100, abs=1e-7)


@pytest.mark.parametrize("ctrl, error, message", [
    ([1, 2], ValueError, r"ctrl has 2 values, the robot 1 actuators \(grip\)"),
    ({"pinch": 1}, ValueError, "no actuator named 'pinch'"),
    ([float("nan")], ValueError, "gripper: ctrl for grip must be finite"),
    ({"grip": float("nan")}, ValueError, "grip: control must be finite"),
])
def test_bad_controls_are_refused(tmp_path, ctrl, error, message):
    sim = run_alone(tmp_path, gripper(ctrl="0"))
    with pytest.raises(error, match=message):
        sim.set_ctrl("gripper", ctrl)
    with pytest.raises(KeyError, match="no robot named 'hand'"):
        sim.set_ctrl("hand", [1])


def test_a_mapping_of_controls_is_checked_whole_before_any_is_set(tmp_path):
    # A cart on two slides, a motor on each (gear 1): a mapping whose later
    # entry is bad leaves the earlier one unset, so both motors still push
    # nothing; a good mapping sets its own actuator and leaves the other.
    path = tmp_path / "cart.xml"
    path.write_text("""<mujoco><option gravity="0 0 0"/><worldbody>
      <body name="cart" pos="0 0 1"><joint name="x" type="slide" axis="1 0 0"/>
        <body name="top"><joint name="y" type="slide" axis="0 1 0"/>
          <geom type="box" size="0.1 0.1 0.1" mass="1"/></body></body></worldbody>
      <actuator><motor name="push_x" joint="x"/><motor name="push_y" joint="y"/>
      </actuator></mujoco>""")
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.actuator_names("cart") == ["push_x", "push_y"]
    for bad, message in (({"push_x": 1.0, "pinch": 2.0}, "cart: no actuator named 'pinch'"),
                         ({"push_x": 1.0, "push_y": float("nan")},
                          "push_y: control must be finite")):
        with pytest.raises(ValueError, match=message):
            sim.set_ctrl("cart", bad)
        sim.step()
        assert sim.actuator_forces("cart") == pytest.approx([0.0, 0.0], abs=1e-12)
    sim.set_ctrl("cart", {"push_y": 2.0})
    sim.step()
    assert sim.actuator_forces("cart") == pytest.approx([0.0, 2.0], abs=1e-12)


ARM_AND_WRIST = """<mujoco><worldbody><geom type="plane" size="5 5 0.1"/>
  <body name="ball" pos="2 0 1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
  <body name="arm" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="2"/>
    <body name="upper" pos="0.2 0 0"><joint name="shoulder" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5"/>
      <body name="lower" pos="0.3 0 0"><joint name="elbow" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5"/></body></body></body>
  <body name="wrist" pos="0 2 1"><geom type="box" size="0.05 0.05 0.05" mass="1"/>
    <body name="a" pos="0.1 0 0"><joint name="h1" type="hinge" axis="0 0 1"/>
      <geom type="sphere" size="0.03" mass="0.2"/>
      <body name="b" pos="0.1 0 0"><joint name="turn" type="ball"/>
        <geom type="sphere" size="0.03" mass="0.2"/>
        <body name="c" pos="0.1 0 0"><joint name="h2" type="hinge" axis="0 0 1"/>
          <geom type="sphere" size="0.03" mass="0.2"/></body></body></body></body>
</worldbody></mujoco>"""


def test_views_of_the_state_read_each_robots_joints_without_a_copy(tmp_path):
    # A free ball, an arm on a floating base (7 + 2 positions, 6 + 2
    # velocities) and a wrist whose ball joint sits between its hinges: the
    # slices tile q and v in body_names order, the arm's joints follow its
    # base, and the views follow the steps (the arm folds as it falls).
    path = tmp_path / "arm.xml"
    path.write_text(ARM_AND_WRIST)
    sim = coulomb.Simulation.from_file(str(path))
    assert [sim.position_slice(n) for n in sim.body_names] == [
        slice(0, 7), slice(7, 16), slice(16, 22)]
    assert [sim.velocity_slice(n) for n in sim.body_names] == [
        slice(0, 6), slice(6, 14), slice(14, 19)]
    qs, vs = sim.joint_slices("arm")
    assert (qs, vs) == (slice(14, 16), slice(12, 14))
    joints_q, joints_v = sim.q_view[qs], sim.v_view[vs]
    for _ in range(20):
        sim.step()
    np.testing.assert_array_equal(joints_q, sim.joint_positions("arm"))
    np.testing.assert_array_equal(joints_v, sim.joint_velocities("arm"))
    np.testing.assert_array_equal(sim.q_view, sim.q)
    assert np.all(joints_v != 0)
    with pytest.raises(ValueError, match="read-only"):
        sim.q_view[0] = 1.0
    with pytest.raises(ValueError, match="wrist: its one-dof joints are not consecutive"):
        sim.joint_slices("wrist")
    with pytest.raises(KeyError, match="no robot named 'ball'"):
        sim.joint_slices("ball")


def test_set_ctrl_sets_a_velocity_servos_target_velocity(tmp_path):
    # A cart on a level slide, nothing but its velocity servo along it: it
    # reaches the control's speed, then the clamped one (ctrlrange 0.5).
    sim = run_alone(tmp_path, """<mujoco model="cart">
  <worldbody><body name="cart"><joint name="x" type="slide" axis="1 0 0"/>
    <geom type="box" size="0.1 0.1 0.1" mass="2" contype="0" conaffinity="0"/></body>
  </worldbody>
  <actuator><velocity name="drive" joint="x" kv="50" ctrlrange="-0.5 0.5"/></actuator>
</mujoco>""")
    for ctrl, speed in ((0.3, 0.3), (2.0, 0.5)):
        sim.set_ctrl("cart", [ctrl])
        sim.run(1.0)
        assert sim.joint_velocities("cart")[0] == pytest.approx(speed, abs=1e-9)


# A floating arm, its base free: each subtree sensor, the frame sensors of
# sites, geoms, body frames and a body's inertial frame (given) relative to
# moving ones (and to the world's body), and the frames' accelerations.
FLOATING_ARM = """<mujoco model="floating arm">
  <option gravity="0.3 -0.5 -9.81"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <site name="post" pos="0.3 -0.2 0.1" euler="20 -10 40"/>
    <body name="base" pos="0 0 1" euler="10 0 -20">
      <freejoint/>
      <geom name="hull" type="box" size="0.1 0.05 0.04" mass="2" pos="0.01 0.02 0"
            euler="5 0 10"/>
      <site name="imu" pos="0.05 -0.02 0.03" euler="0 25 -30"/>
      <body name="link" pos="0.1 0 0" euler="0 30 0">
        <joint name="elbow" type="hinge" axis="0 1 0.3"/>
        <geom name="bone" type="capsule" fromto="0 0 0 0.3 0.05 0" size="0.02" mass="0.7"/>
        <site name="knuckle" pos="0.2 0.01 0" euler="45 10 0"/>
        <body name="tip" pos="0.3 0 0" euler="20 0 0">
          <joint name="extend" type="slide" axis="1 0 0.2"/>
          <inertial pos="0.03 0.01 -0.005" euler="10 20 30" mass="0.2"
                    diaginertia="1e-4 2e-4 3e-4"/>
          <geom name="ball" type="sphere" size="0.03" pos="0.02 0 0"/>
          <site name="finger" pos="0.05 0.01 -0.02" euler="15 -40 70"/>
        </body>
      </body>
    </body>
  </worldbody>
  <sensor>
    <subtreecom name="com" body="base"/><subtreelinvel name="com_v" body="base"/>
    <subtreeangmom name="L" body="base"/>
    <subtreecom name="link_com" body="link"/><subtreelinvel name="link_com_v" body="link"/>
    <subtreeangmom name="link_L" body="link"/>
    <framepos name="p" objtype="site" objname="finger" reftype="site" refname="imu"/>
    <framequat name="q" objtype="site" objname="finger" reftype="xbody" refname="link"/>
    <framexaxis name="x" objtype="site" objname="finger" reftype="site" refname="knuckle"/>
    <frameyaxis name="y" objtype="xbody" objname="tip" reftype="site" refname="post"/>
    <framezaxis name="z" objtype="site" objname="finger" reftype="xbody" refname="base"/>
    <framelinvel name="v" objtype="site" objname="finger" reftype="site" refname="imu"/>
    <frameangvel name="w" objtype="site" objname="finger" reftype="site" refname="knuckle"/>
    <framelinvel name="v_base" objtype="xbody" objname="tip" reftype="xbody" refname="base"/>
    <framepos name="p_world" objtype="site" objname="finger" reftype="xbody" refname="world"/>
    <framepos name="bone_p" objtype="geom" objname="bone"/>
    <framequat name="bone_q" objtype="geom" objname="bone"/>
    <framelinvel name="hull_v" objtype="geom" objname="hull" reftype="geom" refname="ball"/>
    <framexaxis name="finger_x" objtype="site" objname="finger" reftype="geom" refname="bone"/>
    <framequat name="hull_q" objtype="geom" objname="hull" reftype="geom" refname="bone"/>
    <framepos name="tip_com" objtype="body" objname="tip"/>
    <framequat name="tip_axes" objtype="body" objname="tip"/>
    <framelinvel name="tip_com_v" objtype="body" objname="tip" reftype="site" refname="imu"/>
    <frameangvel name="imu_w" objtype="site" objname="imu" reftype="body" refname="tip"/>
  </sensor>
  <keyframe><key name="moving" qpos="0.1 -0.2 1.1 0.9 0.1 -0.3 0.2 0.4 0.05"
                 qvel="0.3 -0.4 0.5 1.5 -2 0.7 2.5 -0.6"/></keyframe>
</mujoco>"""


def test_a_floating_arm_keeps_its_momentum_to_first_order(tmp_path):
    # Without gravity nothing acts on the arm from outside: its centre of
    # mass moves at a constant velocity and its angular momentum about that
    # centre stays as it was, while the elbow and the slide move. Symplectic
    # Euler keeps them to O(δt) (the momenta map changes with q over a
    # step): halving δt halves the drift over 1 s.
    drifts = []
    for time_step in (0.002, 0.001):
        path = tmp_path / "arm.xml"
        path.write_text(FLOATING_ARM.replace('<option gravity="0.3 -0.5 -9.81"/>',
                                             f'<option gravity="0 0 0" timestep="{time_step}"/>'))
        sim = coulomb.Simulation.from_file(str(path), keyframe="moving")
        start = sim.sensor_data("floating arm")
        sim.run(1.0)
        end = sim.sensor_data("floating arm")
        drifts.append([np.linalg.norm(end["com_v"] - start["com_v"]),
                       np.linalg.norm(end["com"] - start["com"] - start["com_v"]),
                       np.linalg.norm(end["L"] - start["L"])])
        assert abs(sim.joint_positions("floating arm")[-1] - 0.05) > 0.1  # it moved
        assert np.linalg.norm(end["link_L"] - start["link_L"]) > 1e-3
    ratios = np.array(drifts[0]) / np.array(drifts[1])
    assert np.all((ratios > 1.9) & (ratios < 2.1)), ratios
    assert drifts[1][2] < 3e-3 * np.linalg.norm(start["L"])


# A two-link arm hanging from the world, damped, with a wrist site on its
# lower link (turned in it) carrying a force-torque sensor and an
# accelerometer.
HANGING_ARM = """<mujoco model="hanging arm">
  <worldbody>
    <site name="ceiling" pos="0 0 1.2"/>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" damping="0.5"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02" mass="1" contype="0"
            conaffinity="0"/>
      <body name="lower" pos="0 0 -0.3">
        <joint name="elbow" type="hinge" axis="0 1 0" damping="0.5"/>
        <geom type="capsule" fromto="0 0 0 0.1 0 -0.3" size="0.02" mass="0.5" contype="0"
              conaffinity="0"/>
        <site name="wrist" pos="0 0 -0.1" euler="0 30 45"/>
      </body>
    </body>
  </worldbody>
  <sensor><force site="wrist"/><torque site="wrist"/><accelerometer site="wrist"/>
    <framepos name="where" objtype="site" objname="wrist"/>
    <framequat name="turn" objtype="site" objname="wrist"/></sensor>
  <keyframe><key name="swing" qpos="0.4 -0.3" qvel="1 2"/></keyframe>
</mujoco>"""


def test_a_wrist_force_sensor_carries_the_hanging_links_weight(tmp_path):
    # At rest the upper link holds the lower one up, F = −m g, through the
    # elbow pin e, which exerts no torque about it: about the wrist p the
    # torque is (e − p) × F; the accelerometer reads −g. All in the wrist's
    # frame. Before any step the accelerations are taken as 0.
    path = tmp_path / "arm.xml"
    path.write_text(HANGING_ARM)
    sim = coulomb.Simulation.from_file(str(path), keyframe="swing")
    sim.run(20.0)
    data = sim.sensor_data("hanging arm")
    rotation = quaternion_matrix(*data["turn"])
    weight = np.array([0.0, 0.0, 0.5 * G])
    elbow = np.array(sim.body_position("lower"))
    np.testing.assert_allclose(rotation @ data["sensor0"], weight, atol=1e-9)
    np.testing.assert_allclose(rotation @ data["sensor1"],
                               np.cross(elbow - data["where"], weight), atol=1e-9)
    np.testing.assert_allclose(rotation @ data["sensor2"], [0.0, 0.0, G], atol=1e-9)
    sim.set_state(sim.q, sim.v)  # no step leads here: no accelerations, no contacts
    np.testing.assert_allclose(rotation @ sim.sensor_data("hanging arm")["sensor2"],
                               [0.0, 0.0, G], atol=1e-9)


@pytest.mark.parametrize("sensor, message", [
    ('<force site="ceiling"/>', "needs a site on a link that a joint moves"),
    ('<torque site="wrist"/>', "needs a site on a link that a joint moves"),
    ('<subtreecom body="hand"/><framepos objtype="site" objname="wrist"/>',
     "a subtree sensor needs a body that a joint moves"),
])
def test_a_force_sensor_off_a_jointed_link_is_refused(tmp_path, sensor, message):
    # The world's site, and a site on a link welded to its parent (the
    # wrist site moved onto a jointless hand); a subtree on that link.
    text = re.sub(r"<sensor>.*</sensor>", f"<sensor>{sensor}</sensor>", HANGING_ARM,
                  flags=re.S)
    if "wrist" in sensor:
        text = text.replace('<site name="wrist" pos="0 0 -0.1" euler="0 30 45"/>',
                            '<body name="hand" pos="0.1 0 -0.3"><geom type="sphere" '
                            'size="0.03" mass="0.1" contype="0" conaffinity="0"/>'
                            '<site name="wrist"/></body>')
    path = tmp_path / "arm.xml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        coulomb.Simulation.from_file(str(path))


def test_sensors_of_frames_not_read_are_a_warning(tmp_path):
    # A frame relative to a body's inertial frame that MuJoCo finds itself:
    # MuJoCo reads it, Coulomb says it does not (and reads the others, the
    # world's subtree among them).
    sensors = ('<subtreecom name="all" body="world"/><framepos name="rel" objtype="site" '
               'objname="wrist" reftype="body" refname="upper"/><subtreecom body="lower"/>')
    path = tmp_path / "arm.xml"
    path.write_text(re.sub(r"<sensor>.*</sensor>", f"<sensor>{sensors}</sensor>",
                           HANGING_ARM, flags=re.S))
    with pytest.warns(UserWarning, match=r"1 sensor is not read .*: 'rel' \(framepos\)$"):
        sim = coulomb.Simulation.from_file(str(path))
    assert sim.sensor_names("hanging arm") == ["all", "sensor2"]


MOCAP_FILE = """<mujoco>
  <worldbody>
    <body name="target" mocap="true" pos="0 0 1" quat="0 0 0 1"/>
    <body name="hand" pos="0.3 0 1">
      <freejoint/>
      <geom type="sphere" size="0.05" mass="1" contype="0" conaffinity="0"/>
    </body>
    <body name="plate" mocap="true" pos="1 0 0.2"><geom type="box" size="0.2 0.2 0.01"/></body>
  </worldbody>
  <equality><weld name="grab" body1="hand" body2="target"/>{more}</equality>
</mujoco>"""


def test_mocap_bodies_are_named_moved_and_kept_by_snapshots(tmp_path):
    # A file's mocap bodies by name, where the file puts them until set; an
    # unknown name, a bad position or quaternion refused in one line; the
    # weld to one read without the warning a weld to another robot's body
    # gets; a snapshot (and a pickle) carries the mocap bodies' poses, so
    # that the restored simulation steps as the original, bit for bit.
    path = tmp_path / "teleop.xml"
    path.write_text(MOCAP_FILE.format(more='<connect body1="hand" body2="plate" anchor="0 0 0"/>'))
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.mocap_names == ["target", "plate"]
    assert sim.warnings == []
    assert sim.connection_names("hand") == ["grab", "equality1"]
    position, quaternion = sim.mocap_pose("target")
    np.testing.assert_allclose(position, [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(np.abs(quaternion), [0, 0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(sim.connection_frame("hand", "grab")[0], [0, 0, 1], atol=1e-15)
    with pytest.raises(KeyError, match="no mocap body named 'hand'.*target, plate"):
        sim.set_mocap_pose("hand", [0, 0, 0])
    for position, quaternion, complaint in [([0, 0, np.nan], [1, 0, 0, 0], "position"),
                                            ([0, 0, 0], [0, 0, 0, 0], "quaternion")]:
        with pytest.raises(ValueError, match=f"mocap body 'target': {complaint}"):
            sim.set_mocap_pose("target", position, quaternion)
    sim.set_connection_active("hand", "equality1", False)
    sim.run(0.1, record=False)
    sim.set_mocap_pose("target", [0.1, 0.2, 1.1], [0.9, 0.1, 0.0, 0.1])
    sim.set_mocap_pose("plate", [1, 0, 0.3])
    snapshot = sim.snapshot()
    ahead = sim.run(0.2).q
    sim.set_mocap_pose("target", [0, 0, 0])
    sim.set_mocap_pose("plate", [0, 0, 0])
    sim.restore(snapshot)
    np.testing.assert_array_equal(sim.mocap_pose("plate")[0], [1, 0, 0.3])
    np.testing.assert_array_equal(sim.mocap_pose("target")[0], [0.1, 0.2, 1.1])
    np.testing.assert_array_equal(sim.run(0.2).q, ahead)
    twin = coulomb.Simulation.from_file(str(path))
    twin.restore(pickle.loads(pickle.dumps(snapshot)))
    np.testing.assert_array_equal(twin.run(0.2).q, ahead)
    np.testing.assert_allclose(twin.connection_frame("hand", "grab")[0], [0.1, 0.2, 1.1],
                               atol=1e-15)


@pytest.mark.parametrize("change, complaint", [
    (('pos="1 0 0.2"><geom', 'pos="1 0 0.2"><joint type="slide"/><geom'),
     "mocap body 'plate' has a joint"),
    (('<body name="plate" mocap="true" pos="1 0 0.2">',
      '<body name="holder" pos="1 0 0.2"><body name="plate" mocap="true">'),
     "body 'plate' has mocap=\"true\" but is not a child of <worldbody>")])
def test_a_mocap_body_with_a_joint_or_below_another_body_is_refused(tmp_path, change,
                                                                    complaint):
    text = MOCAP_FILE.format(more="").replace(*change)
    if "holder" in text:
        text = text.replace("</body>\n  </worldbody>", "</body></body>\n  </worldbody>")
    path = tmp_path / "teleop.xml"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(complaint)):
        coulomb.Simulation.from_file(str(path))


def test_a_weld_to_a_body_that_does_not_move_is_said_not_read(tmp_path):
    # The cube welded to the table, which is fixed geometry of the world
    # here (no joint): a warning names the weld and the table; nothing holds
    # the cube, which falls onto the table top (0.5 + 0.02 + 0.05).
    path = several_bodies(tmp_path)
    path.write_text(path.read_text().replace('<weld body1="cube" body2="lift"/>',
                                             '<weld name="glue" body1="cube" body2="table"/>'))
    with pytest.warns(UserWarning):
        sim = coulomb.Simulation.from_file(str(path))
    assert sim.connection_names("cube") == []
    assert (f"{path}: <equality><weld> 'glue': body 'table' is no moving robot of the "
            "scene: not read") in sim.warnings
    sim.run(1.0)
    np.testing.assert_allclose(sim.body_position("cube"), [1, 0, 0.57], atol=2e-3)


STACKED = """<mujoco>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body name="lower" pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
    <body name="upper" pos="0 0 0.35"><freejoint/><geom type="box" size="0.05 0.05 0.05"/></body>
  </worldbody>
  {exclude}
</mujoco>"""


@pytest.mark.parametrize("excluded", [False, True])
def test_an_exclude_of_two_top_level_bodies_lets_them_pass_through(tmp_path, excluded):
    # Two free boxes of one file, the small one dropped onto the large: it
    # rests on it (0.2 + 0.05), or, its exclude read, falls through it onto
    # the floor (0.05), as in MuJoCo.
    path = tmp_path / "stacked.xml"
    path.write_text(STACKED.format(
        exclude='<contact><exclude body1="upper" body2="lower"/></contact>' if excluded
        else ""))
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.warnings == []
    sim.run(1.0)
    expected = 0.05 if excluded else 0.25
    assert sim.body_position("upper")[2] == pytest.approx(expected, abs=2e-3)
    assert sim.body_position("lower")[2] == pytest.approx(0.1, abs=2e-3)


@pytest.mark.parametrize("lower", ['<body name="lower"', '<body name="lower" mocap="true"'])
@pytest.mark.parametrize("excluded", [False, True])
def test_an_exclude_of_a_body_that_does_not_move_lets_a_moving_one_pass_through(
        tmp_path, lower, excluded):
    # The large box without its joint (a table: fixed geometry of the world)
    # or a mocap body: the small box dropped onto it rests on it, or, their
    # exclude read, falls through it onto the floor, as in MuJoCo; no warning.
    path = tmp_path / "stacked.xml"
    path.write_text(STACKED.format(
        exclude='<contact><exclude body1="lower" body2="upper"/></contact>' if excluded
        else "").replace('<body name="lower" pos="0 0 0.1"><freejoint/>',
                         lower + ' pos="0 0 0.1">'))
    sim = coulomb.Simulation.from_file(str(path))
    assert sim.warnings == []
    assert sim.body_names == ["upper"]
    assert sim.mocap_names == (["lower"] if "mocap" in lower else [])
    sim.run(1.0)
    expected = 0.05 if excluded else 0.25
    assert sim.body_position("upper")[2] == pytest.approx(expected, abs=2e-3)


# The ball's file with an ellipsoid for its sphere, turned, `offset` from its
# body's frame along x (MuJoCo's default time step, 2 ms).
SPINNING_ROCK = BALL_MJCF.replace('pos="0 0 3" euler="0 0 90"', 'pos="0 0 2" euler="30 20 10"') \
    .replace('name="sphere" type="sphere" size="0.1"',
             'type="ellipsoid" size="0.09 0.06 0.05" pos="{offset} 0 0" euler="10 40 0"')


def test_a_loose_bodys_closed_form_steps_as_the_general_dynamics(tmp_path):
    # A loose body whose centre of mass lies at its free joint steps in the
    # free bodies' closed form (M = diag(m I, I_B), h = [−m g; ω × I_B ω]);
    # 1e-7 m off, the same body goes through the tree's dynamics (the CRBA
    # and Newton–Euler). Spinning about no principal axis and falling, the
    # two agree to what the offset moves: 1e-7 m.
    def fly(offset):
        path = tmp_path / f"rock_{offset}.xml"
        path.write_text(SPINNING_ROCK.format(offset=offset))
        sim = coulomb.Simulation.from_file(str(path))
        v = np.array([0.3, 0.0, 1.0, 3.0, -5.0, 2.0])  # [ṗ_W, ω_B]
        sim.set_state(sim.q, v)
        return sim.run(0.6, record=False), sim
    (_, closed), (_, general) = fly(0), fly(1e-7)
    np.testing.assert_allclose(closed.q, general.q, rtol=0, atol=1e-6)
    np.testing.assert_allclose(closed.v, general.v, rtol=0, atol=1e-6)
    # It turned and fell: the comparison is not of a body at rest.
    assert abs(closed.q[2] - (2.0 + 0.6 - 0.5 * G * 0.6**2)) < 0.01
    assert np.linalg.norm(closed.v[3:] - [3.0, -5.0, 2.0]) > 0.1  # ω_B precesses
