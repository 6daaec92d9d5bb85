"""Physics through the Python API, against closed forms and the CLI."""

import base64
import concurrent.futures
import json
import math
import multiprocessing
import pickle
import re
import shutil
import inspect
import threading
import warnings
import urllib.error
import urllib.request
import subprocess
from copy import deepcopy

import numpy as np
import pytest

import coulomb

G = 9.81


def sliding_box(v0=1.0, mu=0.5, dt=1e-3, duration=0.3):
    return {
        "time_step": dt,
        "duration": duration,
        "contact": {"friction": mu},
        "bodies": [
            {"name": "ground", "shape": {"halfspace": {}}, "fixed": True},
            {"name": "box", "shape": {"box": {"size": [0.2, 0.2, 0.1]}}, "mass": 1.0,
             "pose": {"position": [0, 0, 0.05]}, "velocity": {"linear": [v0, 0, 0]}},
        ],
    }


def test_a_sliding_box_stops_after_the_coulomb_distance():
    sim = coulomb.Simulation.from_dict(sliding_box())
    trajectory = sim.run(0.3)
    expected = 1.0**2 / (2 * 0.5 * G)  # v0² / (2 μ g)
    assert trajectory.positions["box"][-1, 0] == pytest.approx(expected, rel=0.02)
    assert abs(sim.body_velocity("box")[0][0]) < 1e-4  # stopped (SAP's stiction creep)
    assert trajectory.summary["failed_steps"] == 0


def test_reprs_give_the_accuracy_reached():
    # A repr prints e_m as a number with digits (0.000000 for 3e-7 told
    # nothing) and says what a simulation and a trajectory hold.
    sim = coulomb.Simulation.from_builtin("clutter", bodies=8)
    assert repr(sim) == "Simulation('clutter': 8 bodies, t = 0 s, δt = 0.01 s)"
    trajectory = sim.run(0.5)
    stats = sim.step()
    assert 0 < stats.momentum_error < 1e-6
    shown = re.search(r"momentum_error=([^,]+),", repr(stats)).group(1)
    assert float(shown) == pytest.approx(stats.momentum_error, rel=1e-2, abs=0)
    assert repr(trajectory).startswith("Trajectory(51 samples, t = 0 … 0.5 s; 50 steps, ")
    e_m = trajectory.summary["momentum_error_max"]
    assert f"e_m max {e_m:.2e}," in repr(trajectory)


def slope_creep(scenes_dir, **overrides):
    """The sticking box's mean speed down scenes/box_on_slope.yaml from 1 s to 3 s."""
    sim = coulomb.Simulation.from_file(scenes_dir / "box_on_slope.yaml", time_step=0.01,
                                       **overrides)
    sim.run(1.0, record=False)
    start = sim.body_position("sticking").copy()
    sim.run(2.0, record=False)
    return np.linalg.norm(sim.body_position("sticking") - start) / 2.0


def test_stiction_creeps_in_proportion_to_sigma(scenes_dir):
    # A sticking contact slips at v_t = R_t γ_t with R_t = σ w (SAP §V-B):
    # at rest γ_t carries the weight along the slope whatever σ, so the
    # creep scales with σ.
    creep = {sigma: slope_creep(scenes_dir, sigma=sigma) for sigma in (1e-3, 1e-2)}
    assert 0.0 < creep[1e-3] < 1e-4  # it sticks: below 0.1 mm/s
    assert creep[1e-2] / creep[1e-3] == pytest.approx(10.0, rel=0.05)
    for bad in (0.0, -1e-3, float("nan")):
        with pytest.raises(ValueError, match="sigma must be finite and positive.*got"):
            coulomb.Simulation.from_builtin("clutter", bodies=8, sigma=bad)


def test_lookahead_zero_finds_contacts_only_within_the_margin():
    # By default each body is swept δt + τ_d ahead (2 δt in the clutter), so
    # falling bodies meet gaps wider than the 1 mm margin; at lookahead 0
    # every contact is within the margin.
    def widest_gap(**overrides):
        sim = coulomb.Simulation.from_builtin("clutter", bodies=40, walls=False, **overrides)
        widest = 0.0
        for _ in range(60):
            sim.step()
            depth = sim.contacts()["depth"]
            widest = max(widest, float(-depth.min())) if len(depth) else widest
        return widest

    assert widest_gap() > 5e-3
    assert widest_gap(lookahead=0.0) <= 1e-3
    for bad in (-1e-3, float("nan")):
        with pytest.raises(ValueError, match="lookahead must be a finite time"):
            coulomb.Simulation.from_builtin("clutter", bodies=8, lookahead=bad)


def test_run_gives_the_trajectory_of_the_command_line(tmp_path, coulomb_bin, scenes_dir):
    h5py = pytest.importorskip("h5py")
    scene = scenes_dir / "box_on_slope.yaml"
    # σ ten times the default, from both sides (the creep depends on it).
    subprocess.run([coulomb_bin, "run", str(scene), "--sigma", "0.01", "--out", str(tmp_path),
                    "--json"], check=True, capture_output=True)
    sim = coulomb.Simulation.from_file(scene, sigma=0.01)
    summary_cli = json.loads((tmp_path / "stats.json").read_text())
    with h5py.File(tmp_path / "trajectory.h5") as cli:
        duration = summary_cli["sim_time"]
        trajectory = sim.run(duration)
        np.testing.assert_allclose(trajectory.time, cli["/time"][:], rtol=0, atol=1e-12)
        np.testing.assert_allclose(trajectory.q, cli["/q"][:], rtol=0, atol=1e-12)
        np.testing.assert_allclose(trajectory.v, cli["/v"][:], rtol=0, atol=1e-12)
    summary_keys = set(summary_cli) - {"per_step"}
    assert set(trajectory.summary) == summary_keys
    assert trajectory.summary["steps"] == summary_cli["steps"]
    trajectory.save(tmp_path / "python.h5")
    with h5py.File(tmp_path / "python.h5") as saved, \
            h5py.File(tmp_path / "trajectory.h5") as cli:
        np.testing.assert_array_equal(saved["/q"][:], trajectory.q)
        # what the viewer draws, so that `coulomb view` plays a Python run
        np.testing.assert_allclose(saved["/geometry/poses"][:], cli["/geometry/poses"][:],
                                   rtol=0, atol=1e-12)


def terrain_scene(heights, ball_position):
    return {"time_step": 0.01, "bodies": [
        {"name": "terrain", "fixed": True, "pose": {"position": [0, 0, 0.1]},
         "shape": {"heightfield": {"size": [3, 2], "base": 0.2, "heights": heights}}},
        {"name": "ball", "shape": {"sphere": {"radius": 0.1}}, "mass": 1,
         "pose": {"position": ball_position}}]}


def test_a_ball_rests_on_a_scene_heightfield_at_its_height():
    # Rows from −y, columns from −x: a 0.5 m plateau over the cell x < −0.5,
    # y > 0 of a 3 × 2 m grid of 4 × 3 points, at z = 0.1 + 0.5.
    heights = [[0, 0, 0, 0], [0.5, 0.5, 0, 0], [0.5, 0.5, 0, 0]]
    for (x, y), top in [((-1.0, 0.5), 0.5), ((1.0, -0.5), 0.0)]:
        sim = coulomb.Simulation.from_dict(terrain_scene(heights, [x, y, 1.0]))
        trajectory = sim.run(1.5)
        np.testing.assert_allclose(sim.body_position("ball"), [x, y, 0.1 + top + 0.1],
                                   atol=2e-3)
        assert trajectory.summary["momentum_error_max"] < 1e-6


@pytest.mark.parametrize("heights, message", [
    ([[0, 0], [0, 0, 0]], r"heights\[1\]: expected 2 heights, as the first row"),
    ([[0, 0]], "expected a list of at least 2 rows of heights"),
    ([[0, 0], [0, "x"]], r"heights\[1\]\[1\]: expected a number"),
    ([[0, 0], [0, -1]], "a height must be finite and above the base"),
])
def test_a_bad_scene_heightfield_is_refused_naming_the_key(heights, message):
    with pytest.raises(ValueError, match=r"bodies\[0\]\.shape\.heightfield.*" + message):
        coulomb.Simulation.from_dict(terrain_scene(heights, [0, 0, 1]))


def exported_frames(page):
    """What an exported viewer page (`coulomb view DIR --export`) draws, decoded
    independently of the page's script (chunk format: viewer/src/data.js): its
    meta data, every geometry's pose per frame (frames × geometries × 7, float32,
    a fixed one at its first pose) and the contact rows (float32, 10 each)."""
    text = page.read_text()
    meta = json.loads(re.search(r'id="coulomb-meta">(.*?)</script>', text, re.S).group(1))
    first = np.array(meta["first_poses"], dtype=np.float32)
    poses, contacts = [], []
    for encoded in re.findall(r'id="coulomb-chunk-\d+">(.*?)</script>', text, re.S):
        data = base64.b64decode(encoded)
        _, count, moving, rows = np.frombuffer(data, "<u4", 4)
        assert moving == len(meta["moving"])
        offset = 16
        frames = np.tile(first, (count, 1, 1))
        frames[:, meta["moving"]] = np.frombuffer(
            data, "<f4", count * moving * 7, offset).reshape(count, moving, 7)
        offset += 4 * (count * moving * 7 + count + 1)
        poses.append(frames)
        contacts.append(np.frombuffer(data, "<f4", rows * 10, offset))
        assert len(data) == offset + 40 * rows
    return meta, np.concatenate(poses), np.concatenate(contacts)


