"""What stepping loose bodies in closed form buys: a pile of objects, each
a box with a cap welded to it (two bodies, one rigid object, its centre of
mass off its frame's origin), run in the free bodies' closed form and again
on the general path of a robot's tree.

Writes one MJCF file (64 objects dropped at random orientations from a
4 × 4 × 4 lattice onto the ground, δt = 10 ms). Each object is a loose body:
a 1 kg box of 8 × 10 × 6 cm whose geom lies (2.2, −1.1, 0) cm from its
body's origin, and a child body without a joint, welded 4 cm above it,
holding a 0.2 kg cap of 6 × 6 × 2 cm. Coulomb steps each object in the free
bodies' closed form (MultibodyTree's FreeBodyState: Newton–Euler about the
composite's centre of mass, M = Tᵀ diag(m I, I_B) T), and again with
`closed_form=False`, which steps the same model through Pinocchio's CRBA and
RNEA (point Jacobians from the joints'), the same physics. Both run for the
same simulated time in alternating rounds with MuJoCo on the same file (its
Newton solver, elliptic cones, tolerance 1e-8, as `make bench-peers` runs
it); each keeps its fastest round. Printed: ms per step, the share of
Coulomb's step in problem assembly, Newton iterations per step, contacts,
Coulomb's largest e_m, and how far apart the two Coulomb runs end (the same
physics in two sums of the same terms: round-off, grown by the pile's
collisions).

    make bench-loose-bodies
    PYTHONPATH=build/python .venv/bin/python bench/loose_bodies.py [--bodies N]
"""

import argparse
import math
import os
import random
import tempfile

import numpy as np

from peers.mjcf_side_by_side import run_coulomb, run_mujoco

COM_OFFSET = (0.022, -0.011, 0.0)  # the geom's centre in its body's frame [m]
HALF_SIZE = (0.04, 0.05, 0.03)  # [m]
SPACING = 0.2  # lattice pitch [m]: no two boxes overlap at any orientation


def pile(bodies):
    """The pile's MJCF text."""
    rng = random.Random(1)
    side = 4
    lines = []
    for i in range(bodies):
        x = (i % side - 1.5) * SPACING
        y = ((i // side) % side - 1.5) * SPACING
        z = 0.12 + SPACING * (i // (side * side))
        q = [rng.gauss(0.0, 1.0) for _ in range(4)]
        norm = math.sqrt(sum(c * c for c in q))
        quat = " ".join(f"{c / norm:.6f}" for c in q)
        cap = (f'<body name="cap{i}" pos="0 0 0.04"><geom type="box" size="0.03 0.03 0.01" '
               f'mass="0.2"/></body>')
        lines.append(
            f'<body name="box{i}" pos="{x:.4f} {y:.4f} {z:.4f}" quat="{quat}"><freejoint/>'
            f'<geom type="box" size="{" ".join(map(str, HALF_SIZE))}" '
            f'pos="{" ".join(map(str, COM_OFFSET))}" mass="1"/>{cap}</body>')
    body_text = "\n    ".join(lines)
    return (f'<mujoco model="offset_pile"><option timestep="0.01"/><worldbody>\n'
            f'    <geom name="floor" type="plane" size="2 2 0.1"/>\n    {body_text}\n'
            f'  </worldbody></mujoco>\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bodies", type=int, default=64, help="boxes in the pile")
    parser.add_argument("--duration", type=float, default=3.0, help="simulated seconds")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "pile.xml")
        with open(path, "w") as f:
            f.write(pile(args.bodies))
        runs = (("Coulomb, closed form", run_coulomb),
                ("Coulomb, general path (closed_form=False)",
                 lambda p, d: run_coulomb(p, d, closed_form=False)),
                ("MuJoCo", run_mujoco))
        best = {}
        for _ in range(args.rounds):
            for name, run in runs:
                result = run(path, args.duration)
                if name not in best or result["ms_per_step"] < best[name]["ms_per_step"]:
                    best[name] = result
    print(f"{args.bodies} capped boxes (two welded bodies each), {args.duration:g} s, "
          f"fastest of {args.rounds} alternating rounds")
    print("| engine | ms/step | assembly [%] | iterations/step | contacts (max) |")
    print("|---|---|---|---|---|")
    for name, r in best.items():
        share = f"{100 * r['assembly_share']:.1f}" if "assembly_share" in r else "—"
        print(f"| {name} | {r['ms_per_step']:.4f} | {share} | {r['iterations']:.2f} | "
              f"{r['contacts']} |")
    closed, general = (best[name] for name, _ in runs[:2])
    mujoco_ms = best["MuJoCo"]["ms_per_step"]
    print(f"closed form / general path: {closed['ms_per_step'] / general['ms_per_step']:.2f}; "
          f"Coulomb / MuJoCo: {closed['ms_per_step'] / mujoco_ms:.2f} (closed form), "
          f"{general['ms_per_step'] / mujoco_ms:.2f} (general path); Coulomb's max e_m "
          f"{max(closed['momentum_error'], general['momentum_error']):.1e}; the two Coulomb "
          f"runs end {np.abs(closed['q'] - general['q']).max():.1e} apart (largest |Δq|)")


if __name__ == "__main__":
    main()
