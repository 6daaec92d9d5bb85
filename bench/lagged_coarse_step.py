"""The contact models in the 40-body walled clutter at coarse and fine time
steps: how deep bodies sink into each other, how fast they spin, whether a
contact's friction stays within μ times the same step's normal impulse (the
strong coupling of IRR Table I), and the largest rise of the energy (kinetic
and gravitational; a compliant contact's stored elastic energy is not in it)
in one step, with the contact whose impulse did the most work in that step.
Each run is `coulomb run clutter --model M --set stiffness=K --dt S
--duration 3 --out DIR`, read back from DIR/trajectory.h5.

    .venv/bin/python bench/lagged_coarse_step.py [--coulomb build/coulomb]
"""

import argparse
import subprocess
import tempfile

import h5py
import numpy as np

RUNS = [(model, stiffness, dt) for model in ("sap", "similar", "lagged")
        for stiffness in (1e7, 1e10) for dt in (0.01, 0.005, 0.002)
        if model != "sap" or stiffness == 1e10]
FRICTION = 1.0  # μ of every clutter pair
DURATION = 3.0  # [s]: the columns' fall, landing and settling


def power_of_ten(value):
    return f"1e{round(np.log10(value))}"


def names(dataset):
    return [x.decode() if isinstance(x, bytes) else x for x in dataset[:]]


def contact_work(f, sample):
    """Per contact of the step that ends at `sample` (the trajectory keeps a
    step's contacts with its end sample; they were found at sample − 1):
    γ · (v_B(p) − v_A(p)) at the step's end velocities, the work of its
    impulse, and the normal part of that velocity (> 0 separating); and the
    step's first contact's index."""
    bodies = set(names(f["bodies/names"]))
    owner = names(f["geometry/body"])
    begin, end = f["contacts/offsets"][sample], f["contacts/offsets"][sample + 1]

    def velocity(body, point):
        if body not in bodies:
            return np.zeros(3)
        g = f[f"bodies/{body}"]
        return (g["linear_velocity"][sample]
                + np.cross(g["angular_velocity"][sample], point - g["position"][sample - 1]))

    work, normal_velocity = [], []
    for j in range(begin, end):
        point, impulse = f["contacts/point"][j], f["contacts/impulse"][j]
        a, b = owner[f["contacts/geometry_a"][j]], owner[f["contacts/geometry_b"][j]]
        relative = velocity(b, point) - velocity(a, point)
        work.append(impulse @ relative)
        normal_velocity.append(f["contacts/normal"][j] @ relative)
    return np.array(work), np.array(normal_velocity), begin


def analyse(path):
    with h5py.File(path) as f:
        impulse, normal = f["contacts/impulse"][:], f["contacts/normal"][:]
        gamma_n = (impulse * normal).sum(axis=1)
        gamma_t = np.linalg.norm(impulse - gamma_n[:, None] * normal, axis=1)
        beyond = gamma_t > FRICTION * gamma_n + 1e-12 * (1 + np.linalg.norm(impulse, axis=1))
        without_normal = gamma_t[gamma_n <= 0.0]
        spins = [np.linalg.norm(f[f"bodies/{b}/angular_velocity"][:], axis=1).max()
                 for b in names(f["bodies/names"])]
        rise = np.diff(f["steps/energy"][:])  # steps/energy[i]: at sample i + 1
        sample = int(np.argmax(rise)) + 2  # where the largest rise ends
        row = dict(penetration=f["steps/penetration_max"][:].max(), spin=max(spins),
                   touching=int((gamma_n > 0).sum()), beyond=int(beyond.sum()),
                   friction_without_normal=without_normal.max(initial=0.0),
                   rise=rise.max(), rise_time=f["time"][sample])
        if rise.max() > 1.0:
            work, normal_velocity, begin = contact_work(f, sample)
            k = int(np.argmax(work))
            j = begin + k
            row["worker"] = (work[k], f["contacts/depth"][j], gamma_n[j], gamma_t[j],
                             normal_velocity[k])
        return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--coulomb", default="build/coulomb")
    args = parser.parse_args()
    print("| model | k [N/m] | δt [ms] | penetration max [mm] | spin max [rad/s] "
          "| contact-steps pushing (γ_n > 0) | contact-steps with ‖γ_t‖ > μ γ_n "
          "| largest ‖γ_t‖ where γ_n = 0 [N·s] "
          "| largest energy rise in a step [J] |")
    print("|---|---|---|---|---|---|---|---|---|")
    notes = []
    with tempfile.TemporaryDirectory() as work:
        for model, stiffness, dt in RUNS:
            out = f"{work}/{model}-{stiffness:g}-{dt:g}"
            subprocess.run([args.coulomb, "run", "clutter", "--model", model, "--set",
                            f"stiffness={stiffness:g}", "--dt", f"{dt}", "--duration",
                            f"{DURATION}", "--out", out], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            r = analyse(f"{out}/trajectory.h5")
            print(f"| {model} | {power_of_ten(stiffness)} | {1e3 * dt:g} | {1e3 * r['penetration']:.1f} "
                  f"| {r['spin']:.0f} | {r['touching']} | {r['beyond']} "
                  f"| {r['friction_without_normal']:.3g} | {r['rise']:.3g} |", flush=True)
            if "worker" in r:
                work_done, depth, gn, gt, vn = r["worker"]
                notes.append(f"{model}, k = {power_of_ten(stiffness)}, δt = {1e3 * dt:g} ms: "
                             f"+{r['rise']:.3g} J in the step ending at t = "
                             f"{r['rise_time']:.2f} s; the contact whose impulse did the "
                             f"most work ({work_done:.3g} J) overlapped by "
                             f"{1e3 * depth:.1f} mm at the step's start and pushed with "
                             f"γ_n = {gn:.4g} N·s (‖γ_t‖ = {gt:.4g} N·s) while "
                             f"separating at {vn:.3g} m/s.")
    for note in notes:
        print(f"\n{note}")


if __name__ == "__main__":
    main()