def test_fixed_geometry_is_recorded_and_exported_once_and_drawn_as_if_per_sample(
        tmp_path, coulomb_bin):
    # The walled clutter: its ground and walls are the world's and never
    # move. They are written once (/geometry/first_poses), the boxes per
    # sample (/geometry/moving). Rewriting the file with every geometry per
    # sample (the layout before) must give the viewer the very same run; the
    # exported page carries the fixed poses once too, so it is smaller.
    h5py = pytest.importorskip("h5py")
    runs = {name: tmp_path / name / "run" for name in ("compact", "per_sample")}
    subprocess.run([coulomb_bin, "run", "clutter", "--set", "bodies=4", "--duration", "0.3",
                    "--out", runs["compact"]], check=True, capture_output=True)
    shutil.copytree(runs["compact"], runs["per_sample"])  # the same run's files
    with h5py.File(runs["per_sample"] / "trajectory.h5", "r+") as file:
        bodies = file["geometry/body"][:].astype(str)
        moving = file["geometry/moving"][:]
        assert list(moving) == [g for g, body in enumerate(bodies) if body != "world"]
        assert 0 < len(moving) < len(bodies)
        first = file["geometry/first_poses"][:]
        poses = np.tile(first.reshape(-1), (file["time"].shape[0], 1))
        for k, g in enumerate(moving):
            poses[:, 7 * g:7 * g + 7] = file["geometry/poses"][:, 7 * k:7 * k + 7]
        for dataset in ("geometry/poses", "geometry/moving", "geometry/first_poses"):
            del file[dataset]
        file["geometry/poses"] = poses
    pages = {}
    for name, run in runs.items():
        subprocess.run([coulomb_bin, "view", "run", "--export", "page.html"],
                       cwd=run.parent, check=True, capture_output=True)
        pages[name] = run.parent / "page.html"
    compact, per_sample = exported_frames(pages["compact"]), exported_frames(pages["per_sample"])
    assert compact[0]["moving"] == list(moving)
    assert per_sample[0]["moving"] == list(range(len(bodies)))
    assert compact[1].shape == (per_sample[0]["frames"], len(bodies), 7)
    assert np.array_equal(compact[1], per_sample[1])
    assert np.array_equal(compact[2], per_sample[2]) and len(compact[2]) > 0
    fixed_bytes = 28 * (len(bodies) - len(moving)) * compact[0]["frames"]
    assert pages["per_sample"].stat().st_size - pages["compact"].stat().st_size > fixed_bytes


def test_step_stats_are_the_per_step_records_of_the_command_line(tmp_path, coulomb_bin):
    # Falling columns: speculative contacts, islands and working-set rounds.
    subprocess.run([coulomb_bin, "run", "clutter", "--set", "bodies=20", "--set", "walls=false",
                    "--duration", "0.6", "--out", str(tmp_path)],
                   check=True, capture_output=True)
    per_step = json.loads((tmp_path / "stats.json").read_text())["per_step"]
    sim = coulomb.Simulation.from_builtin("clutter", bodies=20, walls=False)
    fields = ["iterations", "line_search_iterations", "islands", "working_set_rounds",
              "tree_iterations", "contact_solves"]
    for record in per_step:
        stats = sim.step()
        assert [getattr(stats, f) for f in fields] == [record[f] for f in fields]
        split = stats.geometry_time_s + stats.assembly_time_s + stats.solve_time_s
        assert 0 < split <= stats.wall_time_s
    assert any(record["working_set_rounds"] > 0 for record in per_step)
    assert max(record["islands"] for record in per_step) > 1


def test_a_run_not_recorded_ends_where_a_recorded_one_does():
    recorded, unrecorded = (coulomb.Simulation.from_dict(sliding_box()) for _ in range(2))
    kept = recorded.run(0.2)
    samples_before = unrecorded._engine.num_samples
    bare = unrecorded.run(0.2, record=False)
    # the same steps (stepping does not depend on recording) ...
    np.testing.assert_array_equal(unrecorded.q, recorded.q)
    np.testing.assert_array_equal(unrecorded.v, recorded.v)
    assert bare.summary["steps"] == kept.summary["steps"] == 200
    assert bare.summary["iterations_mean"] == kept.summary["iterations_mean"]
    # ... but no samples of them: empty arrays of the state's width
    assert bare.q.shape == (0, kept.q.shape[1]) and bare.time.shape == (0,)
    assert bare.positions["box"].shape == (0, 3)
    # recording is back on: the state the run ended in, then the next step
    assert unrecorded.recording
    assert unrecorded._engine.num_samples == samples_before + 1
    assert unrecorded.run(0.01).time[0] == pytest.approx(0.2)


def test_recording_off_keeps_no_samples_and_back_on_records_the_state_first():
    sim = coulomb.Simulation.from_dict(sliding_box())
    sim.recording = False
    for _ in range(50):
        sim.step()
    assert sim._engine.num_samples == 1  # the initial state only
    assert sim.run(0.01).time.shape == (0,)  # run() follows the switch
    sim.recording = True
    assert sim._engine.num_samples == 2
    sim.recording = False
    sim.recording = True  # the state is recorded already: no second sample of it
    assert sim._engine.num_samples == 2
    sim.recording = False
    sim.set_state(sim.q, sim.v, time=sim.time)  # a state set: recorded on resuming
    sim.recording = True
    assert sim._engine.num_samples == 3
    trajectory = sim.run(0.01)
    assert trajectory.time[0] == pytest.approx(0.06)
    assert len(trajectory.time) == 11
    assert np.all(np.diff(sim.run(0.01).time) > 0)


def test_a_run_after_set_state_starts_from_the_state_set():
    sim = coulomb.Simulation.from_builtin("clutter", bodies=4)
    sim.run(0.02)
    q = sim.q
    q[2] += 0.5  # the first body half a metre up, at rest, at t = 5 s
    sim.set_state(q, np.zeros_like(sim.v), time=5.0)
    trajectory = sim.run(0.02)
    np.testing.assert_allclose(trajectory.time, [5.0, 5.01, 5.02], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(trajectory.q[0], q)
    np.testing.assert_array_equal(trajectory.v[0], np.zeros_like(sim.v))
    np.testing.assert_array_equal(trajectory.q[-1], sim.q)


def test_a_resting_sphere_carries_its_weight_at_the_near_rigid_depth():
    m, r, dt = 2.0, 0.1, 0.01
    sim = coulomb.Simulation.from_dict({
        "time_step": dt,
        "bodies": [
            {"name": "ground", "shape": {"halfspace": {}}, "fixed": True},
            {"name": "ball", "shape": {"sphere": {"radius": r}}, "mass": m,
             "pose": {"position": [0, 0, r]}},
        ],
    })
    for _ in range(100):
        sim.step()
    contacts = sim.contacts()
    assert len(contacts["depth"]) == 1
    np.testing.assert_allclose(contacts["normal"][0], [0, 0, 1], atol=1e-12)
    assert contacts["body_a"] == ["ground"] or contacts["body_a"] == ["world"]
    assert contacts["impulse"][0][2] == pytest.approx(m * G * dt, rel=1e-6)
    # SAP's near-rigid regime (SAP §V): γ_n = v̂/R_n with v̂ = φ/(δt + τ_d),
    # R_n = w/(4π²), τ_d = δt/π and w = ‖W‖_F/3 for the point below a solid
    # sphere: W = diag(3.5, 3.5, 1)/m (1/m + r²/(2/5 m r²) tangentially).
    w = math.sqrt(3.5**2 + 3.5**2 + 1) / m / 3
    depth = m * G * dt * (w / (4 * math.pi**2)) * (dt + dt / math.pi)
    assert contacts["depth"][0] == pytest.approx(depth, rel=1e-3)


def test_a_scene_files_ellipsoid_rests_on_its_shortest_semi_axis():
    # The solid x²/a² + y²/b² + z²/c² ≤ 1 with c the shortest, upright: it
    # rests with its centre at c, and weighs its mass (ρ 4/3 π a b c).
    a, b, c, density = 0.2, 0.1, 0.05, 500.0
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.01,
        "bodies": [
            {"name": "ground", "shape": {"halfspace": {}}, "fixed": True},
            {"name": "egg", "shape": {"ellipsoid": {"semi_axes": [a, b, c]}},
             "density": density, "pose": {"position": [0, 0, c + 0.01]}},
        ],
    })
    sim.run(1.0)
    assert sim.body_position("egg")[2] == pytest.approx(c, abs=1e-4)
    mass = density * 4 / 3 * math.pi * a * b * c
    assert sim.contacts()["impulse"][0][2] == pytest.approx(mass * G * 0.01, rel=1e-6)
    with pytest.raises(ValueError, match=r"bodies\[0\]\.shape\.ellipsoid\.semi_axes: "
                                         "must be positive"):
        coulomb.Simulation.from_dict({"bodies": [
            {"name": "b", "shape": {"ellipsoid": {"semi_axes": [0.1, 0, 0.2]}}, "mass": 1}]})


def ball_over_ground(dt=0.01, height=0.2, speed=0.0):
    return {"time_step": dt, "bodies": [
        {"name": "ground", "shape": {"halfspace": {}}, "fixed": True},
        {"name": "ball", "shape": {"sphere": {"radius": 0.1}}, "mass": 1.0,
         "pose": {"position": [0, 0, height]}, "velocity": {"linear": [0, 0, -speed]}},
    ]}


