#pragma once

#include <string>

#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/solvers/contact_ncp.h"

namespace coulomb {

// Writes a problem in FCLIB's HDF5 layout (Acary, Brémond, Huber), as the
// collection's own files hold it and Siconos reads it: /fclib_local (W, q, μ)
// or /fclib_global (M, H, f, w, μ), matrices in triplet form (m, n, nz,
// nzmax, i = rows, p = columns, x), spacedim 3, and info/title,
// info/description, info/math_info. The file is built under a temporary name
// beside `path` and renamed: it appears whole or not at all. Throws
// std::runtime_error naming the file when it cannot be written.
void WriteFclibProblem(const FclibProblem& problem, const std::string& path);

// The rigid Signorini–Coulomb NCP of a contact problem (ContactNcp) in
// FCLIB's global form, so that other solvers solve the problem a simulation
// step posed. With the NCP's padded problem (cliques t, A_t, v*, Jacobian J,
// biases b, offsets e, contact rows [t1, t2, n]):
//   M = A = blockdiag(A_t),  H = Jᵀ with each contact's columns in FCLIB's
//   order [n, t1, t2],  f = A v*,  w = b + e (reordered),  μ_i,
// so that M v = H r + f is A(v − v*) = Jᵀλ and u = Hᵀv + w is the NCP's
// u = J v + b + e, r and u being λ and u reordered: the same NCP, dof for
// dof. Joint limits enter as the NCP pads them, frictionless contacts with
// zero tangential columns. No regularization enters: a compliant model's R
// is not part of the rigid NCP. Throws std::invalid_argument when a
// constraint has a soft law (a PD controller: FCLIB has no such constraint)
// or the problem has no constraints.
FclibProblem FclibGlobalProblemOf(const ContactNcp& ncp, std::string title,
                                  std::string description);

}  // namespace coulomb
