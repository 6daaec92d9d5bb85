"""bench/loose_bodies.py (`make bench-loose-bodies`): the pile of capped
boxes (two welded bodies each, their centres of mass off their frames) in
the free bodies' closed form and on a tree's general path
(`closed_form=False`) is the same physics stepped two ways: the two runs
must end where each other ends, and MuJoCo, an independent engine, must see
the same objects come to rest on the ground."""

import sys

import coulomb
import numpy as np
import pytest

from conftest import REPOSITORY

sys.path.insert(0, str(REPOSITORY / "bench"))
import loose_bodies  # noqa: E402
from peers import mjcf_side_by_side  # noqa: E402


def test_closed_form_and_general_path_land_the_same_pile(tmp_path):
    path = tmp_path / "pile.xml"
    path.write_text(loose_bodies.pile(16))
    runs = {name: mjcf_side_by_side.run_coulomb(str(path), 1.5, closed_form=closed)
            for name, closed in (("closed", True), ("general", False))}
    closed, general = runs["closed"], runs["general"]
    assert closed["contacts"] >= 16  # every box has landed on something
    for run in runs.values():
        assert run["momentum_error"] <= 1e-6
    assert closed["iterations"] == pytest.approx(general["iterations"], abs=1e-12)
    # Two computations of the same physics, not one run twice: round-off
    # apart, grown by the collisions, but not bit for bit the same.
    assert 0.0 < np.abs(closed["q"] - general["q"]).max() < 1e-6
    # Every box lies on the ground at the end: q holds 7 entries per box
    # (its frame's position, then its quaternion), the third its height.
    heights = closed["q"].reshape(-1, 7)[:, 2]
    assert np.all(heights < 0.1)
    mujoco_run = mjcf_side_by_side.run_mujoco(str(path), 1.5)
    assert mujoco_run["contacts"] >= 16


def test_closed_form_takes_true_or_false():
    with pytest.raises(ValueError, match="closed_form must be True or False, got 'no'"):
        coulomb.Simulation.from_builtin("clutter", bodies=8, closed_form="no")
