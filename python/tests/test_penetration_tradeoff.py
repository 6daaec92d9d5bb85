"""bench/peers/penetration_tradeoff.py (`make bench-lookahead`): its runs are
the scenes' own, its statistics what the steps recorded, and its reading
picks the cheapest Coulomb setting that sinks no deeper than MuJoCo."""

import sys

import pytest

import coulomb
from conftest import REPOSITORY

pytest.importorskip("mujoco")
sys.path.insert(0, str(REPOSITORY / "bench" / "peers"))
import penetration_tradeoff  # noqa: E402
import run_peers  # noqa: E402

BODIES, DURATION = 20, 0.6


def test_coulombs_run_is_the_scenes_own_run():
    sim = coulomb.Simulation.from_builtin("clutter", bodies=BODIES, walls=False)
    result = penetration_tradeoff.run_coulomb(sim, DURATION)
    again = coulomb.Simulation.from_builtin("clutter", bodies=BODIES, walls=False)
    summary = again.run(DURATION, record=False).summary
    assert result["penetration_max"] == pytest.approx(summary["penetration_max"], rel=1e-12)
    assert result["iterations"] == pytest.approx(summary["iterations_mean"], rel=1e-12)
    assert result["contacts"] == summary["contacts_max"]
    assert result["error"] == pytest.approx(summary["momentum_error_max"], rel=1e-12)
    assert 0.0 < result["penetration_mean"] < result["penetration_max"]


def test_a_shorter_look_ahead_finds_fewer_contacts_ahead_and_sinks_deeper(monkeypatch):
    # One round: the physics, not the times, is what this test reads.
    monkeypatch.setattr(run_peers, "MIN_REPEATS", 1)
    monkeypatch.setattr(run_peers, "MAX_REPEATS", 1)
    case = run_peers.Case("clutter", run_peers.COLUMNS, BODIES, False, 4, DURATION)
    settings = penetration_tradeoff.measure(case)
    coulomb_runs = {s["lookahead_steps"]: s for s in settings if s["engine"] == "Coulomb"}
    mujoco_runs = {s["substeps"]: s for s in settings if s["engine"] == "MuJoCo"}
    assert sorted(coulomb_runs) == sorted(penetration_tradeoff.LOOKAHEAD_STEPS)
    assert sorted(mujoco_runs) == sorted(penetration_tradeoff.MUJOCO_SUBSTEPS)
    for run in coulomb_runs.values():  # every step certified
        assert run["failed"] == 0 and run["error"] <= 1e-6
    # Without the sweep, bodies meet overlapping; with the default, ahead.
    assert coulomb_runs[0.0]["penetration_mean"] > 1.5 * coulomb_runs[2.0]["penetration_mean"]
    # MuJoCo's stiffer contacts at shorter steps sink less.
    depths = [mujoco_runs[k]["penetration_mean"] for k in sorted(mujoco_runs)]
    assert depths == sorted(depths, reverse=True)
    text = penetration_tradeoff.table(case, settings)
    assert text.count("| Coulomb |") == len(coulomb_runs)
    assert text.count("| MuJoCo |") == len(mujoco_runs)


def test_the_reading_takes_the_cheapest_setting_no_deeper():
    case = run_peers.Case("clutter", run_peers.COLUMNS, BODIES, False, 4, DURATION)
    settings = [
        dict(engine="Coulomb", label="look-ahead 0 δt", ms=1.0, penetration_mean=0.009),
        dict(engine="Coulomb", label="look-ahead 1 δt", ms=2.0, penetration_mean=0.004),
        dict(engine="Coulomb", label="look-ahead 2 δt", ms=3.0, penetration_mean=0.003),
        dict(engine="MuJoCo", label="δt, time constant 2 δt", ms=1.5, penetration_mean=0.005),
        dict(engine="MuJoCo", label="δt/2, time constant 1 δt", ms=2.5,
             penetration_mean=0.001)]
    text = penetration_tradeoff.reading(case, settings)
    assert "Coulomb at look-ahead 1 δt 4.00 mm in 2.000 ms (1.33×)" in text
    assert "no look-ahead sinks as little as MuJoCo at δt/2" in text
