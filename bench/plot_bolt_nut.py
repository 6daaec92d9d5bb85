"""The nut on the bolt (AL §VII-A1 scene, `coulomb run bolt_nut`): what SDF
contact gives, measured through the Python package.

1. Self-locking: the nut settles on the flanks (50 ms), then its descent
   over the next 0.3 s against the friction coefficient μ, beside the
   self-locking threshold tan λ cos 30° ≈ 0.031 of a 60° thread (λ the lead
   angle at the pitch radius), and the frictionless screw's closed form
   ½ a t², a = g / (1 + (I_zz/m)(2π/P)²).
2. Screw kinematics: under a torque about the axis, the nut's height
   against its turn, beside one pitch per turn.

usage: PYTHONPATH=build/python plot_bolt_nut.py OUTPUT_PREFIX
writes OUTPUT_PREFIX_friction.png and OUTPUT_PREFIX_screw.png and prints
the measurements as Markdown.
"""
import math
import sys

import matplotlib
import numpy as np

import coulomb

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PITCH = 0.005  # M48 coarse
PITCH_RADIUS = 0.024 - 3 / 8 * math.sqrt(3) / 2 * PITCH
SELF_LOCKING = PITCH / (2 * math.pi * PITCH_RADIUS) * math.cos(math.pi / 6)
SETTLE, WINDOW = 0.05, 0.3


def yaw(quaternion):
    """Rotation about z of a quaternion [w, x, y, z] (the nut stays upright)."""
    w, x, y, z = quaternion
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def follow(sim, duration):
    """Steps for `duration`; returns the nut's height and unwrapped turn per step."""
    heights, turns, last = [], [], yaw(sim.body_orientation("nut"))
    turn = 0.0
    for _ in range(round(duration / sim.time_step)):
        sim.step()
        now = yaw(sim.body_orientation("nut"))
        turn += math.remainder(now - last, 2 * math.pi)
        last = now
        heights.append(sim.body_position("nut")[2])
        turns.append(turn)
    return np.array(heights), np.array(turns)


def descent(friction):
    """The descent over the window, and the run's max e_m and penetration."""
    sim = coulomb.Simulation.from_builtin("bolt_nut", friction=friction)
    follow(sim, SETTLE)
    heights, _ = follow(sim, WINDOW)
    summary = sim.summary()
    return heights[0] - heights[-1], summary["momentum_error_max"], summary["penetration_max"]


def nut_inertia_per_mass():
    """I_zz/m of the M48 nut (ISO 4032: 75 mm across flats) from the closed
    forms of its parts: the hexagonal prism (apothem a: area 2√3 a², polar
    moment 10√3/9 a⁴) minus the threaded hole (per unit length π⟨R²⟩ and
    π/2 ⟨R⁴⟩ over the trapezoid wave of the ISO profile)."""
    a, major = 0.0375, 0.024
    minor = major - 5 / 8 * math.sqrt(3) / 2 * PITCH

    def mean_power(n):  # ⟨Rⁿ⟩: crest 1/8, root 1/4, flanks 5/8 linear
        ramp = (major ** (n + 1) - minor ** (n + 1)) / ((n + 1) * (major - minor))
        return major**n / 8 + minor**n / 4 + 5 / 8 * ramp

    area = 2 * math.sqrt(3) * a**2 - math.pi * mean_power(2)
    polar = 10 * math.sqrt(3) / 9 * a**4 - math.pi / 2 * mean_power(4)
    return polar / area


def frictionless_descent():
    """½ a t² over the window, with a = g / (1 + (I_zz/m)(2π/P)²)."""
    a = 9.81 / (1 + nut_inertia_per_mass() * (2 * math.pi / PITCH) ** 2)
    return a, 0.5 * a * ((SETTLE + WINDOW) ** 2 - SETTLE**2)


def main(prefix):
    frictions = [0.0, 0.01, 0.02, 0.025, 0.03, 0.035, 0.04, 0.06]
    runs = [descent(mu) for mu in frictions]
    drops = [run[0] for run in runs]
    a, predicted = frictionless_descent()
    print("| μ | descent over 0.3 s [mm] | max e_m | max penetration [m] |\n|---|---|---|---|")
    for mu, (drop, momentum_error, penetration) in zip(frictions, runs):
        print(f"| {mu:g} | {1e3 * drop:.4f} | {momentum_error:.1e} | {penetration:.1e} |")
    print(f"\nfrictionless closed form: a = {a:.4g} m/s², descent {1e3 * predicted:.4f} mm; "
          f"self-locking μ = {SELF_LOCKING:.4f}")

    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(frictions, 1e3 * np.array(drops), "o-", label="simulated (SAP, δt = 1 ms)")
    axes.axvline(SELF_LOCKING, color="gray", linestyle="--",
                 label=f"self-locking tan λ cos 30° = {SELF_LOCKING:.3f}")
    axes.plot([0.0], [1e3 * predicted], "k*", markersize=12,
              label="frictionless screw, closed form")
    axes.set_xlabel("friction coefficient μ")
    axes.set_ylabel("descent over 0.3 s [mm]")
    axes.set_title("M48 nut on its bolt under gravity")
    axes.legend()
    figure.tight_layout()
    figure.savefig(f"{prefix}_friction.png", dpi=120)

    sim = coulomb.Simulation.from_builtin("bolt_nut", torque=0.3)
    heights, turns = follow(sim, 0.5)
    steady = turns > turns[-1] * 0.3
    slope = np.polyfit(turns[steady], heights[steady], 1)[0]
    print(f"\nunder 0.3 N·m: {turns[-1] / (2 * math.pi):.2f} turns in 0.5 s, "
          f"rise per turn {2e3 * math.pi * slope:.4f} mm (pitch {1e3 * PITCH:g} mm)")
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(turns / (2 * math.pi), 1e3 * heights, label="simulated nut")
    axes.plot(turns / (2 * math.pi), 1e3 * (heights[steady][0] + PITCH / (2 * math.pi) *
                                           (turns - turns[steady][0])),
              "k--", label="one pitch (5 mm) per turn")
    axes.set_xlabel("turns")
    axes.set_ylabel("height [mm]")
    axes.set_title("M48 nut turned by 0.3 N·m (μ = 0.15)")
    axes.legend()
    figure.tight_layout()
    figure.savefig(f"{prefix}_screw.png", dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
