"""bench/collapse_phases.py (`make bench-collapse`): its step-by-step run is
the run `Simulation.run` makes of the same scene, and its rows are means over
their windows."""

import sys

import pytest

import coulomb
from conftest import REPOSITORY

sys.path.insert(0, str(REPOSITORY / "bench"))
import collapse_phases  # noqa: E402

BODIES, DURATION = 20, 0.4


def test_the_stepped_run_is_the_scenes_own_run():
    stats, bottom, total = collapse_phases.run_steps(BODIES, DURATION, None)
    sim = coulomb.Simulation.from_builtin("clutter", bodies=BODIES, walls=False)
    summary = sim.run(DURATION, record=False).summary
    assert len(stats) == summary["steps"]
    assert sum(s.iterations for s in stats) / len(stats) == pytest.approx(
        summary["iterations_mean"], rel=1e-12)
    assert max(s.num_contacts for s in stats) == summary["contacts_max"]
    assert total == BODIES
    heights = [sim.body_position(name)[2] for name in sim.body_names]
    assert bottom == sum(h < collapse_phases.BOTTOM_LAYER_HEIGHT for h in heights)


def test_rows_are_means_over_their_windows():
    stats, _, _ = collapse_phases.run_steps(BODIES, DURATION, 0.0)
    rows = [collapse_phases.window_row(stats[i:i + 10]) for i in range(0, len(stats), 10)]
    iterations = [s.iterations for s in stats]
    assert sum(row[0] for row in rows) / len(rows) == pytest.approx(
        sum(iterations) / len(iterations))
    assert [row[4] for row in rows] == pytest.approx(
        [sum(s.working_set_rounds for s in stats[i:i + 10]) / 10
         for i in range(0, len(stats), 10)])
    for row, start in zip(rows, range(0, len(stats), 10)):
        window = stats[start:start + 10]
        solve = sum(s.solve_time_s for s in window)
        assert row[2] == pytest.approx(1e6 * solve / sum(s.iterations for s in window))