def start_warnings(scene):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = coulomb.Simulation.from_dict(scene)
    issued = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert issued == sim.warnings
    return sim.warnings


def test_a_dangerous_start_is_warned_of_as_the_command_line_does():
    assert start_warnings(ball_over_ground()) == []
    # A fall of ½ g δt² = 0.123 m in one step of 0.158 s passes the radius
    # 0.1 m; the δt that keeps it within is √(2 r / g) = 0.143 s.
    fall = start_warnings(ball_over_ground(dt=0.158))
    assert len(fall) == 1
    assert re.search(r"falls 0\.122 m in one step of 0\.158 s.*0\.1 m.*δt ≤ 0\.14 s", fall[0])
    assert re.search(r"starts at 20 m/s and moves 0\.2 m",
                     start_warnings(ball_over_ground(speed=20))[0])
    overlap = start_warnings(ball_over_ground(height=0.095))
    assert len(overlap) == 1
    assert re.search(r"1 contact points overlap by more than 1 mm at the start "
                     r"\(deepest: (ground|world) and ball, 5 mm\)", overlap[0])
    assert start_warnings(ball_over_ground(height=0.0995)) == []  # 0.5 mm is allowed


def test_a_run_whose_bodies_pass_through_each_other_is_warned_of():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a run of a sound scene warns of nothing
        coulomb.Simulation.from_dict(ball_over_ground()).run(0.5)
    with pytest.warns(UserWarning, match="contacts may be missed"):
        sim = coulomb.Simulation.from_builtin("clutter", bodies=4, time_step=10)
    with pytest.warns(UserWarning) as caught:
        trajectory = sim.run(20)
    sunk = trajectory.summary["penetration_max"]
    assert sunk > 100  # 10 s steps: the bodies fall through the floor
    [warning] = [str(w.message) for w in caught]
    assert re.search(rf"bodies sank {sunk:.3g} m into each other, deeper than the largest "
                     r"body's radius \(0\.\d+ m\): they passed through each other", warning)


def run_warnings(scene, duration):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = coulomb.Simulation.from_dict(scene)
        start = len(caught)
        trajectory = sim.run(duration)
    return trajectory, [str(w.message) for w in caught[start:]]


def test_a_run_that_sinks_at_a_shortened_lookahead_names_the_default_one():
    # The ball (r = 0.1 m) 20 mm above the ground at 20 m/s covers 0.2 m in a
    # step: found only within the 1 mm margin (look-ahead 0), its contact
    # comes once it is 0.18 m deep; the default look-ahead finds it a step
    # ahead and SAP stops it at the ground.
    fast = ball_over_ground(height=0.12, speed=20)
    trajectory, issued = run_warnings(fast, 0.05)
    assert trajectory.summary["penetration_max"] < 0.01
    assert not any("passed through" in w for w in issued)
    trajectory, issued = run_warnings(dict(fast, contact={"lookahead": 0.0}), 0.05)
    sunk = trajectory.summary["penetration_max"]
    assert sunk > 0.1
    [warning] = [w for w in issued if "passed through" in w]
    found = re.search(r"and so may the default look-ahead of (\S+) s \(contact\.lookahead, "
                      r"--lookahead; 0 s here", warning)
    assert found and float(found.group(1)) >= fast["time_step"]
    # At the default look-ahead the warning does not name it: a step of 10 s
    # drops the ball through the ground whatever the look-ahead.
    _, issued = run_warnings(ball_over_ground(dt=10.0), 20)
    [warning] = [w for w in issued if "passed through" in w]
    assert "look-ahead" not in warning


@pytest.mark.parametrize("duration, says", [
    (1e308, "duration: 1e+308 s is more than 2147483647 steps of 0.01 s, the most a run can take"),
    (1e-9, "duration: 1e-09 s is shorter than half the time step (0.01 s)"),
])
def test_a_run_of_no_step_or_of_more_steps_than_an_int_counts_is_refused(duration, says):
    sim = coulomb.Simulation.from_builtin("clutter", bodies=8)
    with pytest.raises(ValueError, match=re.escape(says)):
        sim.run(duration)
    assert sim.time == 0.0


def test_a_step_whose_cost_overflows_fails_saying_so_and_how_to_fix_it():
    # σ = 1e308 makes R_t = σ w overflow once bodies touch: SAP's cost is not
    # finite, the step fails, and the error says what overflow means.
    sim = coulomb.Simulation.from_builtin("clutter", bodies=8, sigma=1e308)
    with pytest.raises(coulomb.SolverError, match=r"sap not_finite after 0 iterations .*: "
                       r"its cost overflowed, .*\(a stiffness, sigma, mass or speed\)") as error:
        sim.run(1.0)
    assert error.value.statistics.converged is False
    assert 0.0 < sim.time < 1.0


def test_steps_that_redo_the_symbolic_factorization_are_flagged_and_counted():
    # The landing clutter's contact graph changes while bodies land and stays
    # put once they rest: SAP redoes its symbolic analysis on some steps, not
    # all, and a run's summary counts the steps that step() flags.
    flagged = coulomb.Simulation.from_builtin("clutter", bodies=8)
    steps = [flagged.step() for _ in range(200)]
    count = sum(s.symbolic_analysis for s in steps)
    assert 1 < count < len(steps) / 2
    summary = coulomb.Simulation.from_builtin("clutter", bodies=8).run(2.0).summary
    assert summary["steps"] == 200 and summary["symbolic_analysis_steps"] == count


def test_ncp_steps_accepted_at_the_budget_are_flagged_and_warned_of():
    # CANAL with 2 outer iterations per step leaves the landing clutter
    # unsolved: a step is flagged exactly when it used the whole budget and
    # its residual is above the tolerance; a run counts them and warns.
    sim = coulomb.Simulation.from_builtin("clutter", bodies=8, solver="canal",
                                          max_iterations=2)
    steps = [sim.step() for _ in range(30)]
    flagged = [s.ended_at_budget for s in steps]
    assert sum(flagged) > 10
    assert all(s.iterations == 2 and s.ncp_residual > 1e-8
               for s, f in zip(steps, flagged) if f)
    assert all(s.ncp_residual <= 1e-8 for s, f in zip(steps, flagged) if not f)
    with pytest.warns(UserWarning) as caught:
        trajectory = sim.run(0.3)
    count = trajectory.summary["budget_ended_steps"]
    assert count > 0
    [warning] = [str(w.message) for w in caught]
    assert warning.startswith(f"{count} of 30 steps ended canal's budget of 2 iterations")
    # SAP has no budget: the same scene runs without the warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary = coulomb.Simulation.from_builtin("clutter", bodies=8).run(0.3).summary
    assert summary["budget_ended_steps"] == 0
    with pytest.raises(ValueError, match="max_iterations must be positive"):
        coulomb.Simulation.from_builtin("clutter", bodies=8, max_iterations=0)


def fclib_matrix(group):
    """An FCLIB triplet matrix (i = row, p = column) as a dense array."""
    matrix = np.zeros((int(group["m"][0]), int(group["n"][0])))
    np.add.at(matrix, (group["i"][:], group["p"][:]), group["x"][:])
    return matrix


