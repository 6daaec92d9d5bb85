"""The peers' copy of the clutter (bench/peers/clutter_layout.py, from which
`make bench-peers` builds the scene in MuJoCo and Drake) against Coulomb's
built-in scene: the comparison means something only if both engines start
from the same bodies, poses and masses."""

import math
import sys

import numpy as np
import pytest

import coulomb
from conftest import REPOSITORY

sys.path.insert(0, str(REPOSITORY / "bench" / "peers"))
import clutter_layout  # noqa: E402

G = 9.81


def rotation_of(quaternion):
    """R of a unit quaternion (w, x, y, z)."""
    w, x, y, z = quaternion
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


@pytest.mark.parametrize("bodies, columns", [(40, 4), (7, 4), (23, 9), (100, 10)])
def test_the_peers_clutter_is_coulombs_body_for_body(bodies, columns):
    sim = coulomb.Simulation.from_builtin("clutter", bodies=bodies, columns=columns)
    layout = clutter_layout.clutter_bodies(bodies, columns)
    assert sorted(sim.body_names) == sorted(name for name, *_ in layout)
    energy = 0.0
    for name, kind, position, rotation in layout:
        assert sim.body_position(name) == pytest.approx(position, abs=1e-12)
        assert rotation_of(sim.body_orientation(name)) == pytest.approx(rotation, abs=1e-12)
        radius = clutter_layout.SPHERE_RADIUS
        mass = (clutter_layout.SPHERE_DENSITY * 4 / 3 * math.pi * radius**3
                if kind == "sphere" else clutter_layout.BOX_MASS)
        energy += mass * G * position[2]
    # Masses and heights: the initial energy (at rest, z = 0 reference).
    assert sim.run(sim.time_step).summary["energy_initial"] == pytest.approx(energy, rel=1e-12)


def test_the_peers_walls_are_the_papers_container():
    """SAP §VI-C (../shared/spec/scenes.md): an 80 × 80 cm interior, walls
    0.8 m high and 0.05 m thick outside it."""
    walls = sorted((tuple(center), tuple(size))
                   for center, size in clutter_layout.clutter_walls(4))
    expected = sorted([((0.425, 0, 0.4), (0.05, 0.9, 0.8)), ((-0.425, 0, 0.4), (0.05, 0.9, 0.8)),
                       ((0, 0.425, 0.4), (0.9, 0.05, 0.8)), ((0, -0.425, 0.4), (0.9, 0.05, 0.8))])
    for (center, size), (center_expected, size_expected) in zip(walls, expected):
        assert center == pytest.approx(center_expected, abs=1e-15)
        assert size == pytest.approx(size_expected, abs=1e-15)
