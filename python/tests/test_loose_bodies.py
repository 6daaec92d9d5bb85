"""bench/loose_bodies.py (`make bench-loose-bodies`): the pile of boxes off
their centres of mass, as loose bodies (the free bodies' closed form) and
with a welded massless child (a tree's general path), is the same physics
stepped two ways: the two runs must end where each other ends, and MuJoCo,
an independent engine, must see the same boxes come to rest on the ground."""

import sys

import numpy as np
import pytest

from conftest import REPOSITORY

sys.path.insert(0, str(REPOSITORY / "bench"))
import loose_bodies  # noqa: E402
from peers import mjcf_side_by_side  # noqa: E402


def test_closed_form_and_general_path_land_the_same_pile(tmp_path):
    runs = {}
    for name, general in (("closed", False), ("general", True)):
        path = tmp_path / f"{name}.xml"
        path.write_text(loose_bodies.pile(16, general))
        runs[name] = mjcf_side_by_side.run_coulomb(str(path), 1.5)
    closed, general = runs["closed"], runs["general"]
    assert closed["contacts"] >= 16  # every box has landed on something
    for run in runs.values():
        assert run["momentum_error"] <= 1e-6
    assert closed["iterations"] == pytest.approx(general["iterations"], abs=1e-12)
    assert np.abs(closed["q"] - general["q"]).max() < 1e-6
    # Every box lies on the ground at the end: q holds 7 entries per box
    # (its frame's position, then its quaternion), the third its height.
    heights = closed["q"].reshape(-1, 7)[:, 2]
    assert np.all(heights < 0.1)
    mujoco_run = mjcf_side_by_side.run_mujoco(str(tmp_path / "closed.xml"), 1.5)
    assert mujoco_run["contacts"] >= 16
