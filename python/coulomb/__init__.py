"""Coulomb: contact-rich multibody simulation (SAP, Lagged/Similar, CANAL,
SubADMM, PGS) from Python, with the C++ engine underneath.

    import coulomb
    sim = coulomb.Simulation.from_builtin("clutter", bodies=8)
    stats = sim.step()                 # StepStats: converged, iterations, e_m, ...
    trajectory = sim.run(1.0)          # numpy arrays: time, q, v, positions, ...
    contacts = sim.contacts()          # point, normal, depth, impulse per contact
    start = sim.snapshot()             # sim.restore(start): back here, bit for bit
    result = coulomb.solve("problem.hdf5", solver="canal")

Units are SI; vectors are in the world frame; quaternions are (w, x, y, z).
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import numbers
import os
import sys
import sysconfig
import threading
import warnings
import webbrowser
from typing import Any, Callable, Mapping

import numpy as np


def _find_robot_data() -> None:
    """Robot scenes read example-robot-data's URDFs: from
    $COULOMB_ROBOT_DATA_DIR, else from the wheel's copy in this environment."""
    robots = os.path.join(sysconfig.get_paths()["purelib"], "cmeel.prefix", "share",
                          "example-robot-data", "robots")
    if "COULOMB_ROBOT_DATA_DIR" not in os.environ and os.path.isdir(robots):
        os.environ["COULOMB_ROBOT_DATA_DIR"] = robots


_find_robot_data()

from ._coulomb import LiveViewer as _LiveViewer
from ._coulomb import Overrides, Snapshot, SolveResult, StepStats
from ._coulomb import Simulation as _Simulation
from ._coulomb import solve

__all__ = ["Simulation", "StepStats", "SolverError", "Trajectory", "Viewer", "SolveResult",
           "solve"]

_OVERRIDES = (
    "time_step", "scheme", "model", "solver", "rel_tol", "sigma", "lookahead", "threads",
    "max_iterations", "closed_form")


class SolverError(RuntimeError):
    """A step whose contact solve failed; ``statistics`` holds its StepStats.
    The simulation's state is left at the start of the step."""

    def __init__(self, statistics: StepStats):
        super().__init__(statistics.failure)
        self.statistics = statistics


class Trajectory:
    """What ``Simulation.run`` recorded: ``time`` (T), ``q`` (T × n_q), ``v``
    (T × n_v), per body ``positions[name]`` (T × 3), ``orientations[name]``
    (T × 4, w x y z), ``linear_velocities[name]``, ``angular_velocities[name]``
    (T × 3, world), per robot with sensors ``sensors[robot][sensor]`` (T ×
    its dimension: what ``sensor_data`` read at each sample), and
    ``summary`` (the keys of ``coulomb run --json``)."""

    def __init__(self, simulation: _Simulation, first_sample: int, summary: dict,
                 lock: threading.RLock):
        data = simulation.trajectory(first_sample)
        self._simulation, self._first, self._lock = simulation, first_sample, lock
        self.time: np.ndarray = data["time"]
        self.q: np.ndarray = data["q"]
        self.v: np.ndarray = data["v"]
        bodies = data["bodies"]
        self.positions = {name: rows[:, 0:3] for name, rows in bodies.items()}
        self.orientations = {name: rows[:, 3:7] for name, rows in bodies.items()}
        self.linear_velocities = {name: rows[:, 7:10] for name, rows in bodies.items()}
        self.angular_velocities = {name: rows[:, 10:13] for name, rows in bodies.items()}
        self.sensors: dict[str, dict[str, np.ndarray]] = data["sensors"]
        self.summary = summary

    def __repr__(self) -> str:
        span = (f"t = {self.time[0]:.6g} … {self.time[-1]:.6g} s" if len(self.time)
                else "not recorded")
        s = self.summary
        return (f"Trajectory({len(self.time)} samples, {span}; {s['steps']} steps, "
                f"{s['iterations_mean']:.2f} iterations per step, e_m max "
                f"{s['momentum_error_max']:.2e}, penetration max {s['penetration_max']:.2e} m)")

    def save(self, path: str) -> None:
        """Writes ``trajectory.h5`` in the format of ``coulomb run --out``,
        the sensors' readings included (``/sensors/ROBOT/readings``)."""
        with self._lock:  # the simulation's: it may be stepping in another thread
            self._simulation.save_trajectory(self._first, str(path))


def _overrides(values: Mapping[str, Any]) -> Overrides:
    overrides = Overrides()
    for key, value in values.items():
        if key == "closed_form" and not isinstance(value, bool):
            raise ValueError(f"closed_form must be True or False, got {value!r}")
        setattr(overrides, key, value)
    return overrides


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _shaped(values: Any, size: int, what: str) -> np.ndarray:
    """values as `size` numbers (ValueError naming `what` otherwise), for
    the engine calls that check finiteness themselves."""
    array = np.asarray(values, dtype=np.float64)
    if array.shape != (size,):
        raise ValueError(f"{what}: expected shape ({size},), got {array.shape}")
    return array


def _vector(values: Any, size: int, what: str) -> np.ndarray:
    """_shaped, and finite (ValueError naming `what` otherwise)."""
    array = _shaped(values, size, what)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what}: values must be finite")
    return array


