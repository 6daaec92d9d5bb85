"""bench/peers/stiff_sweep.py (`make bench-stiff-peers`): its table and its
reading say which engine failed where, and leave out what a failed run
cannot measure. (The runs themselves need Drake's own Python: the target.)"""

import sys

import pytest

from conftest import REPOSITORY

pytest.importorskip("mujoco")  # run_peers, which the sweep reuses, needs it
pytest.importorskip("matplotlib")
sys.path.insert(0, str(REPOSITORY / "bench" / "peers"))
import run_peers  # noqa: E402
import stiff_sweep  # noqa: E402


def ran(ms):
    return dict(failed_at=None, ms=ms, iterations=4.0, error=9e-7, penetration_end=1e-4)


def failed(at):
    return dict(failed_at=at, penetration_end=1.0)  # not a run's end: never read


def sweep_rows():
    rows = []
    for model in stiff_sweep.MODELS:
        for k in (1e6, 1e9, 1e12):
            drake = failed(0.2) if model == "similar" and k >= 1e9 else ran(3.0)
            rows.append(dict(model=model, stiffness=k, duration=10.0, coulomb=ran(0.3),
                             drake=drake))
    return rows


def test_the_reading_names_where_each_engine_fails():
    text = stiff_sweep.reading(sweep_rows())
    assert "Lagged: Coulomb runs it through at every stiffness, its bodies" in text
    assert "Drake 1.58 fails at 2 of 3 stiffnesses, from 1e+09 N/m on, its bodies" in text
    assert text.count("Coulomb runs it through at every stiffness") == 2
    # The overlap at the end, of the runs that got through only (0.1 mm here).
    assert text.count("overlapping by at most 0.10 mm") == 4


def test_a_failed_run_keeps_its_failure_time_and_no_time_per_step():
    rows = sweep_rows()
    similar_stiff = next(r for r in rows if r["model"] == "similar" and r["stiffness"] == 1e12)
    line = run_peers.format_irr_row(similar_stiff)
    cells = [cell.strip() for cell in line.strip("|").split("|")]
    assert cells[2] == "ran 10 s" and cells[3] == "failed at t = 0.20 s"
    assert cells[4] == "0.300" and cells[5] == "—" and cells[6] == "—"
    lagged = run_peers.format_irr_row(rows[0]).strip("|").split("|")
    assert float(lagged[6]) == pytest.approx(10.0)  # Drake / Coulomb: 3.0 / 0.3


def test_the_sweep_spans_soft_to_rigid():
    assert stiff_sweep.STIFFNESSES[0] == 1e5 and stiff_sweep.STIFFNESSES[-1] == 1e14
    assert len(stiff_sweep.STIFFNESSES) == 10 and stiff_sweep.DURATION == 10.0


def test_the_page_is_its_template_with_every_field_filled(tmp_path, monkeypatch):
    monkeypatch.setattr(run_peers, "DOCS", str(tmp_path))
    (tmp_path / "page.md.in").write_text("Run of @DATE@ on @MACHINE@.\n\n@READING@\n@TABLE@\n")
    run_peers.write_page("page.md", "drake 1.58.0", dict(TABLE="| a |", READING="Read."))
    text = (tmp_path / "page.md").read_text()
    assert "@" not in text
    assert "drake 1.58.0" in text and "cores, Python" in text
    assert text.endswith("Read.\n| a |\n")
