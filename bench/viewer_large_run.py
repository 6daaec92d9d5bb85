"""Writes a synthetic run for the viewer's scale benchmark: N spheres on a
grid, each bobbing on its own sine for T frames, with one contact per
frame, in the layout of `coulomb run --out` (trajectory.h5 and
stats.json; README, "Run output"). No physics: only the file's size and
shape matter here.

    .venv/bin/python bench/viewer_large_run.py DIR [--bodies 1000] [--frames 100000]
"""

import argparse
import json
import pathlib

import h5py
import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=pathlib.Path)
    parser.add_argument("--bodies", type=int, default=1000)
    parser.add_argument("--frames", type=int, default=100_000)
    args = parser.parse_args()
    n, frames, dt = args.bodies, args.frames, 0.01
    args.directory.mkdir(parents=True, exist_ok=True)
    side = int(np.ceil(np.sqrt(n)))
    grid = np.stack([np.arange(n) % side, np.arange(n) // side], axis=1) * 0.25
    phase = np.linspace(0, 2 * np.pi, n, endpoint=False)
    time = np.arange(frames) * dt
    with h5py.File(args.directory / "trajectory.h5.partial", "w") as f:
        f["time"] = time
        f["geometry/shape_names"] = np.array(
            ["sphere", "box", "capsule", "cylinder", "halfspace", "mesh"], dtype=h5py.string_dtype())
        f["geometry/shape"] = np.array([4] + [0] * n, dtype=np.int64)
        sizes = np.zeros((n + 1, 3))
        sizes[1:, 0] = 0.1
        f["geometry/size"] = sizes
        f["geometry/body"] = np.array(["world"] + [f"ball_{i}" for i in range(n)],
                                      dtype=h5py.string_dtype())
        f["geometry/mesh_vertices"] = np.zeros((0, 3))
        f["geometry/mesh_triangles"] = np.zeros(0, dtype=np.int64)
        f["geometry/mesh_vertex_offsets"] = np.zeros(n + 2, dtype=np.int64)
        f["geometry/mesh_triangle_offsets"] = np.zeros(n + 2, dtype=np.int64)
        poses = f.create_dataset("geometry/poses", (frames, 7 * (n + 1)), dtype="f8")
        # Sample s ≥ 1 has one contact: the first ball on the ground.
        f["contacts/offsets"] = np.concatenate([[0], np.arange(frames)]).astype(np.int64)
        contacts = frames - 1
        f["contacts/geometry_a"] = np.zeros(contacts, dtype=np.int64)
        f["contacts/geometry_b"] = np.ones(contacts, dtype=np.int64)
        f["contacts/point"] = np.tile([0.0, 0.0, 0.0], (contacts, 1))
        f["contacts/normal"] = np.tile([0.0, 0.0, 1.0], (contacts, 1))
        f["contacts/impulse"] = np.tile([0.0, 0.0, 0.01], (contacts, 1))
        f["contacts/depth"] = np.zeros(contacts)
        block = 1000
        for start in range(0, frames, block):
            t = time[start:start + block, None]
            rows = np.zeros((len(t), 7 * (n + 1)))
            rows[:, 3] = 1.0  # the ground's identity pose
            x = rows[:, 7:].reshape(len(t), n, 7)
            x[:, :, 0:2] = grid
            x[:, :, 2] = 0.1 + 0.1 * (1 + np.sin(2 * np.pi * t + phase))
            x[:, :, 3] = 1.0
            poses[start:start + len(t)] = rows
    (args.directory / "trajectory.h5.partial").rename(args.directory / "trajectory.h5")
    (args.directory / "stats.json").write_text(json.dumps({
        "scene": "synthetic", "time_step": dt, "steps": frames - 1,
        "per_step": [{"time": float(t), "iterations": 1, "momentum_error": 1e-8,
                      "contacts": n, "penetration_max": 0.0, "energy": 1.0} for t in time[1:]]}))
    print(f"wrote {args.directory}: {frames} frames, {n} spheres")


if __name__ == "__main__":
    main()
