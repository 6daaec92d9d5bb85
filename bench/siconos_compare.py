#!/usr/bin/python3
"""Siconos NSGS and PROX on the FCLIB problems, with the error measure of
`coulomb solve` (FCLIB natural-map residual ÷ max(‖q‖, ‖r‖, ‖u‖)).

Run with Debian's Python (python3-siconos, python3-h5py, python3-scipy):
    /usr/bin/python3 bench/siconos_compare.py ../shared/fclib [--max-iter N] [--tol X]
Each (problem, solver) runs in its own process (some Siconos solvers abort);
global problems are condensed to the local form W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w,
which Siconos's fc3d solvers take. Prints a Markdown table.
"""
import argparse
import json
import os
import subprocess
import sys
import time

SOLVERS = ["NSGS", "PROX"]


def read_sparse(group, rows, cols):
    import numpy as np
    import scipy.sparse as sp
    nz = int(group["nz"][()].item() if hasattr(group["nz"][()], "item") else group["nz"][()])
    p = np.asarray(group["p"][()], dtype=np.int64).ravel()
    i = np.asarray(group["i"][()], dtype=np.int64).ravel()
    x = np.asarray(group["x"][()], dtype=np.float64).ravel()
    if nz == -2:  # rows compressed
        return sp.csr_matrix((x[: p[rows]], i[: p[rows]], p[: rows + 1]), shape=(rows, cols))
    if nz == -1:  # columns compressed
        return sp.csc_matrix((x[: p[cols]], i[: p[cols]], p[: cols + 1]), shape=(rows, cols))
    return sp.coo_matrix((x[:nz], (i[:nz], p[:nz])), shape=(rows, cols)).tocsr()


def load_local(path):
    """(W dense, q, mu) of the file, condensing global problems."""
    import h5py
    import numpy as np
    import scipy.sparse.linalg as spla
    with h5py.File(path, "r") as f:
        if "fclib_local" in f:
            root = f["fclib_local"]
            mu = np.asarray(root["vectors/mu"][()]).ravel()
            size = 3 * mu.size
            w = read_sparse(root["W"], size, size).toarray()
            q = np.asarray(root["vectors/q"][()]).ravel()
            return w, q, mu
        root = f["fclib_global"]
        mu = np.asarray(root["vectors/mu"][()]).ravel()
        size = 3 * mu.size
        force = np.asarray(root["vectors/f"][()]).ravel()
        dofs = force.size
        m = read_sparse(root["M"], dofs, dofs).tocsc()
        h = read_sparse(root["H"], dofs, size).tocsc()
        w_offset = np.asarray(root["vectors/w"][()]).ravel()
        lu = spla.splu(m)
        m_inv_h = lu.solve(h.toarray())
        return h.T @ m_inv_h, h.T @ lu.solve(force) + w_offset, mu


def project_cone(x, mu):
    import numpy as np
    n, t = x[0], x[1:]
    slip = np.linalg.norm(t)
    if slip <= mu * n:
        return x
    if mu * slip <= -n:
        return np.zeros(3)
    normal = (n + mu * slip) / (1 + mu * mu)
    return np.concatenate(([normal], mu * normal * t / slip))


def natural_map_residual(w, q, mu, r):
    """‖r − Π_K(r − û)‖ ÷ max(‖q‖, ‖r‖, ‖u‖), û = u + [μ‖u_T‖, 0, 0]."""
    import numpy as np
    u = w @ r + q
    squared = 0.0
    for c in range(mu.size):
        rc, uc = r[3 * c:3 * c + 3], u[3 * c:3 * c + 3].copy()
        uc[0] += mu[c] * np.linalg.norm(uc[1:])
        squared += np.sum((rc - project_cone(rc - uc, mu[c])) ** 2)
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return np.sqrt(squared) / (scale if scale > 0 else 1.0)


def solve_one(path, solver, max_iter, tol):
    import numpy as np
    import siconos.numerics as sn
    w, q, mu = load_local(path)
    problem = sn.FrictionContactProblem(3, w, q, mu)
    options = sn.SolverOptions(getattr(sn, "SICONOS_FRICTION_3D_" + solver))
    options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = max_iter
    options.dparam[sn.SICONOS_DPARAM_TOL] = tol
    r, u = np.zeros(q.size), np.zeros(q.size)
    function = {"NSGS": sn.fc3d_nsgs, "PROX": sn.fc3d_proximal}[solver]
    start = time.perf_counter()
    info = function(problem, r, u, options)
    elapsed = time.perf_counter() - start
    print(json.dumps({"info": int(info), "iterations": int(options.iparam[sn.SICONOS_IPARAM_ITER_DONE]),
                      "siconos_error": float(options.dparam[sn.SICONOS_DPARAM_RESIDU]),
                      "residual": float(natural_map_residual(w, q, mu, r)),
                      "time_s": elapsed}))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("--max-iter", type=int, default=10000)
    parser.add_argument("--tol", type=float, default=1e-9)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--one", nargs=2, metavar=("FILE", "SOLVER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        solve_one(args.one[0], args.one[1], args.max_iter, args.tol)
        return
    files = sorted(f for f in os.listdir(args.directory) if f.endswith(".hdf5"))
    print("| problem | solver | converged | iterations | ncp_resid | time [ms] |")
    print("|---|---|---|---|---|---|")
    for name in files:
        for solver in SOLVERS:
            command = [sys.executable, __file__, args.directory,
                       "--one", os.path.join(args.directory, name), solver,
                       "--max-iter", str(args.max_iter), "--tol", str(args.tol)]
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
                lines = [l for l in done.stdout.splitlines() if l.startswith("{")]
                if done.returncode != 0 or not lines:
                    print(f"| {name[:-5]} | {solver} | crashed (exit {done.returncode}) | | | |")
                    continue
                result = json.loads(lines[-1])
                print(f"| {name[:-5]} | {solver} | {'yes' if result['info'] == 0 else 'no'} | "
                      f"{result['iterations']} | {result['residual']:.2e} | {1e3 * result['time_s']:.1f} |")
            except subprocess.TimeoutExpired:
                print(f"| {name[:-5]} | {solver} | timeout ({args.timeout:.0f} s) | | | |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
