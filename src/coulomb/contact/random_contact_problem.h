#pragma once

#include <cstdint>

#include "coulomb/contact/contact_problem.h"

namespace coulomb {

// Options for a random SAP contact problem with the structure of rigid-body
// contact: bodies with dense 6×6 SPD mass blocks (one clique each), contacts
// that touch one body (against the world) or two.
struct RandomContactProblemOptions {
  int num_bodies = 10;                 // ≥ 1
  int num_contacts = 20;               // ≥ 0
  double two_body_fraction = 0.5;      // share of contacts between two bodies
  double frictionless_fraction = 0.1;  // share of contacts with μ = 0
  double compliant_fraction = 0.5;     // share with finite k (others k = +∞)
  double time_step = 0.01;             // δt [s]
  // Mass blocks diag(m, m, m, I_xx, I_yy, I_zz) (principal axes at the center
  // of mass), as in FCLIB global problems, instead of dense ones.
  bool diagonal_mass = false;
  // Masses log-uniform in [0.1, 0.1 mass_ratio] kg (≥ 1).
  double mass_ratio = 100.0;
  // μ uniform in [0, max_friction] for the contacts with friction.
  double max_friction = 1.0;
  // Compliant contacts: k log-uniform in [1e3, 10^max_stiffness_exponent] N/m.
  double max_stiffness_exponent = 8.0;
  // Share of contacts added twice with the same Jacobian (J rank-deficient).
  double duplicate_fraction = 0.0;
  uint64_t seed = 1;
};

// Deterministic for a given seed. Returns a finalized problem.
ContactProblem MakeRandomContactProblem(const RandomContactProblemOptions& options);

}  // namespace coulomb