def test_a_steps_fclib_export_carries_the_boxs_weight_and_coulombs_law(tmp_path, coulomb_bin):
    # The box slides at 1 m/s on the ground (μ = 0.5). The first step's rigid
    # NCP, written as FCLIB and solved by `coulomb solve`, must hold its mass
    # and inertia (m = 1 kg, box 0.2 × 0.2 × 0.1 m: I = m (b² + c²)/12), the
    # free-motion momentum f = M v*, and at its solution slide every contact
    # at |r_t| = μ r_n while the normal impulses carry the weight m g δt
    # (SAP's own step kicks the box up instead: its gliding, docs/math.md §3.5).
    h5py = pytest.importorskip("h5py")
    m, mu, dt = 1.0, 0.5, 1e-3
    sim = coulomb.Simulation.from_dict(sliding_box(mu=mu, dt=dt))
    with pytest.raises(ValueError, match="no step yet"):
        sim.export_fclib(tmp_path / "none.hdf5")
    sim.step()
    with pytest.raises(RuntimeError, match=r"missing/step\.hdf5: cannot"):
        sim.export_fclib(tmp_path / "missing" / "step.hdf5")
    assert not (tmp_path / "missing").exists()
    sim.export_fclib(tmp_path / "step.hdf5")
    with h5py.File(tmp_path / "step.hdf5") as file:
        problem = file["fclib_global"]
        mass = fclib_matrix(problem["M"])
        f = problem["vectors/f"][:]
        mus = problem["vectors/mu"][:]
        assert problem["info/title"][()] == b"scene dict"
        # Integers as the collection's files store them (Box_Stacks et al.).
        integers = ["spacedim"] + [f"{matrix}/{key}" for matrix in ("M", "H")
                                   for key in ("m", "n", "nz", "nzmax", "i", "p")]
        assert {str(problem[name].dtype) for name in integers} == {"int32"}
    inertia = [m * (0.2**2 + 0.1**2) / 12] * 2 + [m * (0.2**2 + 0.2**2) / 12]
    np.testing.assert_allclose(sorted(np.diag(mass)), sorted([m] * 3 + inertia), rtol=1e-12)
    assert np.count_nonzero(mass - np.diag(np.diag(mass))) == 0
    np.testing.assert_allclose(mus, mu)
    v_star = np.linalg.solve(mass, f)  # the box sliding, gravity applied for δt
    np.testing.assert_allclose(sorted(v_star), sorted([0, 0, 0, 0, -G * dt, 1]), atol=1e-12)
    out = subprocess.run([coulomb_bin, "solve", tmp_path / "step.hdf5", "--solver", "canal",
                          "--output", tmp_path / "solution.hdf5", "--json"],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["ncp_residual"] <= 1e-9
    with h5py.File(tmp_path / "solution.hdf5") as file:
        r = file["solution/r"][:].reshape(-1, 3)  # [n, t1, t2] per contact
    pushing = r[:, 0] > 1e-9 * r[:, 0].max()
    np.testing.assert_allclose(np.linalg.norm(r[pushing, 1:], axis=1), mu * r[pushing, 0],
                               rtol=1e-6)
    # Touching (φ0 = 0): no position feedback; to the solve's natural-map 1e-9.
    assert r[:, 0].sum() == pytest.approx(m * G * dt, rel=1e-6)


def test_state_round_trips_and_bad_input_changes_nothing():
    sim = coulomb.Simulation.from_builtin("sphere_on_ground")
    q, v = sim.q, sim.v
    q[0] += 0.25
    v[2] = -1.0
    sim.set_state(q, v, time=1.5)
    np.testing.assert_array_equal(sim.q, q)
    np.testing.assert_array_equal(sim.v, v)
    assert sim.time == 1.5
    for bad_q, bad_v in [(q[:-1], v), (q, np.append(v, 0)), (np.full_like(q, np.nan), v),
                         (q, np.full_like(v, np.inf))]:
        with pytest.raises(ValueError):
            sim.set_state(bad_q, bad_v)
        np.testing.assert_array_equal(sim.q, q)
    with pytest.raises(KeyError):
        sim.body_position("no such body")
    for too_short in [0.0, 1e-12, 0.49 * sim.time_step]:  # no step at all: refused
        with pytest.raises(ValueError, match="duration"):
            sim.run(too_short)
        assert sim.time == 1.5
    assert sim.run(0.5 * sim.time_step, record=False).summary["steps"] == 1  # rounds up
    assert sim.time == pytest.approx(1.5 + sim.time_step)
    with pytest.raises(ValueError, match=r"bodies\[0\]\.mass"):
        coulomb.Simulation.from_dict(
            {"bodies": [{"name": "b", "shape": {"sphere": {"radius": 0.1}}, "mass": -1}]})
    with pytest.raises(ValueError, match="unknown key"):
        coulomb.Simulation.from_dict({"bodys": []})
    for not_a_scene, found in [(None, "nothing"), ([1, 2], "a list"), (42, "a single value")]:
        with pytest.raises(ValueError, match=r"the scene: expected a mapping \(keys: bodies, .*"
                           f"got {found}"):
            coulomb.Simulation.from_dict(not_a_scene)
    with pytest.raises(KeyError, match="the scene has no robots"):
        sim.joint_names("arm")
    with pytest.raises(TypeError):
        coulomb.Simulation.from_dict({}, stepsize=0.1)


def test_a_saved_run_is_what_coulomb_view_plays(tmp_path, coulomb_bin):
    sim = coulomb.Simulation.from_builtin("sphere_on_ground")
    q = sim.q
    q[2] += 0.1
    sim.set_state(q, sim.v)  # a start of the script's own: a second sample at t = 0
    sim.run(0.5)
    sim.save(tmp_path / "run")
    stats = json.loads((tmp_path / "run" / "stats.json").read_text())
    assert stats["steps"] == len(stats["per_step"]) == 50
    export = subprocess.run([coulomb_bin, "view", str(tmp_path / "run"), "--export",
                             str(tmp_path / "replay.html")], capture_output=True, text=True)
    assert export.returncode == 0, export.stderr
    page = (tmp_path / "replay.html").read_text()
    assert 'id="coulomb-chunk-0"' in page
    meta = json.loads(re.search(r'<script[^>]*id="coulomb-meta"[^>]*>(.*?)</script>', page,
                                re.S).group(1))
    assert meta["frames"] == 52 and meta["time"][:2] == [0, 0]
    assert meta["time_step"] == pytest.approx(sim.time_step)  # the page's forces: γ / δt


def exported_meta(coulomb_bin, run, tmp_path):
    """The replay page's metadata for the run directory, or the one-line error."""
    export = subprocess.run([coulomb_bin, "view", str(run), "--export",
                             str(tmp_path / "replay.html")], capture_output=True, text=True)
    if export.returncode != 0:
        return export.stderr.strip()
    page = (tmp_path / "replay.html").read_text()
    return json.loads(re.search(r'<script[^>]*id="coulomb-meta"[^>]*>(.*?)</script>', page,
                                re.S).group(1))


def test_a_replay_takes_its_time_step_from_the_file(tmp_path, coulomb_bin):
    # The file says δt; the replay reads it (a changed value shows), and
    # infers it from the samples only in a file without it.
    h5py = pytest.importorskip("h5py")
    sim = coulomb.Simulation.from_builtin("sphere_on_ground")
    sim.run(0.2)
    sim.save(tmp_path / "run")
    path = tmp_path / "run" / "trajectory.h5"
    with h5py.File(path, "r") as f:
        assert f["/time_step"][:].tolist() == [sim.time_step]
    for stored, expected in [(4 * sim.time_step, 4 * sim.time_step), (None, sim.time_step)]:
        with h5py.File(path, "a") as f:
            del f["/time_step"]
            if stored is not None:
                f["/time_step"] = [stored]
        assert exported_meta(coulomb_bin, tmp_path / "run", tmp_path)["time_step"] == \
            pytest.approx(expected)
    with h5py.File(path, "a") as f:
        f["/time_step"] = [0.0]
    error = exported_meta(coulomb_bin, tmp_path / "run", tmp_path)
    assert re.search(r"trajectory\.h5.*/time_step.*positive", error) and "\n" not in error


def test_a_replay_plots_the_sensors_the_script_recorded(tmp_path, coulomb_bin, scenes_dir):
    # The page's sensor data, read back from trajectory.h5 by `coulomb view`,
    # is the script's own trajectory.sensors; a damaged sensor record is a
    # one-line error naming its dataset; a run without sensors has none.
    h5py = pytest.importorskip("h5py")
    sim = coulomb.Simulation.from_file(str(scenes_dir / "parallel_gripper.xml"), keyframe="open")
    trajectory = sim.run(0.2)
    sim.save(tmp_path / "run")
    [robot] = exported_meta(coulomb_bin, tmp_path / "run", tmp_path)["sensors"]
    sensors = trajectory.sensors["gripper"]
    assert robot["robot"] == "gripper" and robot["names"] == list(sensors)
    assert robot["dimensions"] == [sensors[name].shape[1] for name in sensors] == [1, 1, 3]
    readings = np.array(robot["readings"]).reshape(len(trajectory.time), 5)
    np.testing.assert_array_equal(readings, np.hstack(list(sensors.values())))
    path = tmp_path / "run" / "trajectory.h5"
    for dataset, value, complaint in [("columns", [0, 1, 2, 6], r"readings.*expected \d+ × 6"),
                                      ("columns", [0, 1, 1, 5], "increasing"),
                                      ("columns", [1, 2, 3, 6], "0 and one offset per sensor")]:
        with h5py.File(path, "a") as f:
            kept = f["/sensors/gripper/columns"][:]
            del f["/sensors/gripper/columns"]
            f["/sensors/gripper/columns"] = value
        error = exported_meta(coulomb_bin, tmp_path / "run", tmp_path)
        assert re.search(r"trajectory\.h5.*/sensors/gripper/.*" + complaint, error), error
        assert "\n" not in error
        with h5py.File(path, "a") as f:
            del f["/sensors/gripper/columns"]
            f["/sensors/gripper/columns"] = kept
    with h5py.File(path, "a") as f:
        del f["/sensors"]
    assert exported_meta(coulomb_bin, tmp_path / "run", tmp_path)["sensors"] == []


def test_state_reads_follow_the_steps_and_are_copies():
    sim = coulomb.Simulation.from_builtin("sphere_on_ground")
    q0 = sim.q
    q0_kept = q0.copy()
    sim.set_state(q0, np.array([0.0, 0.0, -2.0, 0.0, 0.0, 0.0]))
    sim.step()
    np.testing.assert_array_equal(q0, q0_kept)  # an earlier read is not a view
    np.testing.assert_array_equal(sim.q[0:3], sim.body_position("ball"))
    assert sim.q[2] < q0[2] and sim.v[2] < 0.0
    np.testing.assert_array_equal(sim.v[0:3], sim.body_velocity("ball")[0])


def test_a_failed_step_raises_with_its_statistics_and_keeps_the_state():
    # A tolerance below round-off: SAP cannot certify the first contact step.
    sim = coulomb.Simulation.from_builtin("sphere_on_ground", rel_tol=1e-300)
    with pytest.raises(coulomb.SolverError) as error:
        for _ in range(200):
            before = (sim.q, sim.v, sim.time)
            sim.step()
    assert not error.value.statistics.converged
    np.testing.assert_array_equal(sim.q, before[0])
    assert sim.time == before[2]


PENDULUM = """<robot name="pendulum">
  <link name="base"/>
  <link name="bob">
    <inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="bob"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="100" velocity="10"/></joint>
</robot>"""


def pendulum(tmp_path, controllers=None):
    urdf = tmp_path / "pendulum.urdf"
    urdf.write_text(PENDULUM)
    robot = {"name": "pendulum", "urdf": str(urdf), "base": "fixed",
             "pose": {"position": [0, 0, 1]}}
    if controllers:
        robot["controllers"] = controllers
    ground = {"name": "ground", "shape": {"halfspace": {}}, "fixed": True,
              "pose": {"position": [0, 0, -5]}}
    return coulomb.Simulation.from_dict(
        {"time_step": 0.01, "bodies": [ground], "robots": [robot]})


def pd_balance(kp, m, l, target):
    """The angle where the PD law kp (target − q) balances gravity's torque
    m g l sin q on the pendulum (Newton's method)."""
    q = target
    for _ in range(50):
        q -= (kp * (target - q) - m * G * l * math.sin(q)) / (-kp - m * G * l * math.cos(q))
    return q


def test_pd_targets_hold_a_robot_where_the_pd_law_says(tmp_path):
    # Static balance of the PD law against gravity about the hinge (y axis;
    # the bob 0.5 m below it at q = 0): kp (q_d − q) = m g l sin q.
    kp, m, l, target = 200.0, 2.0, 0.5, 1.0
    sim = pendulum(tmp_path, {"hinge": {"kp": kp, "kd": 20.0, "target": 0.0}})
    assert sim.robot_names == ["pendulum"]
    np.testing.assert_array_equal(sim.joint_efforts("pendulum"), [0.0])  # no step yet
    sim.set_pd_targets("pendulum", [target])
    sim.run(5.0)
    q = sim.q[0]
    assert q == pytest.approx(pd_balance(kp, m, l, target), abs=1e-6)
    # The effort applied is what holds the bob against gravity, and what the
    # PD law gives at the step's end (at rest: no damping term).
    assert sim.joint_efforts("pendulum")[0] == pytest.approx(m * G * l * math.sin(q), rel=1e-6)
    assert sim.joint_efforts("pendulum")[0] == pytest.approx(kp * (target - q), rel=1e-6)
    with pytest.raises(ValueError):
        sim.set_pd_targets("pendulum", [0.0, 1.0])
    with pytest.raises(KeyError):
        sim.set_pd_targets("nobody", [0.0])


def test_pd_gains_set_from_python_act_as_the_scenes(tmp_path):
    # The pendulum of the test above, its controller's gains set in Python:
    # the same static balance kp (q_d − q) = m g l sin q.
    kp, m, l, target = 200.0, 2.0, 0.5, 1.0
    sim = pendulum(tmp_path)
    with pytest.raises(ValueError, match="without PD gains"):
        sim.set_pd_targets("pendulum", [target])
    for bad in [dict(kp=-1.0, kd=20.0), dict(kp=[200.0, 1.0], kd=20.0),
                dict(kp=200.0, kd=math.nan), dict(kp=200.0, kd=20.0, effort_limit=0.0)]:
        with pytest.raises(ValueError):
            sim.set_pd_gains("pendulum", **bad)
        with pytest.raises(ValueError, match="without PD gains"):  # refused: nothing set
            sim.set_pd_targets("pendulum", [target])
    sim.set_pd_gains("pendulum", kp, [20.0])
    sim.set_pd_targets("pendulum", [target])
    sim.run(5.0)
    assert sim.q[0] == pytest.approx(pd_balance(kp, m, l, target), abs=1e-6)
    with pytest.raises(KeyError):
        sim.set_pd_gains("nobody", kp, 20.0)


def test_an_effort_limit_holds_the_pendulum_where_gravity_meets_it(tmp_path):
    # Saturated at u_max, the controller balances gravity where
    # m g l sin q = u_max, far from its target: started there at rest, the
    # pendulum stays (without the limit kp (q_d − q) would swing it up).
    m, l, u_max = 2.0, 0.5, 3.0
    q_star = math.asin(u_max / (m * G * l))
    sim = pendulum(tmp_path)
    sim.set_state(np.array([q_star]), np.zeros(1))
    sim.set_pd_gains("pendulum", kp=1000.0, kd=20.0, effort_limit=u_max)
    sim.set_pd_targets("pendulum", [1.0])
    sim.run(1.0)
    assert sim.q[0] == pytest.approx(q_star, abs=1e-9)
    assert sim.joint_efforts("pendulum")[0] == pytest.approx(u_max, rel=1e-12)  # saturated
    sim.set_pd_gains("pendulum", kp=1000.0, kd=20.0)  # no limit: up to the target
    sim.run(2.0)
    assert sim.q[0] > 0.9


def test_joint_state_is_where_the_links_are(tmp_path):
    # A free ball comes before the pendulum in the state, so the hinge's
    # entries are not the first. The hinge turns the bob about y: its angle
    # and rate are the bob's orientation and angular velocity about y.
    urdf = tmp_path / "pendulum.urdf"
    urdf.write_text(PENDULUM)
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.01,
        "bodies": [{"name": "ball", "shape": {"sphere": {"radius": 0.1}}, "mass": 1,
                    "pose": {"position": [3, 0, 1]}}],
        "robots": [{"name": "pendulum", "urdf": str(urdf), "base": "fixed",
                    "pose": {"position": [0, 0, 1]}, "joints": {"hinge": 0.7}}]})
    assert sim.body_names == ["ball", "pendulum"]
    np.testing.assert_array_equal(sim.joint_positions("pendulum"), [0.7])
    np.testing.assert_array_equal(sim.joint_velocities("pendulum"), [0.0])
    sim.run(0.3)
    w, _, y, _ = sim.body_orientation("bob")
    assert sim.joint_positions("pendulum")[0] == pytest.approx(2 * math.atan2(y, w), abs=1e-12)
    assert sim.joint_velocities("pendulum")[0] == pytest.approx(
        sim.body_velocity("bob")[1][1], abs=1e-12)
    assert sim.joint_velocities("pendulum")[0] < 0  # swinging back down
    with pytest.raises(KeyError, match="no robot named 'ball'"):
        sim.joint_positions("ball")


