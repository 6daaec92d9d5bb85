"""An FCLIB problem solved by each of Coulomb's solvers, with the FCLIB
natural-map residual of every answer (computed from the file's matrices).

    python examples/python/fclib_solvers.py [PROBLEM.hdf5]
"""

import pathlib
import sys

import coulomb

DEFAULT = pathlib.Path(__file__).resolve().parents[2].parent / "shared" / "fclib" / \
    "Box_Stacks-i0122-82-5.hdf5"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else str(DEFAULT)
    print(f"{path}")
    print(f"{'solver':16} {'converged':>9} {'iterations':>10} {'ncp residual':>13} {'ms':>8}")
    for solver in ("sap", "canal", "subadmm", "pgs"):
        result = coulomb.solve(path, solver=solver, max_iterations=2000)
        print(f"{solver:16} {str(result.converged):>9} {result.iterations:>10} "
              f"{result.ncp_residual:>13.2e} {1e3 * result.wall_time_s:>8.1f}")
    print("SAP solves the regularized (compliant) problem: its residual is the distance "
          "to the rigid one.")


if __name__ == "__main__":
    main()