def _real(value: Any, what: str) -> float:
    """value as a float: a real number (Python's or numpy's, or a 0-d array);
    TypeError naming `what` for anything else, a str or a bool included."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what}: expected a number, got {type(value).__name__} {value!r}")
    return float(value)


def _numbers(values: Any, what: str) -> np.ndarray:
    """values as a sequence of numbers, one per joint or actuator: the
    engine checks their count and finiteness and names the joints."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{what}: expected a sequence of numbers, got shape {array.shape}")
    return array


def _pose_arrays(what: str, position: Any, quaternion: Any) -> tuple[np.ndarray, np.ndarray]:
    """A pose given as a position and a quaternion (w, x, y, z), checked,
    the quaternion normalized; ValueError naming `what` otherwise."""
    position = np.asarray(position, dtype=float).reshape(-1)
    quaternion = np.asarray(quaternion, dtype=float).reshape(-1)
    if position.size != 3 or not np.all(np.isfinite(position)):
        raise ValueError(f"{what}: position must be three finite numbers")
    norm = np.linalg.norm(quaternion) if quaternion.size == 4 else 0.0
    if not (np.isfinite(norm) and norm > 0.0):
        raise ValueError(f"{what}: quaternion must be four finite numbers, "
                         "not all zero (w, x, y, z)")
    return position, quaternion / norm


def _has_display() -> bool:
    """Whether a graphical browser can open here: without a display Python's
    webbrowser would run a text-mode browser in this terminal, and wait."""
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class Viewer:
    """A simulation's page in the browser while it runs (``Simulation.view``):
    it follows every recorded step, then keeps what was recorded until
    closed. ``url`` is its address; ``close()``, or the end of a ``with``
    block, stops the server (the page loses its connection)."""

    def __init__(self, live: _LiveViewer):
        self._live = live
        self.closed = False

    @property
    def url(self) -> str:
        """http://HOST:PORT/, with the port the server is bound to."""
        return self._live.url

    def close(self) -> None:
        """Stops the server; the simulation stops updating the page."""
        if not self.closed:
            self.closed = True
            self._live.close()

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *exception: Any) -> None:
        self.close()


def _serialized(method: Callable) -> Callable:
    """One call at a time on a Simulation, whatever the thread: ``step`` and
    ``run`` release the GIL while the engine steps, and another thread's call
    would otherwise read or change the engine mid-step. A call from another
    thread waits for the one under way; the thread that holds the lock may
    call again (a method calling another).

    The wrapper takes the method's own parameters, so that a call passes
    them as they are: packing them into ``*args`` and ``**kwargs`` and out
    again cost about 0.2 µs on every state read of a control loop (0.58
    against 0.36 µs for a joint read). Only a method with keyword-only or
    variadic parameters gets the generic wrapper."""
    parameters = list(inspect.signature(method).parameters.values())[1:]
    if all(p.kind is p.POSITIONAL_OR_KEYWORD and not p.name.startswith("_")
           for p in parameters):
        names = ", ".join(p.name for p in parameters)
        # acquire/release rather than ``with``: the context manager's exit
        # call costs about 0.1 µs a call.
        # (Its own names begin with "_": no parameter of ours does.)
        source = (f"def serialized(self, {names}):\n"
                  "    _held = self._lock\n"
                  "    _held.acquire()\n"
                  "    try:\n"
                  f"        return _method(self, {names})\n"
                  "    finally:\n"
                  "        _held.release()\n")
        namespace: dict[str, Any] = {"_method": method}
        exec(source, namespace)  # (the names are the method's own parameters)
        serialized = namespace["serialized"]
        serialized.__defaults__ = method.__defaults__
        return functools.wraps(method)(serialized)

    @functools.wraps(method)
    def serialized_any(self: "Simulation", *args: Any, **kwargs: Any) -> Any:
        lock = self._lock
        lock.acquire()
        try:
            return method(self, *args, **kwargs)
        finally:
            lock.release()

    return serialized_any