@pytest.mark.parametrize("solver", ["sap", "canal", "subadmm", "pgs"])
def test_every_solver_reports_the_effort_that_holds_the_pendulum(tmp_path, solver):
    (tmp_path / "pendulum.urdf").write_text(PENDULUM)
    kp, m, l, target = 200.0, 2.0, 0.5, 1.0
    sim = coulomb.Simulation.from_dict({"time_step": 0.01, "robots": [{
        "name": "pendulum", "urdf": str(tmp_path / "pendulum.urdf"), "base": "fixed",
        "controllers": {"hinge": {"kp": kp, "kd": 20.0, "target": target}}}]}, solver=solver)
    sim.run(5.0)
    q = sim.q[0]
    assert q == pytest.approx(pd_balance(kp, m, l, target), abs=1e-6)
    assert sim.joint_efforts("pendulum")[0] == pytest.approx(m * G * l * math.sin(q), rel=1e-6)


def test_a_constant_effort_is_the_effort_applied(tmp_path):
    sim = pendulum(tmp_path)
    sim.step()
    np.testing.assert_array_equal(sim.joint_efforts("pendulum"), [0.0])  # none given
    sim.set_joint_efforts("pendulum", [2.5])
    sim.step()
    assert sim.joint_efforts("pendulum")[0] == pytest.approx(2.5, rel=1e-12)


def test_a_robots_efforts_are_checked_whole_before_any_is_set():
    # set_joint_efforts sets all twelve joints in one call: a count other
    # than twelve, or a last value that is not finite, is refused before the
    # first joint's effort changes (the efforts applied at the next step
    # are still the last ones accepted).
    sim = coulomb.Simulation.from_dict({
        "bodies": [{"name": "ground", "shape": {"halfspace": {}}, "fixed": True}],
        "robots": [{"name": "a1", "urdf": "example-robot-data/a1_description/urdf/a1.urdf",
                    "base": "floating", "pose": {"position": [0, 0, 0.5]}}]})
    accepted = np.linspace(-1.0, 1.0, 12)
    sim.set_joint_efforts("a1", accepted)
    sim.step()
    np.testing.assert_allclose(sim.joint_efforts("a1"), accepted, rtol=1e-12)
    with pytest.raises(ValueError, match=r"a1: efforts has 11 values, the robot 12 "
                                         r"joints \(FL_hip_joint, FL_thigh_joint, "):
        sim.set_joint_efforts("a1", np.ones(11))
    with pytest.raises(ValueError, match="a1: efforts for RR_calf_joint must be finite"):
        sim.set_joint_efforts("a1", np.append(np.ones(11), math.nan))
    with pytest.raises(ValueError, match="u: expected a sequence of numbers"):
        sim.set_joint_efforts("a1", np.ones((12, 1)))
    with pytest.raises(KeyError, match="nobody"):
        sim.set_joint_efforts("nobody", np.ones(12))
    sim.step()
    np.testing.assert_allclose(sim.joint_efforts("a1"), accepted, rtol=1e-12)


