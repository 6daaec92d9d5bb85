"""MJCF files read by Coulomb against the same files run in MuJoCo (pip
`mujoco`, pinned in the Makefile): an independent reading of the file's
bodies, inertias from geoms, poses, world geoms and actuators."""

import numpy as np
import pytest

import coulomb

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

# A servo lift, a turned table (a body without joints), a cube above it and
# a ball above a box pedestal, over the world's floor.
SCENE = """<mujoco model="several">
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="lift" pos="-1 0 1">
      <joint name="raise" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.1 0.1 0.1" mass="2"/>
    </body>
    <body name="table" pos="1 0 0.5" euler="0 0 90">
      <geom type="box" size="0.3 0.2 0.02"/>
      <body name="leg" pos="0 0 -0.25"><geom type="box" size="0.02 0.02 0.25"/></body>
    </body>
    <body name="cube" pos="1 0 1">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="0.5"/>
    </body>
    <body name="pedestal" pos="0 2 0.2"><geom type="box" size="0.2 0.2 0.2"/></body>
    <body name="ball" pos="0 2 1">
      <freejoint/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
  <actuator><position joint="raise" kp="400" kv="40"/></actuator>
</mujoco>"""


def both(tmp_path, text):
    path = tmp_path / "model.xml"
    path.write_text(text)
    model = mujoco.MjModel.from_xml_path(str(path))
    return model, mujoco.MjData(model), coulomb.Simulation.from_file(str(path))


@pytest.mark.parametrize("joint, flag", [
    ("", ""),
    ('damping="0.1"', ""),  # MuJoCo's eulerdamp: implicit_damping here
    ('damping="0.1"', '<option><flag eulerdamp="disable"/></option>'),  # explicit in both
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
    # Where each body rests: the servo's statics, the cube on the turned
    # table, the ball on the pedestal; MuJoCo's soft contacts sink by at
    # most a few tenths of a millimetre, Coulomb's by microns.
    model, data, sim = both(tmp_path, SCENE)
    mujoco.mj_step(model, data, nstep=300)
    sim.run(300 * sim.time_step)
    for body in ("lift", "cube", "ball"):
        np.testing.assert_allclose(sim.body_position(body), data.body(body).xpos,
                                   atol=1e-3, err_msg=body)
    assert max(-contact.dist for contact in data.contact[:data.ncon]) < 1e-3
