"""The layout of Coulomb's built-in clutter (src/coulomb/scenes/builtin_scenes.cc),
shared by the scripts that rebuild it in the peers (mujoco_scenes.py,
drake_scenes.py). Plain numpy: it runs under each peer's Python.

SAP §VI-C (../shared/spec/scenes.md): spheres (r = 5 cm, 1000 kg/m³) and
1 kg boxes of 10 cm alternating in columns, 0.15 m apart from z = 0.1 m,
μ = 1, δt = 10 ms; `columns=C` spreads them over a grid of columns 0.4 m
apart for large scenes; four walls 0.05 m thick and 0.8 m high.
"""

import math

import numpy as np

CLUTTER_DT = 0.01
SPHERE_RADIUS = 0.05
SPHERE_DENSITY = 1000.0
BOX_SIDE = 0.1
BOX_MASS = 1.0
FRICTION = 1.0
WALL_THICKNESS, WALL_HEIGHT = 0.05, 0.8


def rotation_rpy(roll, pitch, yaw):
    """R = Rz(yaw) Ry(pitch) Rx(roll), as Coulomb's Pose()."""
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch),
                              math.sin(pitch), math.cos(yaw), math.sin(yaw))
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def clutter_columns(columns):
    """Column centres: the paper's four, or a square grid 0.4 m apart."""
    if columns == 4:
        return [(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]
    side = math.ceil(math.sqrt(columns))
    return [(0.4 * (k % side - 0.5 * (side - 1)), 0.4 * (k // side - 0.5 * (side - 1)))
            for k in range(columns)]


def clutter_half_width(columns):
    return 0.4 if columns == 4 else 0.2 * math.ceil(math.sqrt(columns))


def clutter_walls(columns):
    """(centre, full size) of the four walls around the columns."""
    half = clutter_half_width(columns)
    center, length = half + WALL_THICKNESS / 2, 2 * half + 2 * WALL_THICKNESS
    z = WALL_HEIGHT / 2
    return [((center, 0, z), (WALL_THICKNESS, length, WALL_HEIGHT)),
            ((-center, 0, z), (WALL_THICKNESS, length, WALL_HEIGHT)),
            ((0, center, z), (length, WALL_THICKNESS, WALL_HEIGHT)),
            ((0, -center, z), (length, WALL_THICKNESS, WALL_HEIGHT))]


def clutter_bodies(bodies, columns):
    """(name, kind, position, rotation) of every object, as Coulomb adds them."""
    result = []
    for k, (x, y) in enumerate(clutter_columns(columns)):
        for j in range(bodies // columns + (1 if k < bodies % columns else 0)):
            position = (x, y, 0.1 + 0.15 * j)
            if (j + k) % 2 == 0:
                result.append((f"body_{k}_{j}", "sphere", position, np.eye(3)))
            else:
                rotation = rotation_rpy(0.2 * j, 0.3 * k, 0.1 * (j + k))
                result.append((f"body_{k}_{j}", "box", position, rotation))
    return result
