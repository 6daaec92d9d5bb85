"""Coulomb's built-in scenes rebuilt in MuJoCo's MJCF, body for body.

The clutter of SAP §VI-C (../shared/spec/scenes.md), with Coulomb's
`columns=C` extension (a grid of columns 0.4 m apart for large scenes), the
box slide and the sphere on the ground. Same shapes, masses, poses, friction
and δt as `src/coulomb/scenes/builtin_scenes.cc`; `run_peers.py` checks the
layouts agree by comparing every body's initial position and the initial
energy of the two engines.

MuJoCo settings (all scenes): Newton solver, elliptic friction cones, the
implicitfast integrator, condim 3 (sliding friction only, like Coulomb's
contacts), MuJoCo's default contact softness (solref 0.02 1), islands (its
default), and unless given tolerance 1e-8 (a bound on its cost's scaled
decrease per iteration) and impratio 1 (the ratio of frictional to normal
impedance: larger values make stiction stiffer, less creep).
"""

import math

import numpy as np

import mujoco
from clutter_layout import CLUTTER_DT, clutter_bodies, clutter_walls


def quaternion(matrix):
    q = np.empty(4)
    mujoco.mju_mat2Quat(q, matrix.flatten())
    return q


def _model(geoms, dt, gravity=(0, 0, -9.81), impratio=1.0, tolerance=1e-8):
    return f"""<mujoco>
  <option timestep="{dt}" solver="Newton" cone="elliptic" tolerance="{tolerance:g}"
          integrator="implicitfast" iterations="100" impratio="{impratio:.17g}"
          gravity="{' '.join(f'{g:.17g}' for g in gravity)}">
    <flag energy="enable"/>
  </option>
  <size memory="256M"/>
  <worldbody>{''.join(geoms)}</worldbody>
</mujoco>"""


def clutter_mjcf(bodies, walls, columns=4, impratio=1.0, tolerance=1e-8, substeps=1):
    """The clutter; with substeps = k > 1, at δt/k and with contacts k times
    stiffer (solref's time constant 2 δt/k, the least MuJoCo advises for a
    step of δt/k): MuJoCo's soft contacts penetrate by an amount set by that
    time constant, which a shorter step alone does not change."""
    dt = CLUTTER_DT / substeps
    friction = 'friction="1 0 0" condim="3"'
    if substeps > 1:
        friction += f' solref="{2 * dt:.17g} 1"'
    geoms = [f'<geom type="plane" size="0 0 1" {friction}/>']
    if walls:
        for (x, y, z), (sx, sy, sz) in clutter_walls(columns):
            geoms.append(f'<geom type="box" pos="{x} {y} {z}" '
                         f'size="{sx / 2} {sy / 2} {sz / 2}" {friction}/>')
    for name, kind, (x, y, z), rotation in clutter_bodies(bodies, columns):
        if kind == "sphere":
            shape = f'<geom type="sphere" size="0.05" density="1000" {friction}/>'
        else:
            shape = f'<geom type="box" size="0.05 0.05 0.05" mass="1" {friction}/>'
        quat = " ".join(f"{c:.17g}" for c in quaternion(rotation))
        geoms.append(f'<body name="{name}" pos="{x} {y} {z}" quat="{quat}">'
                     f'<freejoint/>{shape}</body>')
    return _model(geoms, dt, impratio=impratio, tolerance=tolerance)


def box_slide_mjcf():
    """1 kg box 0.2 × 0.2 × 0.1 m at 1 m/s on the ground, μ = 0.5, δt = 1 ms."""
    friction = 'friction="0.5 0 0" condim="3"'
    return _model([f'<geom type="plane" size="0 0 1" {friction}/>',
                   f'<body name="box" pos="0 0 0.05"><freejoint/>'
                   f'<geom type="box" size="0.1 0.1 0.05" mass="1" {friction}/></body>'],
                  0.001)


def sphere_on_ground_mjcf():
    """1 kg ball, r = 0.1 m, dropped from 0.5 m; δt = 10 ms."""
    friction = 'friction="1 0 0" condim="3"'
    return _model([f'<geom type="plane" size="0 0 1" {friction}/>',
                   f'<body name="ball" pos="0 0 0.5"><freejoint/>'
                   f'<geom type="sphere" size="0.1" mass="1" {friction}/></body>'],
                  0.01)


def box_on_slope_mjcf(dt, impratio=1.0, tolerance=1e-8):
    """scenes/box_on_slope.yaml: two boxes 0.2 × 0.2 × 0.1 m on the ground
    under gravity tilted by 20° about y. "sticking" (1 kg) meets the ground
    with μ = 0.5 > tan 20°; "sliding" (500 kg/m³) with Coulomb's pair
    friction 2·0.2·0.5/0.7 = 0.286 < tan 20°, which MuJoCo takes from the
    geom of higher priority."""
    theta = math.radians(20.0)
    gravity = (9.81 * math.sin(theta), 0.0, -9.81 * math.cos(theta))
    ground = 'friction="0.5 0 0" condim="3"'
    sliding = f'friction="{2 * 0.2 * 0.5 / 0.7:.17g} 0 0" condim="3" priority="1"'
    return _model([f'<geom type="plane" size="0 0 1" {ground}/>',
                   f'<body name="sticking" pos="0 -0.5 0.05"><freejoint/>'
                   f'<geom type="box" size="0.1 0.1 0.05" mass="1" {ground}/></body>',
                   f'<body name="sliding" pos="0 0.5 0.05"><freejoint/>'
                   f'<geom type="box" size="0.1 0.1 0.05" density="500" {sliding}/></body>'],
                  dt, gravity=gravity, impratio=impratio, tolerance=tolerance)
