"""Boxes dropped on height fields of growing size, in Coulomb and in MuJoCo.

The same 40 boxes fall on the same hills (cells of 5 cm, the hills a
function of the position, so that the boxes meet the same surface) on
fields of n × n elevations, n = 32 … 192 (1.6 m to 9.6 m across, 1 922 to
72 962 prisms): the boxes only ever touch the middle 1.5 m × 1.5 m, so a time
per step that grows with n is what the rest of the field costs. Each size
runs as one MJCF file loaded by each engine (bench/peers/mjcf_side_by_side.py:
alternating rounds, the fastest kept; MuJoCo's Newton solver with elliptic
cones at tolerance 1e-8, Coulomb's SAP at ε_r = 1e-6 with every step
certified).

    make bench-terrain
    PYTHONPATH=build/python .venv/bin/python bench/peers/terrain_sizes.py [--sizes 32 64]
"""

import argparse
import math
import os
import tempfile

from mjcf_side_by_side import run_coulomb, run_mujoco

CELL = 0.05  # m between elevations
HEIGHT = 0.3  # m, the highest elevation above the lowest
BASE = 0.1  # m below the lowest elevation


def elevation(x, y):
    """Hills of 1.2 m wavelength, in [0.1, 0.9] (normalized by both engines)."""
    return 0.5 + 0.4 * math.sin(2 * math.pi * x / 1.2) * math.cos(2 * math.pi * y / 1.2)


def field_rows(n):
    """n rows of n elevations, MJCF's order (the first row along +y); the
    lowest and highest corner set to 0 and 1, so that the normalization to
    [0, 1] the engines apply leaves every size's hills alike."""
    half = 0.5 * CELL * (n - 1)
    rows = []
    for r in range(n):
        y = half - r * CELL
        rows.append([elevation(-half + c * CELL, y) for c in range(n)])
    rows[0][0], rows[-1][-1] = 0.0, 1.0
    return rows


def scene_xml(n):
    half = 0.5 * CELL * (n - 1)
    values = "\n".join(" ".join(f"{v:.4f}" for v in row) for row in field_rows(n))
    boxes = []
    for k in range(40):
        x = -0.75 + 0.375 * (k % 5)
        y = -0.7 + 0.2 * (k // 5)
        z = 0.6 + 0.05 * (k % 3)
        boxes.append(
            f'    <body name="box{k}" pos="{x:.3f} {y:.3f} {z:.3f}" euler="{7 * k % 90} {11 * k % 90} 0">'
            '<freejoint/><geom type="box" size="0.05 0.04 0.03"/></body>')
    return f"""<mujoco model="terrain {n}x{n}">
  <option timestep="0.005"/>
  <asset>
    <hfield name="hills" nrow="{n}" ncol="{n}" size="{half} {half} {HEIGHT} {BASE}" elevation="
{values}"/>
  </asset>
  <worldbody>
    <geom type="hfield" hfield="hills" friction="0.8"/>
{chr(10).join(boxes)}
  </worldbody>
</mujoco>
"""


def best_of_rounds(path, duration, rounds):
    best = {}
    for _ in range(rounds):
        for name, run in (("coulomb", run_coulomb), ("mujoco", run_mujoco)):
            result = run(path, duration)
            if name not in best or result["ms_per_step"] < best[name]["ms_per_step"]:
                best[name] = result
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[32, 64, 128, 192],
                        help="elevations per side of each field")
    parser.add_argument("--duration", type=float, default=2.0, help="simulated seconds")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    args = parser.parse_args()
    print(f"40 boxes on n × n height fields (cells of {CELL * 100:g} cm), "
          f"{args.duration:g} s, fastest of {args.rounds} alternating rounds")
    print("| n | prisms | Coulomb ms/step | MuJoCo ms/step | Coulomb / MuJoCo | "
          "iterations C / M | contacts (max) C / M | max e_m C |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for n in args.sizes:
            path = os.path.join(folder, f"terrain_{n}.xml")
            with open(path, "w") as file:
                file.write(scene_xml(n))
            best = best_of_rounds(path, args.duration, args.rounds)
            c, m = best["coulomb"], best["mujoco"]
            print(f"| {n} | {2 * (n - 1) ** 2} | {c['ms_per_step']:.3f} | "
                  f"{m['ms_per_step']:.3f} | {c['ms_per_step'] / m['ms_per_step']:.2f} | "
                  f"{c['iterations']:.2f} / {m['iterations']:.2f} | "
                  f"{c['contacts']} / {m['contacts']} | {c['momentum_error']:.1e} |",
                  flush=True)


if __name__ == "__main__":
    main()