def test_every_bodys_state_in_one_call_is_each_bodys_and_the_steps(tmp_path):
    # A ball in flight (no ground) beside a fixed pendulum: a row per
    # body_names entry, each the single read's, the pendulum's its base's;
    # the ball's rows follow the symplectic Euler step in free fall,
    # v⁺ = v + g δt and p⁺ = p + δt v⁺.
    (tmp_path / "pendulum.urdf").write_text(PENDULUM)
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.01,
        "bodies": [{"name": "ball", "shape": {"sphere": {"radius": 0.1}}, "mass": 3.0,
                    "pose": {"position": [3, 0, 1], "rpy": [0.3, 0.2, 0.1]},
                    "velocity": {"linear": [1, 2, 3], "angular": [4, -5, 6]}}],
        "robots": [{"name": "pendulum", "urdf": str(tmp_path / "pendulum.urdf"),
                    "base": "fixed", "pose": {"position": [0, 0, 1]},
                    "joints": {"hinge": 0.7}}]})
    before, (linear_before, _) = sim.body_positions(), sim.body_velocities()
    sim.step()
    positions, orientations = sim.body_positions(), sim.body_orientations()
    linear, angular = sim.body_velocities()
    assert sim.body_names == ["ball", "pendulum"]
    assert positions.shape == linear.shape == angular.shape == (2, 3)
    assert orientations.shape == (2, 4)
    for k, name in enumerate(sim.body_names):
        np.testing.assert_array_equal(positions[k], sim.body_position(name))
        np.testing.assert_array_equal(orientations[k], sim.body_orientation(name))
        np.testing.assert_array_equal(linear[k], sim.body_velocity(name)[0])
        np.testing.assert_array_equal(angular[k], sim.body_velocity(name)[1])
    np.testing.assert_allclose(positions[1], [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(linear[0], linear_before[0] + [0, 0, -G * 0.01], rtol=1e-12)
    np.testing.assert_allclose(positions[0], before[0] + 0.01 * linear[0], rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(orientations, axis=1), 1.0, rtol=1e-12)


def test_mass_matrix_and_point_jacobian_are_the_closed_forms(tmp_path):
    # A spinning ball (v = [ṗ_W, ω_B]) before a pendulum at q = 0.7 whose bob
    # (2 kg, I_yy = 0.1 kg·m² about its centre) hangs 0.5 m below the hinge.
    (tmp_path / "pendulum.urdf").write_text(PENDULUM)
    m, l, q, r = 2.0, 0.5, 0.7, 0.1
    sim = coulomb.Simulation.from_dict({
        "time_step": 0.01,
        "bodies": [{"name": "ball", "shape": {"sphere": {"radius": r}}, "mass": 3.0,
                    "pose": {"position": [3, 0, 1], "rpy": [0.3, 0.2, 0.1]},
                    "velocity": {"linear": [1, 2, 3], "angular": [4, -5, 6]}}],
        "robots": [{"name": "pendulum", "urdf": str(tmp_path / "pendulum.urdf"),
                    "base": "fixed", "pose": {"position": [0, 0, 1]},
                    "joints": {"hinge": q}}]})
    assert sim.velocity_slice("ball") == slice(0, 6)
    assert sim.velocity_slice("pendulum") == slice(6, 7)
    np.testing.assert_allclose(sim.mass_matrix("pendulum"), [[0.1 + m * l**2]], rtol=1e-12)
    np.testing.assert_allclose(sim.mass_matrix("ball"),
                               np.diag([3.0] * 3 + [0.4 * 3.0 * r**2] * 3), rtol=1e-12)
    # The bob's centre at p = (−l sin q, 0, 1 − l cos q): ∂p/∂q.
    centre = [-l * math.sin(q), 0.0, 1.0 - l * math.cos(q)]
    np.testing.assert_allclose(sim.point_jacobian("bob", centre),
                               [[-l * math.cos(q)], [0.0], [l * math.sin(q)]], atol=1e-12)
    # A point of the ball moves at ṗ + ω × (p − c), ω in world.
    point = np.array([3.05, 0.02, 1.07])
    linear, angular = sim.body_velocity("ball")
    velocity = sim.point_jacobian("ball", point) @ sim.v[sim.velocity_slice("ball")]
    np.testing.assert_allclose(velocity, linear + np.cross(angular, point - [3, 0, 1]),
                               atol=1e-12)
    # Held still by τ = h: the bob's weight about the hinge, the ball's weight.
    np.testing.assert_allclose(sim.bias_forces("pendulum"), [m * G * l * math.sin(q)],
                               rtol=1e-12)
    np.testing.assert_allclose(sim.bias_forces("ball")[:3], [0, 0, 3.0 * G], rtol=1e-12)
    with pytest.raises(KeyError):
        sim.mass_matrix("bob")  # a link, not a tree
    with pytest.raises(KeyError):
        sim.point_jacobian("nobody", point)
    with pytest.raises(ValueError, match="finite"):
        sim.point_jacobian("bob", [0, math.nan, 0])


def test_a_floating_robots_model_is_its_links_motion():
    # The A1 on its free base (v = [ṗ_W, ω_B], then 12 joints) at a random
    # state: J v at a point of a link is that link's velocity there,
    # ṗ_o + ω × (p − o); M is symmetric positive definite.
    sim = coulomb.Simulation.from_dict({"robots": [{
        "name": "a1", "urdf": "example-robot-data/a1_description/urdf/a1.urdf",
        "pose": {"position": [0, 0, 0.5]}}]})
    rng = np.random.default_rng(1)
    q = sim.q
    q[7:] += rng.normal(scale=0.3, size=q.size - 7)
    sim.set_state(q, rng.normal(size=sim.v.size))
    assert sim.velocity_slice("a1") == slice(0, 18)
    mass = sim.mass_matrix("a1")
    np.testing.assert_allclose(mass, mass.T, atol=1e-14)
    assert np.linalg.eigvalsh(mass).min() > 0
    assert sim.bias_forces("a1").shape == (18,)
    for link in ["trunk", "FR_calf", "RL_foot"]:
        origin = sim.body_position(link)
        point = origin + [0.01, -0.02, 0.03]
        linear, angular = sim.body_velocity(link)
        np.testing.assert_allclose(sim.point_jacobian(link, point) @ sim.v,
                                   linear + np.cross(angular, point - origin), atol=1e-12)


def test_contact_wrenches_are_what_holds_and_brakes_the_boxes(scenes_dir):
    # On the 20° slope (gravity g_W tilted), the sticking box (1 kg) is held
    # by −m g_W; the sliding one (2 kg, μ = 2·0.2·0.5/0.7) is pressed by
    # m g cos θ and braked by μ times that. Neither turns: no torque about
    # its centre.
    sim = coulomb.Simulation.from_file(str(scenes_dir / "box_on_slope.yaml"))
    assert sim.contact_wrench("sticking")[0].tolist() == [0, 0, 0]  # no step yet
    sim.run(0.5)
    g_W = np.array([3.3552, 0, -9.2184])
    force, torque = sim.contact_wrench("sticking")
    np.testing.assert_allclose(force, -1.0 * g_W, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(torque, 0.0, atol=1e-5)
    force, torque = sim.contact_wrench("sliding")
    normal, mu = 2.0 * 9.2184, 2 * 0.2 * 0.5 / 0.7
    np.testing.assert_allclose(force, [-mu * normal, 0, normal], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(torque, 0.0, atol=1e-5)
    with pytest.raises(KeyError):
        sim.contact_wrench("ground")  # fixed: the world's


def test_a_contact_wrench_on_a_robot_link_is_the_load_on_it(scenes_dir):
    # The MJCF arm holds the box (0.5 kg) on its forearm: the box is held up
    # by m g, the forearm pressed down by as much (and no other link).
    sim = coulomb.Simulation.from_file(str(scenes_dir / "mjcf_arm.yaml"))
    sim.run(3.0)
    weight = np.array([0, 0, 0.5 * G])
    np.testing.assert_allclose(sim.contact_wrench("box")[0], weight, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sim.contact_wrench("forearm")[0], -weight, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_array_equal(sim.contact_wrench("upper_arm")[0], [0, 0, 0])


def rotation_matrix(w, x, y, z):
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def test_a_spinning_boxs_bias_forces_are_its_weight_and_gyroscopic_torque():
    # Euler's equations: h = [−m g, ω_B × I_B ω_B], I_B of a uniform box.
    m, size = 3.0, np.array([0.1, 0.2, 0.3])
    sim = coulomb.Simulation.from_dict({"bodies": [{
        "name": "box", "shape": {"box": {"size": size.tolist()}}, "mass": m,
        "pose": {"position": [0, 0, 1], "rpy": [0.3, 0.2, 0.1]},
        "velocity": {"angular": [4, -5, 6]}}]})
    inertia = m / 12 * np.diag([size[1]**2 + size[2]**2, size[0]**2 + size[2]**2,
                                size[0]**2 + size[1]**2])
    omega_B = rotation_matrix(*sim.body_orientation("box")).T @ [4, -5, 6]
    np.testing.assert_allclose(sim.mass_matrix("box")[3:, 3:], inertia, rtol=1e-12)
    np.testing.assert_allclose(sim.bias_forces("box"),
                               np.concatenate([[0, 0, m * G],
                                               np.cross(omega_B, inertia @ omega_B)]),
                               rtol=1e-12, atol=1e-12)


def test_joint_positions_follow_the_joint_names():
    # Twelve joints, each given its own starting angle by name.
    legs = ("FL", "FR", "RL", "RR")
    start = {}
    for k, leg in enumerate(legs):
        start[f"{leg}_hip_joint"] = 0.01 * (k + 1)
        start[f"{leg}_thigh_joint"] = 0.6 + 0.05 * k
        start[f"{leg}_calf_joint"] = -1.2 - 0.05 * k
    sim = coulomb.Simulation.from_dict({
        "bodies": [{"name": "ground", "shape": {"halfspace": {}}, "fixed": True}],
        "robots": [{"name": "a1", "urdf": "example-robot-data/a1_description/urdf/a1.urdf",
                    "base": "floating", "pose": {"position": [0, 0, 0.5]},
                    "joints": start}]})
    names = sim.joint_names("a1")
    assert sorted(names) == sorted(start)
    np.testing.assert_array_equal(sim.joint_positions("a1"), [start[n] for n in names])
    assert sim.joint_velocities("a1").shape == (12,)


def test_a_restored_snapshot_replays_the_rollout_bit_for_bit(tmp_path):
    # A what-if: from a snapshot, one rollout with the pendulum's PD target
    # changed, then back, and the original continuation again, exactly; and
    # in a second simulation of the scene, which gets the controller (gains
    # and target) from the snapshot.
    sim = pendulum(tmp_path, {"hinge": {"kp": 200.0, "kd": 20.0, "target": 0.0}})
    sim.set_pd_targets("pendulum", [1.0])
    sim.run(0.5)
    snapshot = sim.snapshot()
    assert snapshot.time == sim.time
    np.testing.assert_array_equal(snapshot.q, sim.q)
    np.testing.assert_array_equal(snapshot.v, sim.v)
    ahead = sim.run(0.5).q
    sim.set_pd_targets("pendulum", [-1.0])
    sim.run(0.3)
    sim.restore(snapshot)
    again = sim.run(0.5).q
    np.testing.assert_array_equal(again, ahead)
    twin = pendulum(tmp_path)  # no controller: the snapshot brings it
    twin.restore(snapshot)
    np.testing.assert_array_equal(twin.run(0.5).q, ahead)
    with pytest.raises(ValueError, match="another scene"):
        coulomb.Simulation.from_builtin("sphere_on_ground").restore(snapshot)
    with pytest.raises(TypeError):
        sim.restore((sim.q, sim.v))


def test_a_pickled_simulation_steps_as_the_original():
    # CANAL's warm start travels with the state: the unpickled pile's steps
    # are the original's, bit for bit, and so is a pickled snapshot's.
    sim = coulomb.Simulation.from_builtin("clutter", bodies=20, solver="canal")
    sim.run(0.6, record=False)
    copy = pickle.loads(pickle.dumps(sim))
    twin = deepcopy(sim)  # the same way, in this process
    assert repr(copy) == repr(sim)
    snapshot = pickle.loads(pickle.dumps(sim.snapshot()))
    np.testing.assert_array_equal(snapshot.q, sim.q)  # 20 trees, stacked as q
    np.testing.assert_array_equal(snapshot.v, sim.v)
    ahead = sim.run(0.2)
    copied = copy.run(0.2)
    np.testing.assert_array_equal(copied.q, ahead.q)  # its start, then each step
    np.testing.assert_array_equal(twin.run(0.2).q, ahead.q)
    assert copy.summary()["steps"] == 20  # its own steps only
    sim.restore(snapshot)
    np.testing.assert_array_equal(sim.run(0.2).q, ahead.q)
    data = pickle.dumps(snapshot)
    for cut in (len(data) // 3, len(data) // 2, len(data) - 10):
        with pytest.raises((ValueError, pickle.UnpicklingError)):
            pickle.loads(data[:cut])


class _SignalsRun:
    """The engine of a Simulation, with an event set as its run starts."""

    def __init__(self, engine):
        self._engine, self.running = engine, threading.Event()

    def run(self, *arguments):
        self.running.set()  # the engine's run releases the GIL from here on
        return self._engine.run(*arguments)

    def __getattr__(self, name):
        return getattr(self._engine, name)


def test_calls_from_another_thread_wait_for_a_run_under_way():
    # A run in a thread; this thread reads the time and sets a state while
    # it steps. Both wait for the run: the time read is the run's end, and
    # the state set is the one the simulation ends in.
    sim = coulomb.Simulation.from_builtin("clutter", bodies=40)
    q0, v0 = sim.q, sim.v
    sim._engine = _SignalsRun(sim._engine)
    runner = threading.Thread(target=sim.run, args=(2.0,), kwargs={"record": False})
    runner.start()
    assert sim._engine.running.wait(timeout=60)
    assert sim.time == pytest.approx(2.0)
    sim.set_state(q0, v0, time=0.0)
    runner.join()
    assert sim.time == 0.0
    np.testing.assert_array_equal(sim.q, q0)


def _rollout(sim, target):
    """A rollout in a worker process: the pendulum driven to `target`."""
    sim.set_pd_targets("pendulum", [target])
    sim.run(0.5, record=False)
    return sim.q


def test_rollouts_in_worker_processes_are_those_of_the_script(tmp_path):
    # Rollouts from one moment, each with its own PD target, in two worker
    # processes (the simulation pickled to them), end where the same rollouts
    # from a snapshot in this process end, bit for bit.
    sim = pendulum(tmp_path, {"hinge": {"kp": 200.0, "kd": 20.0, "target": 0.5}})
    sim.run(0.3)
    targets = [-1.0, -0.3, 0.4, 1.2]
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        remote = list(pool.map(_rollout, [sim] * len(targets), targets))
    start = sim.snapshot()
    for target, q in zip(targets, remote):
        sim.restore(start)
        np.testing.assert_array_equal(q, _rollout(sim, target))
    assert len({float(q[0]) for q in remote}) == len(targets)


def test_refused_pd_gains_change_no_joint():
    # Twelve joints: a bad value for the last one refuses the call before
    # the first joint gets a controller.
    sim = coulomb.Simulation.from_dict({
        "bodies": [{"name": "ground", "shape": {"halfspace": {}}, "fixed": True}],
        "robots": [{"name": "a1", "urdf": "example-robot-data/a1_description/urdf/a1.urdf",
                    "base": "floating", "pose": {"position": [0, 0, 0.5]}}]})
    good = np.full(12, 10.0)
    for bad in [dict(kp=good, kd=np.append(good[1:], math.nan)),
                dict(kp=np.append(good[1:], -1.0), kd=good),
                dict(kp=good, kd=good, effort_limit=np.append(good[1:], 0.0))]:
        with pytest.raises(ValueError):
            sim.set_pd_gains("a1", **bad)
        with pytest.raises(ValueError, match="without PD gains: FL_hip_joint, "):
            sim.set_pd_targets("a1", np.zeros(12))
    sim.set_pd_gains("a1", good, good, effort_limit=good)
    sim.set_pd_targets("a1", np.zeros(12))


def test_a_live_viewer_follows_every_step_until_closed():
    sim = coulomb.Simulation.from_builtin("sphere_on_ground")
    sim.recording = False
    with sim.view(port=0, open_browser=False) as viewer:
        assert sim.recording  # the page shows what is recorded
        sim.step()
        sim.run(0.05)
        meta = json.load(urllib.request.urlopen(viewer.url + "replay/meta.json", timeout=10))
        assert meta["live"] is True
        assert len(meta["time"]) == round(sim.time / sim.time_step) + 1  # start, each step
        assert meta["time"][-1] == pytest.approx(sim.time)
        port = int(viewer.url.rstrip("/").rsplit(":", 1)[1])
        other = coulomb.Simulation.from_builtin("sphere_on_ground")
        with pytest.raises(RuntimeError, match=f"cannot listen on 127.0.0.1:{port}"):
            other.view(port=port, open_browser=False)  # in use: refused, not shared
    assert viewer.closed
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(viewer.url, timeout=5)
    sim.step()  # the simulation goes on without it
    with pytest.raises(TypeError, match="port"):
        sim.view(port="8000", open_browser=False)


def test_an_effort_turns_a_joint_its_way(tmp_path):
    sim = pendulum(tmp_path)
    with pytest.raises(ValueError, match="PD gains"):
        sim.set_pd_targets("pendulum", [0.5])
    sim.set_joint_efforts("pendulum", [2.0])
    sim.step()
    assert sim.v[0] > 0
    sim.set_joint_efforts("pendulum", [-4.0])
    for _ in range(3):
        sim.step()
    assert sim.v[0] < 0


def test_solve_gives_what_the_command_line_reports(fclib_dir, coulomb_bin):
    # Every file, SAP and CANAL: the fields the JSON of `coulomb solve` has,
    # counts equal and measures to round-off (a separate solve each).
    counts = ("iterations", "inner_iterations", "line_search_iterations", "num_islands",
              "skew_passes", "num_dofs", "num_contacts", "fallback_iterations")
    measures = ("ncp_residual", "momentum_error", "complementarity_error",
                "clique_iterations")
    for path in sorted(fclib_dir.glob("*.hdf5")):
        for solver in ("sap", "canal"):
            result = coulomb.solve(str(path), solver=solver)
            cli = json.loads(subprocess.run(
                [coulomb_bin, "solve", str(path), "--solver", solver, "--json"],
                capture_output=True, text=True).stdout)
            for field in ("solver", "status", "converged", "kind") + counts:
                assert getattr(result, field) == cli[field], (path.name, solver, field)
            for field in measures:
                assert getattr(result, field) == pytest.approx(
                    cli[field], rel=1e-9, abs=1e-15), (path.name, solver, field)
            if cli["kind"] == "local":
                assert result.w_factor == cli["w_factor"]
                assert result.w_model_error == pytest.approx(cli["w_model_error"], rel=1e-12)
            else:
                assert result.w_factor == "" and "w_factor" not in cli
            assert 0.0 <= result.factorization_time_s <= result.wall_time_s
            assert result.r.shape == (3 * cli["num_contacts"],)


def test_solve_passes_the_inner_solver_and_delassus_form_like_the_command_line(
        fclib_dir, coulomb_bin):
    path = fclib_dir / "Box_Stacks-i0122-82-5.hdf5"
    for solver, option, value in (("canal", "canal_inner", "dogleg"),
                                  ("canal", "canal_inner", "ssn"),
                                  ("dual", "delassus", "dense"),
                                  ("dual", "delassus", "operator")):
        result = coulomb.solve(str(path), solver=solver, **{option: value})
        cli = json.loads(subprocess.run(
            [coulomb_bin, "solve", str(path), "--solver", solver,
             "--" + option.replace("_", "-"), value, "--json"],
            capture_output=True, text=True).stdout)
        assert result.converged
        assert result.iterations == cli["iterations"]
        assert result.ncp_residual == pytest.approx(cli["ncp_residual"], rel=1e-9)
    with pytest.raises(ValueError, match="applies to --solver canal only"):
        coulomb.solve(str(path), solver="sap", canal_inner="ssn")
    with pytest.raises(ValueError, match="CANAL inner solver"):
        coulomb.solve(str(path), solver="canal", canal_inner="lu")
    for bad in (0, 100000):  # a clear error, not minutes spent starting threads
        with pytest.raises(ValueError, match="threads: must be from 1 to 256"):
            coulomb.solve(str(path), solver="subadmm", threads=bad)


def test_solve_lets_admm_go_on_where_canal_ends_unsolved_like_the_command_line(
        fclib_dir, coulomb_bin):
    # CANAL cut off after one outer iteration leaves Box_Stacks unsolved; with
    # the fallback, ADMM goes on from its best impulses to the tolerance.
    path = fclib_dir / "Box_Stacks-i0122-82-5.hdf5"
    alone = coulomb.solve(str(path), solver="canal", max_iterations=1)
    assert not alone.converged and alone.fallback_iterations == 0
    result = coulomb.solve(str(path), solver="canal", max_iterations=1,
                           fallback_iterations=10000)
    cli = json.loads(subprocess.run(
        [coulomb_bin, "solve", str(path), "--solver", "canal", "--max-iterations", "1",
         "--fallback-iterations", "10000", "--json"],
        capture_output=True, text=True).stdout)
    assert result.converged and result.ncp_residual <= 1e-9
    assert result.iterations == 1 and result.fallback_iterations > 0
    assert result.fallback_iterations == cli["fallback_iterations"]
    assert result.ncp_residual == pytest.approx(cli["ncp_residual"], rel=1e-9)
    with pytest.raises(ValueError, match="fallback_iterations: must be ≥ 0"):
        coulomb.solve(str(path), solver="canal", fallback_iterations=-1)
    with pytest.raises(ValueError, match="applies to --solver canal only"):
        coulomb.solve(str(path), solver="pgs", fallback_iterations=100)


def test_a_thread_count_out_of_bounds_is_refused_before_any_thread_starts():
    # 100 000 threads would take minutes to start: a clear error instead.
    for bad in (0, 100000):
        with pytest.raises(ValueError, match="threads: must be from 1 to 256"):
            coulomb.Simulation.from_builtin("clutter", bodies=8, threads=bad)


def test_simulations_run_in_parallel_threads_with_the_results_of_one():
    import threading

    def final_state():
        sim = coulomb.Simulation.from_builtin("clutter", bodies=8)
        sim.run(0.3)
        return sim.q

    alone = final_state()
    results = [None, None]

    def worker(index):
        results[index] = final_state()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results:
        np.testing.assert_array_equal(result, alone)


def test_a_threaded_nut_from_a_dict_rests_on_the_bolts_flanks():
    # The M48 bolt and nut as signed distance fields: the nut starts in phase
    # with the thread, 0.1 mm clearance all round, and drops onto the flanks
    # by the clearance over cos 30° (the flank's normal is 30° off the axis),
    # where it holds (μ = 0.2, above the thread's self-locking 0.031).
    sim = coulomb.Simulation.from_dict({
        "time_step": 1e-3, "duration": 0.1, "contact": {"friction": 0.2},
        "bodies": [
            {"name": "bolt", "shape": {"threaded_bolt": {"clearance": 1e-4}}, "fixed": True},
            {"name": "nut", "shape": {"threaded_nut": {}}, "density": 7850},
        ],
    })
    z0 = sim.body_position("nut")[2]
    sim.run(0.1)
    drop = z0 - sim.body_position("nut")[2]
    assert drop == pytest.approx(1e-4 / math.cos(math.pi / 6), rel=0.02)
    contacts = sim.contacts()
    assert 0 < len(contacts["depth"]) <= 120  # clustered


def test_a_torque_from_python_screws_the_nut_up_one_pitch_per_turn():
    # A control loop from Python: the nut turned by a world torque about the
    # bolt's axis (set every step, as a controller would), rising P per turn.
    sim = coulomb.Simulation.from_builtin("bolt_nut")
    pitch, turns, last_yaw = 0.005, 0.0, 0.0
    heights, angles = [], []
    for _ in range(400):
        sim.set_body_wrench("nut", torque=[0.0, 0.0, 0.3])
        sim.step()
        w, x, y, z = sim.body_orientation("nut")
        yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
        turns += math.remainder(yaw - last_yaw, 2 * math.pi)
        last_yaw = yaw
        heights.append(sim.body_position("nut")[2])
        angles.append(turns)
    rise = (heights[-1] - heights[150]) / (angles[-1] - angles[150])
    assert angles[-1] - angles[150] > math.pi
    assert rise == pytest.approx(pitch / (2 * math.pi), rel=0.01)
    with pytest.raises(KeyError, match="no body or robot named 'world'"):
        sim.set_body_wrench("world", torque=[0, 0, 1])
    with pytest.raises(ValueError, match="torque"):
        sim.set_body_wrench("nut", torque=[0, 1])


def test_every_scene_file_loads_and_steps(scenes_dir):
    # The example scenes of scenes/ stay valid: each loads and takes 20
    # converged steps.
    files = sorted(scenes_dir.glob("*.yaml"))
    assert len(files) >= 8
    for path in files:
        sim = coulomb.Simulation.from_file(path)
        for _ in range(20):
            assert sim.step().converged, path.name


def test_arrays_read_are_fresh_float64_copies_in_numpys_layout():
    # Every array a read returns is the caller's own: changing it changes
    # neither the engine nor the next read; a matrix comes row by row.
    sim = coulomb.Simulation.from_builtin("clutter", bodies=8)
    sim.run(0.1, record=False)
    name = sim.body_names[3]
    first = sim.body_position(name)
    assert first.dtype == np.float64 and first.shape == (3,)
    assert first.flags.c_contiguous and first.flags.writeable and first.flags.owndata
    expected = first.copy()
    first[:] = 99.0
    np.testing.assert_array_equal(sim.body_position(name), expected)
    positions = sim.body_positions()
    assert positions.shape == (len(sim.body_names), 3) and positions.flags.c_contiguous
    for k, body in enumerate(sim.body_names):
        np.testing.assert_array_equal(positions[k], sim.body_position(body))
    wxyz = sim.body_orientation(name)
    assert wxyz.shape == (4,) and abs(np.linalg.norm(wxyz) - 1.0) < 1e-12
    # The contacts' rows, one per contact: the impulses on a body, summed
    # by its name, are its contact wrench's force times δt.
    sim.run(1.0, record=False)
    contacts = sim.contacts()
    n = len(contacts["depth"])
    assert n > 0 and contacts["impulse"].shape == (n, 3)
    on_b = np.array(contacts["body_b"]) == name
    on_a = np.array(contacts["body_a"]) == name
    impulse = contacts["impulse"][on_b].sum(axis=0) - contacts["impulse"][on_a].sum(axis=0)
    np.testing.assert_allclose(impulse / sim.time_step, sim.contact_wrench(name)[0],
                               rtol=1e-12, atol=1e-9)
    assert np.linalg.norm(impulse) > 0.0


def test_serialized_methods_keep_their_parameters_names_and_defaults(tmp_path):
    # The lock's wrapper passes a call on as made: by keyword, with the
    # method's defaults, and help() shows the method's own signature.
    sim = pendulum(tmp_path, {"hinge": {"kp": 200.0, "kd": 20.0, "target": 0.5}})
    signature = inspect.signature(coulomb.Simulation.set_pd_targets)
    assert list(signature.parameters) == ["self", "robot", "positions", "velocities"]
    assert signature.parameters["velocities"].default is None
    sim.set_pd_targets(robot="pendulum", positions=[0.25])  # velocities: its default
    by_position = pendulum(tmp_path, {"hinge": {"kp": 200.0, "kd": 20.0, "target": 0.5}})
    by_position.set_pd_targets("pendulum", [0.25], [0.0])
    sim.run(0.2, record=False)
    by_position.run(0.2, record=False)
    np.testing.assert_array_equal(sim.q, by_position.q)
    np.testing.assert_array_equal(sim.joint_positions(robot="pendulum"),
                                  by_position.joint_positions("pendulum"))
    with pytest.raises(TypeError):
        sim.joint_positions(name="pendulum")  # not its parameter's name
