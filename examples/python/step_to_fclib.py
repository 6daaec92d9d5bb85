"""A simulation step's contact problem written as an FCLIB file and solved
by each of Coulomb's rigid-contact solvers: the clutter lands for a second,
then its last step's rigid Signorini–Coulomb NCP goes to OUT/step.hdf5
(default: a temporary folder), which Siconos and `coulomb solve` read too.

    python examples/python/step_to_fclib.py [OUT]
"""

import pathlib
import sys
import tempfile

import coulomb


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    sim = coulomb.Simulation.from_builtin("clutter", bodies=20)
    sim.run(1.0, record=False)
    path = out / "step.hdf5"
    sim.export_fclib(path)
    print(f"{path}: {len(sim.contacts()['depth'])} contacts at t = {sim.time:.2f} s")
    print(f"{'solver':24} {'converged':>9} {'iterations':>10} {'ncp residual':>13} {'ms':>8}")
    runs = [("canal", {}), ("canal, then ADMM", {"fallback_iterations": 10000}),
            ("subadmm", {}), ("pgs", {})]
    for name, options in runs:
        result = coulomb.solve(path, solver=name.split(",")[0], **options)
        print(f"{name:24} {str(result.converged):>9} {result.iterations:>10} "
              f"{result.ncp_residual:>13.2e} {1e3 * result.wall_time_s:>8.1f}")


if __name__ == "__main__":
    main()
