"""A friction sweep: a box launched at 1 m/s on the ground, for several μ;
the stopping distance against Coulomb's v0²/(2 μ g), plotted to a PNG.

    python examples/python/friction_sweep.py [OUTPUT_DIR]
"""

import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import coulomb  # noqa: E402

G, V0 = 9.81, 1.0


def stopping_distance(mu):
    sim = coulomb.Simulation.from_dict({
        "time_step": 1e-3,
        "contact": {"friction": mu},
        "bodies": [
            {"name": "ground", "shape": {"halfspace": {}}, "fixed": True},
            {"name": "box", "shape": {"box": {"size": [0.2, 0.2, 0.1]}}, "mass": 1.0,
             "pose": {"position": [0, 0, 0.05]}, "velocity": {"linear": [V0, 0, 0]}},
        ],
    })
    trajectory = sim.run(V0 / (mu * G) + 0.05)  # past the stop
    return trajectory.positions["box"][-1, 0]


def main():
    output = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    output.mkdir(parents=True, exist_ok=True)
    frictions = [0.2, 0.3, 0.5, 0.7, 1.0]
    measured = [stopping_distance(mu) for mu in frictions]
    expected = [V0**2 / (2 * mu * G) for mu in frictions]
    for mu, d, e in zip(frictions, measured, expected):
        print(f"mu = {mu:.1f}: stops after {d:.4f} m (Coulomb: {e:.4f} m, {100 * (d / e - 1):+.2f} %)")
    figure, axes = plt.subplots(figsize=(5, 3.5))
    axes.plot(frictions, expected, "k-", label="v0² / (2 μ g)")
    axes.plot(frictions, measured, "o", label="Coulomb (SAP, δt = 1 ms)")
    axes.set_xlabel("friction coefficient μ")
    axes.set_ylabel("stopping distance [m]")
    axes.legend()
    figure.tight_layout()
    figure.savefig(output / "friction_sweep.png", dpi=120)
    print(f"wrote {output / 'friction_sweep.png'}")


if __name__ == "__main__":
    main()
