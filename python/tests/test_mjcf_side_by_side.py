"""bench/peers/mjcf_side_by_side.py (`make bench-mjcf`): both engines run the
file for the same simulated time, and on the four-legged walker they agree
on where it stands (MuJoCo as the independent reference)."""

import sys

import pytest

from conftest import REPOSITORY

sys.path.insert(0, str(REPOSITORY / "bench" / "peers"))
import mjcf_side_by_side  # noqa: E402

WALKER = str(REPOSITORY / "scenes" / "four_legged_walker.xml")


def test_both_engines_stand_the_walker_on_its_four_feet_at_the_same_height():
    coulomb_run = mjcf_side_by_side.run_coulomb(WALKER, 2.0)
    mujoco_run = mjcf_side_by_side.run_mujoco(WALKER, 2.0)
    assert coulomb_run["momentum_error"] <= 1e-6
    for run in (coulomb_run, mujoco_run):
        assert run["contacts"] >= 4  # each foot on the ground
        assert run["position"][:2] == pytest.approx([0.0, 0.0], abs=1e-3)  # symmetric
        assert 0.3 < run["position"][2] < 0.4  # standing on its legs, not its belly
    # MuJoCo's softer stiction lets the feet creep and the knees bend a little.
    assert coulomb_run["position"][2] == pytest.approx(mujoco_run["position"][2], abs=0.015)