class Simulation:
    """A scene and its time stepper (SAP §II two-stage θ-method, with SAP or
    an exact-NCP contact solver).

    Build one with ``from_file``, ``from_builtin`` or ``from_dict``; each
    takes the overrides ``time_step`` [s], ``scheme``, ``model``, ``solver``,
    ``rel_tol``, ``sigma`` (the tangential regularization σ of SAP §V-B,
    default 1e-3: a sticking contact creeps at a speed proportional to it),
    ``lookahead`` (how far ahead [s] each body is swept for speculative
    contacts; default δt + the largest SAP τ_d, where the contact models
    engage a closing gap; 0 finds contacts within the margin only, faster
    but fast bodies then meet overlapping), ``threads`` and
    ``max_iterations`` (SAP's Newton iterations before a step fails; an NCP
    solver's budget per step, at which the step is accepted unsolved, its
    ``StepStats.ended_at_budget`` set, and a run warns) and ``closed_form``
    (default True: each free body, loose or made of welded bodies, steps in
    closed form; False steps them through Pinocchio's CRBA and RNEA as
    robots' trees, the same physics more slowly, to check one against the
    other). Then ``step()``
    or ``run(duration)``, read the state (``time``, ``q``, ``v``,
    ``body_position`` ...) and the last step's ``contacts()`` (and their
    ``contact_wrench`` on one body), actuate
    robots (``set_joint_efforts``, ``set_pd_gains``, ``set_pd_targets``,
    ``set_joint_friction``;
    ``joint_efforts`` says what they applied), model them for control
    (``mass_matrix``, ``bias_forces``, ``point_jacobian``,
    ``velocity_slice``), come back to a moment (``snapshot()``, ``restore()``), and watch it in
    the browser while it runs (``view()``). A simulation pickles (worker
    processes) and may be called from several threads, one call at a time.
    Bad input raises ``ValueError`` (``KeyError`` for an unknown name) and
    changes nothing.
    """

    def __init__(self, engine: _Simulation, recipe: tuple):
        self._engine = engine
        self._recipe = recipe  # _Simulation.create's arguments: how to build it again
        self._lock = threading.RLock()  # see _serialized
        # Read-only views of the engine's stacked state (current after every
        # step): copying them is the cheapest read of q and v.
        self._q_view, self._v_view = engine.q_view, engine.v_view
        self._viewer: Viewer | None = None
        self._warnings: list[str] = []  # set by _create: the start's warnings
        # A built scene's trees and robots are fixed: named once here, so that
        # a control loop's calls do not list them again.
        self._tree_names = tuple(engine.tree_names)
        self._robot_names = tuple(n for n in self._tree_names if engine.joint_names(n))
        self._robots = frozenset(self._robot_names)

    @_serialized
    def __repr__(self) -> str:
        def count(n: int, one: str, many: str) -> str:
            return f"{n} {one if n == 1 else many}"

        robots = len(self.robot_names)  # body_names holds each robot's base too
        parts = [count(len(self.body_names) - robots, "body", "bodies")]
        if robots:
            parts.append(count(robots, "robot", "robots"))
        return (f"Simulation({self._engine.scene_name!r}: {', '.join(parts)}, "
                f"t = {self.time:.6g} s, δt = {self.time_step:g} s)")

    # --- construction ---------------------------------------------------
    @classmethod
    def from_file(cls, path: str, keyframe: str | None = None,
                  **overrides: Any) -> "Simulation":
        """A YAML scene file (format: scenes/README.md), or a MuJoCo MJCF file
        (.xml) run as a scene by itself: its bodies, world geoms, time step
        and gravity, started at its ``<key>`` named ``keyframe`` if given
        (as MuJoCo's ``mj_resetDataKeyframe``)."""
        cls._check_overrides(overrides)
        options = {} if keyframe is None else {"keyframe": str(keyframe)}
        sim = cls._create("file", str(path), options, "", overrides)
        # Rebuilt elsewhere (unpickled) from wherever that process runs.
        sim._recipe = ("file", os.path.abspath(path), options, "", overrides)
        return sim

    @classmethod
    def from_builtin(cls, name: str, **options: Any) -> "Simulation":
        """A built-in scene (``coulomb scenes`` lists them), with its options
        (e.g. ``from_builtin("clutter", bodies=20, walls=False)``) and the
        overrides."""
        overrides = {k: options.pop(k) for k in list(options) if k in _OVERRIDES}
        text = {key: _option_text(value) for key, value in options.items()}
        return cls._create("builtin", name, text, "", overrides)

    @classmethod
    def from_dict(cls, scene: Mapping[str, Any], **overrides: Any) -> "Simulation":
        """A scene given as a dict with the schema of a scene YAML file; errors
        name the key (``scene dict:LINE: bodies[0].mass: must be positive``)."""
        cls._check_overrides(overrides)
        text = json.dumps(_yaml_numbers(scene), indent=1, default=_json_default)
        return cls._create("text", "scene dict", {}, text, overrides)

    @classmethod
    def _create(cls, *recipe: Any) -> "Simulation":
        kind, source, options, text, overrides = recipe
        engine = _Simulation.create(kind, source, options, text, _overrides(overrides))
        sim = cls(engine, recipe)
        sim._warnings = engine.start_warnings()
        for warning in sim._warnings:
            warnings.warn(warning, UserWarning, stacklevel=3)
        return sim

    @property
    def warnings(self) -> list[str]:
        """What was likely wrong when the simulation was built, one line
        each, as ``coulomb run`` prints it: what the scene's files hold that
        is not simulated (an MJCF file's equality constraints, tendons,
        explicit contact pairs), a time step in which bodies can pass
        through each other, bodies starting inside each other by more than
        1 mm. Each was also issued as a ``UserWarning`` then."""
        return list(self._warnings)

    @_serialized
    def __reduce__(self) -> tuple:
        """Pickling (multiprocessing, Ray): the scene as it was built and this
        moment (``snapshot``); the unpickled simulation steps bit for bit as
        this one would. Not its recording, nor its viewer."""
        return (Simulation._unpickle, (self._recipe, self.snapshot(), self.recording))

    @classmethod
    def _unpickle(cls, recipe: tuple, snapshot: Snapshot, recording: bool) -> "Simulation":
        sim = cls._create(*recipe)
        sim._engine.discard_recording()  # the scene's start: not this simulation's past
        sim.restore(snapshot)
        sim.recording = recording
        return sim

    @staticmethod
    def _check_overrides(overrides: Mapping[str, Any]) -> None:
        unknown = sorted(set(overrides) - set(_OVERRIDES))
        if unknown:
            raise TypeError(f"unknown overrides {unknown} (use {', '.join(_OVERRIDES)})")

    # --- stepping ---------------------------------------------------------
    @_serialized
    def step(self) -> StepStats:
        """Advances one time step; raises SolverError (state unchanged) if the
        contact solve failed."""
        stats = self._engine.step()
        live = self._live_viewer()
        if live is not None:
            live.update(self._engine)
        if not stats.converged:
            raise SolverError(stats)
        return stats

    @_serialized
    def run(self, duration: float, record: bool = True) -> Trajectory:
        """Steps for ``duration`` seconds and returns what was recorded from the
        current state on. ``record=False`` keeps no samples while stepping (as
        ``recording = False`` for the run): the Trajectory's arrays are empty,
        its ``summary`` covers every step. Raises SolverError at a failed step;
        issues a ``UserWarning`` when bodies sank deeper than the largest of
        them (they passed through each other: δt too long) and when an NCP
        solver accepted steps at its budget unsolved (``max_iterations``), as
        ``coulomb run`` warns."""
        was_recording = self._engine.recording
        recorded = bool(record) and was_recording
        self._engine.recording = recorded
        try:
            summary_json, run_warnings = self._engine.run(_real(duration, "duration"),
                                                          self._live_viewer())
        finally:
            self._engine.recording = was_recording
        summary = json.loads(summary_json)
        if summary.get("failure"):
            raise SolverError(self._engine.last_statistics)
        for warning in run_warnings:
            warnings.warn(warning, UserWarning, stacklevel=3)
        # The run's samples are the last: the state it started from (recorded
        # before its first step if set since the last sample), then each step.
        first = (self._engine.num_samples - summary["steps"] - 1 if recorded
                 else self._engine.num_samples)  # past every sample: none of the run's
        return Trajectory(self._engine, first, summary, self._lock)

    @_serialized
    def view(self, port: int = 8000, host: str = "127.0.0.1",
             open_browser: bool = True) -> Viewer:
        """Serves this simulation's viewer at ``http://host:port/`` (``port=0``:
        any free port) while the script goes on, as ``coulomb run --view``
        does: the page follows every step from here on, with the bodies, the
        contact forces and the solver's plots. The page shows what is
        recorded, so this turns ``recording`` on. ``open_browser`` opens the
        page in a browser where there is a display. Returns the ``Viewer``; a
        new one closes the last. Raises RuntimeError when the address cannot
        be bound."""
        if isinstance(port, bool) or not isinstance(port, int):
            raise TypeError(f"port: expected an integer, got {port!r}")
        if self._viewer is not None:
            self._viewer.close()
        self.recording = True
        self._viewer = Viewer(_LiveViewer(self._engine, str(host), port))
        if open_browser and _has_display():
            webbrowser.open(self._viewer.url)
        return self._viewer

    def _live_viewer(self) -> _LiveViewer | None:
        """The open viewer's engine side, which step() and run() update."""
        viewer = self._viewer
        return None if viewer is None or viewer.closed else viewer._live

    @property
    @_serialized
    def recording(self) -> bool:
        """Whether ``step()`` and ``run()`` append each step's state and
        contacts to the trajectory kept in memory (on by default). Off, a long
        control loop or a benchmark keeps no history and memory stays flat;
        turned back on, the current state is recorded first, so the
        trajectory then has a gap in time."""
        return self._engine.recording

    @recording.setter
    @_serialized
    def recording(self, on: bool) -> None:
        self._engine.recording = bool(on)

    # --- state ------------------------------------------------------------
    @property
    @_serialized
    def time(self) -> float:
        """Simulated time [s]."""
        return self._engine.time

    @property
    def time_step(self) -> float:
        """δt [s] of every step."""
        return self._engine.time_step

    @property
    @_serialized
    def q(self) -> np.ndarray:
        """Generalized positions, all bodies and robots stacked (a copy)."""
        return self._q_view.copy()

    @property
    @_serialized
    def v(self) -> np.ndarray:
        """Generalized velocities (a copy)."""
        return self._v_view.copy()

    @property
    def q_view(self) -> np.ndarray:
        """``q`` without a copy, as MuJoCo's ``qpos``: a read-only view of the
        engine's own state, the same array for the simulation's life, current
        after every step and ``set_state``. Slice it with ``position_slice``
        and ``joint_slices``; read it between calls, not while another
        thread steps (``q`` copies it under the lock)."""
        return self._q_view

    @property
    def v_view(self) -> np.ndarray:
        """``v`` without a copy, as ``q_view`` is ``q``'s (MuJoCo's
        ``qvel``); slice it with ``velocity_slice`` and ``joint_slices``."""
        return self._v_view

    @_serialized
    def set_state(self, q: Any, v: Any, time: float | None = None) -> None:
        """Sets q, v (and the time); quaternions are normalized. The state
        has no impulses to warm-start from: an NCP solver's next step starts
        cold, as in a new simulation (``snapshot``/``restore`` keep them)."""
        q = _vector(q, self._q_view.size, "q")
        v = _vector(v, self._v_view.size, "v")
        if time is not None and not (math.isfinite(time) and time >= 0):
            raise ValueError("time: must be finite and >= 0")
        self._engine.set_state(q, v, time)

    @_serialized
    def snapshot(self) -> Snapshot:
        """This moment, to come back to with ``restore``: the time, the state,
        the actuation (PD gains and targets, efforts, wrenches) and the NCP
        solvers' warm start. Restored, the simulation steps bit for bit as it
        did from here, whatever happened in between (rollouts, what-ifs).
        Restores into any simulation of the same scene, too."""
        return self._engine.snapshot()

    @_serialized
    def restore(self, snapshot: Snapshot) -> None:
        """Goes back to a ``snapshot``; raises ValueError, changing nothing,
        for one of another scene. The recording goes on from the restored
        state; ``contacts()`` stay the last step's."""
        if not isinstance(snapshot, Snapshot):
            raise TypeError(f"snapshot: expected a coulomb.Snapshot, got {type(snapshot).__name__}")
        self._engine.restore(snapshot)

    @property
    def body_names(self) -> list[str]:
        """The free bodies and robots, in state order."""
        return list(self._tree_names)

    @_serialized
    def body_position(self, name: str) -> np.ndarray:
        """Position [m] of a body (or robot link) in world."""
        return self._engine.body_position(name)

    @_serialized
    def body_orientation(self, name: str) -> np.ndarray:
        """Orientation as a unit quaternion (w, x, y, z)."""
        return self._engine.body_orientation(name)

    @_serialized
    def body_velocity(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(linear [m/s], angular [rad/s]) velocity in world."""
        return self._engine.body_velocity(name)

    @_serialized
    def body_positions(self) -> np.ndarray:
        """Every body's position [m] in world in one call (MuJoCo's
        ``xpos``): an N × 3 array, row k for ``body_names[k]`` (a robot's
        row is its base's)."""
        return self._engine.body_positions()

    @_serialized
    def body_orientations(self) -> np.ndarray:
        """Every body's orientation, N × 4 unit quaternions (w, x, y, z) in
        ``body_names`` order."""
        return self._engine.body_orientations()

    @_serialized
    def body_velocities(self) -> tuple[np.ndarray, np.ndarray]:
        """Every body's (linear [m/s], angular [rad/s]) velocity in world:
        two N × 3 arrays in ``body_names`` order."""
        return self._engine.body_velocities()

    @_serialized
    def contacts(self) -> dict[str, Any]:
        """The last step's contact points: ``body_a``, ``body_b`` (names),
        ``point`` (N × 3), ``normal`` (N × 3, from a to b), ``depth`` (N,
        positive when overlapping), ``impulse`` (N × 3, on b; force =
        impulse / time_step)."""
        return self._engine.contacts()

    @_serialized
    def export_fclib(self, path: str | os.PathLike) -> None:
        """Writes the last step's contact problem to ``path`` as an FCLIB
        global problem (HDF5; ``coulomb solve PATH`` and Siconos read it):
        the step's rigid Signorini–Coulomb NCP, M v = H r + f and u = Hᵀv + w
        with r in the friction cones and De Saxcé's complementarity, M the
        step's dynamics matrix, f = M v* its free-motion momentum and w the
        contacts' position feedback (docs/ncp_solvers.md). Raises
        ``ValueError`` before the first step, after a step without contacts
        and for constraints FCLIB has no form for (a PD controller, a weld),
        ``RuntimeError`` naming the file when it cannot be written. The file
        appears whole or not at all."""
        self._engine.export_fclib(os.fspath(path))

    @_serialized
    def contact_wrench(self, body: str) -> tuple[np.ndarray, np.ndarray]:
        """(force [N], torque [N·m]) the last step's contacts exerted on a
        body or robot link, averaged over the step (impulse / time_step),
        both in world, the torque about where the body frame's origin was
        when the contacts were found (``body_position`` at the step's start,
        where their points are). Zeros before the first step."""
        return self._engine.contact_wrench(body)

    # --- actuation ----------------------------------------------------------
    @property
    def robot_names(self) -> list[str]:
        """Trees with one-dof joints (URDF robots)."""
        return list(self._robot_names)

    def joint_names(self, robot: str) -> list[str]:
        """The actuated (one-dof) joints of a robot, in effort order."""
        self._check_robot(robot)
        return self._engine.joint_names(robot)

    @_serialized
    def joint_positions(self, robot: str) -> np.ndarray:
        """Positions [rad or m] of a robot's one-dof joints, in ``joint_names``
        order (a floating base's pose: ``body_position``, ``body_orientation``)."""
        self._check_robot(robot)
        return self._engine.joint_positions(robot)

    @_serialized
    def joint_velocities(self, robot: str) -> np.ndarray:
        """Velocities [rad/s or m/s] of a robot's one-dof joints, in
        ``joint_names`` order (a floating base's: ``body_velocity``)."""
        self._check_robot(robot)
        return self._engine.joint_velocities(robot)

    @_serialized
    def joint_efforts(self, robot: str) -> np.ndarray:
        """Efforts [N·m or N] the robot's PD controllers and constant efforts
        applied over the last step, in ``joint_names`` order: the implicit PD
        law at the step's end, within its effort limit (impulse / time_step).
        Zero for a joint without either, before the first step and after a
        failed one."""
        self._check_robot(robot)
        return self._engine.joint_efforts(robot)

    def tendon_names(self, robot: str) -> list[str]:
        """The robot's fixed tendons (an MJCF file's ``<tendon><fixed>``),
        each a length L = Σ c_k q_k over its joints."""
        self._check_robot(robot)
        return self._engine.tendon_names(robot)

    @_serialized
    def tendon_lengths(self, robot: str) -> np.ndarray:
        """Lengths L = Σ c_k q_k [m or rad] of the robot's fixed tendons, in
        ``tendon_names`` order."""
        self._check_robot(robot)
        return self._engine.tendon_lengths(robot)

    def actuator_names(self, robot: str) -> list[str]:
        """The robot's actuators (an MJCF file's, in file order), which
        ``set_ctrl`` drives."""
        self._check_robot(robot)
        return self._engine.actuator_names(robot)

    @_serialized
    def set_ctrl(self, robot: str, ctrl) -> None:
        """MuJoCo's ``ctrl`` for the robot's actuators: a sequence in
        ``actuator_names`` order, or a mapping of some of them by name. A
        motor applies gear × ctrl; a servo targets its target per control
        × ctrl (its other target, velocity or position, 0), clamped into its
        ``ctrlrange`` as MuJoCo clamps ctrl. Kept until changed. Checked
        whole first: a wrong count, an unknown name or a control not finite
        raises ``ValueError`` and sets none."""
        self._check_robot(robot)
        if not isinstance(ctrl, Mapping):
            self._engine.set_actuator_controls(
                robot, np.asarray(ctrl, dtype=np.float64).reshape(-1))
            return
        entries = dict(ctrl)
        self._engine.set_actuator_controls_by_name(
            robot, list(entries), np.array([_real(v, f"ctrl['{k}']") for k, v in entries.items()]))

    @_serialized
    def actuator_forces(self, robot: str) -> np.ndarray:
        """Each actuator's force [N or N·m] over the last step, in
        ``actuator_names`` order, as MuJoCo's ``actuator_force``: its
        controller's effort on its joint or tendon (``joint_efforts``) over
        its gear. Zero before the first step and after a failed one."""
        self._check_robot(robot)
        return self._engine.actuator_forces(robot)

    def sensor_names(self, name: str) -> list[str]:
        """The sensors of a robot or free body of an MJCF file (its
        ``<sensor>`` elements that are read, in file order; an unnamed one is
        ``sensor<k>``, k its index among the file's sensors)."""
        self._check_tree(name)
        return self._engine.sensor_names(name)

    @_serialized
    def sensor_data(self, name: str) -> dict[str, np.ndarray]:
        """Each sensor's reading by name, as MuJoCo's ``sensordata`` holds it.
        At the current state: a joint's, tendon's or actuator's position or
        velocity; a site's, geom's or body frame's position, orientation (w
        x y z), axes and velocities, in world or relative to another frame;
        a subtree's centre of mass, its velocity and angular momentum; a
        gyro, a velocimeter in the site's frame; a rangefinder's distance
        (−1 for none); the clock; the scene's potential and kinetic energy.
        Over the last step (0 before the first
        step): actuator forces, touch [N], frame accelerations, the
        accelerometer, force and torque. After MuJoCo's ``mj_step`` its
        sensordata describe the state before the step: compare with
        Coulomb's after ``mj_forward``."""
        self._check_tree(name)
        return dict(zip(self._engine.sensor_names(name),
                        self._engine.sensor_readings(name)))

    @_serialized
    def set_pd_target(self, robot: str, name: str, position: float,
                      velocity: float = 0.0) -> None:
        """The target of one PD controller: a joint's position [rad or m], or a
        fixed tendon's length (``tendon_names``), and velocity; the others
        keep theirs. The controller is the scene's ``controllers``, an MJCF
        actuator, or ``set_pd_gains``'s; the target is clamped into its
        servo's range (an MJCF actuator's ctrlrange times its target per
        control)."""
        self._check_robot(robot)
        names = self.joint_names(robot) + self._engine.tendon_names(robot)
        if name not in names:
            raise KeyError(f"{robot}: no joint or tendon named '{name}' "
                           f"(joints and tendons: {', '.join(names)})")
        self._engine.set_pd_target(robot, name, _real(position, "position"),
                                   _real(velocity, "velocity"))

    @_serialized
    def set_tendon_force(self, robot: str, tendon: str, force: float) -> None:
        """A constant force [N, or N·m for dimensionless coefficients] along
        a fixed tendon, kept until changed: joint k takes c_k times it."""
        self._check_tendon(robot, tendon)
        self._engine.set_joint_effort(robot, tendon, _real(force, "force"))

    def connection_names(self, robot: str) -> list[str]:
        """The connects and welds of a robot or free body (an MJCF file's ``<equality>
        <connect>`` and ``<weld>``), by name (``equality<k>`` for one without,
        k its index among the file's equalities), in file order."""
        self._check_tree(robot)
        return self._engine.connection_names(robot)

    def connection_active(self, robot: str, name: str) -> bool:
        """Whether the connect or weld holds (MuJoCo's ``eq_active``)."""
        self._check_connection(robot, name)
        return self._engine.connection_active(robot, name)

    @_serialized
    def set_connection_active(self, robot: str, name: str, active: bool) -> None:
        """Switches a connect or weld on or off (MuJoCo's ``eq_active``):
        off, it holds nothing; on again, what it held before (a grasp made
        and let go)."""
        self._check_connection(robot, name)
        self._engine.set_connection_active(robot, name, bool(active))

    def connection_frame(self, robot: str, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The frame T (position, quaternion w x y z) of the world that a
        connect or weld to the world holds its body to: the identity at
        load, or the pose of the mocap body it names."""
        self._check_connection(robot, name)
        return self._engine.connection_frame(robot, name)

    @_serialized
    def set_connection_frame(self, robot: str, name: str, position,
                             quaternion=(1.0, 0.0, 0.0, 0.0)) -> None:
        """Moves the world frame T of a connect or weld to the world: its
        body follows, held to T as the file held it to the world (MuJoCo's
        weld to a mocap body whose ``mocap_pos``, ``mocap_quat`` are set).
        With ``relpose="0 0 0 1 0 0 0"`` T is the body's target pose; the
        quaternion is normalized, kept until changed."""
        self._check_connection(robot, name)
        self._engine.set_connection_frame(
            robot, name, *_pose_arrays(f"{robot}: '{name}'", position, quaternion))

    @property
    def mocap_names(self) -> list[str]:
        """The mocap bodies of the scene (an MJCF file's ``<body
        mocap="true">``), by their bodies' names, in file order."""
        return self._engine.mocap_names()

    def mocap_pose(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """A mocap body's pose (position, quaternion w x y z): where its file
        puts it until set (MuJoCo's ``mocap_pos``, ``mocap_quat``)."""
        self._check_mocap(name)
        return self._engine.mocap_pose(name)

    @_serialized
    def set_mocap_pose(self, name: str, position,
                       quaternion=(1.0, 0.0, 0.0, 0.0)) -> None:
        """Moves a mocap body (MuJoCo's ``mocap_pos``, ``mocap_quat``): its
        geoms are there from the next step on (not swept: their velocity is
        zero, as MuJoCo's), and the connects and welds that name it hold their
        bodies to its new frame. The quaternion is normalized, kept until
        changed."""
        self._check_mocap(name)
        self._engine.set_mocap_pose(name,
                                    *_pose_arrays(f"mocap body '{name}'", position,
                                                  quaternion))

    def _check_mocap(self, name: str) -> None:
        names = self.mocap_names
        if name not in names:
            raise KeyError(f"no mocap body named '{name}' "
                           f"(mocap bodies: {', '.join(names) or 'none'})")

    def _check_connection(self, robot: str, name: str) -> None:
        names = self.connection_names(robot)
        if name not in names:
            raise KeyError(f"{robot}: no connect or weld named '{name}' "
                           f"(connections: {', '.join(names) or 'none'})")

    def _check_tendon(self, robot: str, tendon: str) -> None:
        tendons = self.tendon_names(robot)
        if tendon not in tendons:
            raise KeyError(f"{robot}: no tendon named '{tendon}' "
                           f"(tendons: {', '.join(tendons) or 'none'})")

    # --- model-based control ------------------------------------------------
    def _check_tree(self, name: str) -> None:
        if name not in self.body_names:
            raise KeyError(f"no body or robot named '{name}' "
                           f"(the scene has {', '.join(self.body_names) or 'none'})")

    def velocity_slice(self, name: str) -> slice:
        """Where a free body's or robot's velocities sit in ``v`` (and the
        columns of its ``mass_matrix`` and ``point_jacobian``)."""
        self._check_tree(name)
        first, count = self._engine.velocity_range(name)
        return slice(first, first + count)

    def position_slice(self, name: str) -> slice:
        """Where a free body's or robot's positions sit in ``q``."""
        self._check_tree(name)
        first, count = self._engine.position_range(name)
        return slice(first, first + count)

    def joint_slices(self, robot: str) -> tuple[slice, slice]:
        """Where a robot's one-dof joints sit in ``q`` and ``v``, in
        ``joint_names`` order: ``sim.q_view[qs]`` reads its joint positions
        without a copy, as ``joint_positions`` does with one. ValueError for
        a robot whose joints are not consecutive there (a ball joint between
        them)."""
        self._check_robot(robot)
        first_q, first_v, count = self._engine.consecutive_joint_entries(robot)
        return slice(first_q, first_q + count), slice(first_v, first_v + count)

    @_serialized
    def mass_matrix(self, name: str) -> np.ndarray:
        """M(q) of a free body or robot at the current state, with its joints'
        armature: n × n over its velocities (``velocity_slice``); a free
        body's diag(m I, I_B), its v being [ṗ_W, ω_B]."""
        self._check_tree(name)
        return self._engine.mass_matrix(name)

    @_serialized
    def bias_forces(self, name: str) -> np.ndarray:
        """h(q, v) of a free body or robot at the current state, over its
        velocities: M v̇ = τ − h (Coriolis, gyroscopic and gravity terms), so
        τ = h holds its velocities still (a free body's [−m g, ω_B × I_B ω_B])."""
        self._check_tree(name)
        return self._engine.bias_forces(name)

    @_serialized
    def point_jacobian(self, body: str, point: Any) -> np.ndarray:
        """J (3 × n) of a body or robot link at ``point`` [m] in world: the
        world velocity of that point moving with the body is ``J @
        sim.v[sim.velocity_slice(tree)]``, tree the body's free body or
        robot."""
        return self._engine.point_jacobian(body, _vector(point, 3, "point"))

    @_serialized
    def cast_ray(self, origin: Any, direction: Any, exclude: str | None = None
                 ) -> float | None:
        """The distance [m] from ``origin`` along ``direction`` (any nonzero
        length), in world, to the nearest geometry of the scene at the
        current state, or None if the ray meets none (MuJoCo's ``mj_ray``);
        the geometries of body ``exclude`` (a free body, or a robot's link)
        left out. A shape the ray starts inside is met where the ray leaves
        it; a ground plane only from above."""
        return self._engine.cast_ray(_shaped(origin, 3, "origin"),
                                     _shaped(direction, 3, "direction"), exclude or "")

    @_serialized
    def cast_rays(self, origin: Any, directions: Any, exclude: str | None = None
                  ) -> np.ndarray:
        """``cast_ray`` from ``origin`` along each row of ``directions`` (N ×
        3, each of any nonzero length), the scene's poses computed once: a
        lidar's scan (MuJoCo's ``mj_multiRay``). The N distances [m], −1 where
        a ray meets nothing."""
        directions = np.asarray(directions, dtype=float)
        if directions.ndim != 2 or directions.shape[1] != 3:
            raise ValueError(f"directions: expected an N × 3 array, got shape "
                             f"{directions.shape}")
        return self._engine.cast_rays(_shaped(origin, 3, "origin"), directions,
                                      exclude or "")

    @_serialized
    def set_body_wrench(self, name: str, force: Any = (0.0, 0.0, 0.0),
                        torque: Any = (0.0, 0.0, 0.0)) -> None:
        """A wrench on a free body or a robot's floating base at its frame's
        origin (a free body's centroid): force [N] and torque [N·m] in world,
        held fixed in world until changed (zeros remove it)."""
        self._engine.set_body_wrench(name, _shaped(force, 3, "force"),
                                     _shaped(torque, 3, "torque"))

    @_serialized
    def set_joint_efforts(self, robot: str, u: Any) -> None:
        """Efforts [N·m or N] on the robot's joints, kept until changed."""
        self._check_robot(robot)
        self._engine.set_joint_efforts(robot, _numbers(u, "u"))

    @_serialized
    def set_pd_targets(self, robot: str, positions: Any, velocities: Any = None) -> None:
        """Targets of the robot's PD controllers (one per joint, in
        ``joint_names`` order); every joint needs PD gains (the scene's
        ``controllers``)."""
        self._check_robot(robot)
        positions = _numbers(positions, "positions")
        velocities = (np.zeros_like(positions) if velocities is None
                      else _numbers(velocities, "velocities"))
        self._engine.set_pd_targets(robot, positions, velocities)

    @_serialized
    def set_pd_gains(self, robot: str, kp: Any, kd: Any,
                     effort_limit: Any = math.inf) -> None:
        """Gains of the robot's PD controllers, one per joint in
        ``joint_names`` order (a single number: the same for every joint):
        ``kp`` [N·m/rad or N/m] ≥ 0, ``kd`` [N·m·s/rad or N·s/m] ≥ 0 and
        ``effort_limit`` [N·m or N] > 0 (``math.inf``: none), the bound on
        each joint's effort u = kp (q_d − q) + kd (v_d − v) + feedforward.
        A joint's targets stay as they were (zero if it had no controller:
        ``set_pd_targets`` sets them). Every value is checked before any
        joint changes."""
        joints = self.joint_names(robot)
        kp, kd, limits = (self._per_joint(values, len(joints), what) for values, what in
                          ((kp, "kp"), (kd, "kd"), (effort_limit, "effort_limit")))
        for gains, what in ((kp, "kp"), (kd, "kd")):
            if not np.all(np.isfinite(gains) & (gains >= 0)):
                raise ValueError(f"{what}: gains must be finite and ≥ 0, got {gains}")
        if not np.all(limits > 0):  # NaN too
            raise ValueError(f"effort_limit: must be positive (math.inf: no limit), "
                             f"got {limits}")
        for joint, p, d, limit in zip(joints, kp, kd, limits):
            self._engine.set_pd_gains(robot, joint, float(p), float(d), float(limit))

    @_serialized
    def set_joint_friction(self, robot: str, friction: Any) -> None:
        """Dry friction F [N·m or N] ≥ 0 of the robot's one-dof joints, one per
        joint in ``joint_names`` order (a single number: the same for every
        joint), replacing what the scene's ``joint_friction`` or the model
        file gave them; 0 removes it. A joint sticks while the other torques
        on it stay below F, implicitly in the solve. Every value is checked
        before any joint changes; a snapshot keeps them."""
        joints = self.joint_names(robot)
        friction = self._per_joint(friction, len(joints), "friction")
        if not np.all(np.isfinite(friction) & (friction >= 0)):
            raise ValueError(f"friction: must be finite and ≥ 0, got {friction}")
        for joint, value in zip(joints, friction):
            self._engine.set_joint_friction(robot, joint, float(value))

    @_serialized
    def joint_friction(self, robot: str) -> np.ndarray:
        """Dry friction [N·m or N] of the robot's one-dof joints, in
        ``joint_names`` order (0: none)."""
        self._check_robot(robot)
        return self._engine.joint_frictions(robot)

    @staticmethod
    def _per_joint(values: Any, size: int, what: str) -> np.ndarray:
        """A number for every joint, or one per joint."""
        array = np.asarray(values, dtype=np.float64)
        if array.ndim == 0:
            return np.full(size, array)
        if array.shape != (size,):
            raise ValueError(f"{what}: expected a number or shape ({size},), got {array.shape}")
        return array

    def _check_robot(self, robot: str) -> None:
        if robot not in self._robots:
            robots = ", ".join(self.robot_names) or "none: the scene has no robots"
            raise KeyError(f"no robot named '{robot}' (robots: {robots})")

    @_serialized
    def summary(self) -> dict:
        """Statistics of every step so far (the keys of ``coulomb run --json``)."""
        return json.loads(self._engine.whole_summary())

    @_serialized
    def save(self, directory: str) -> None:
        """Writes everything recorded so far as ``coulomb run --out`` does:
        ``directory/trajectory.h5`` and ``stats.json`` (created if missing).
        ``coulomb view directory`` then plays it in the browser."""
        self._engine.save_run(str(directory))


def _yaml_numbers(value: Any) -> Any:
    """The scene with infinite and NaN floats spelled as YAML spells them."""
    if isinstance(value, Mapping):
        return {key: _yaml_numbers(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_yaml_numbers(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    return value


def _json_default(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"cannot put {type(value).__name__} in a scene")
