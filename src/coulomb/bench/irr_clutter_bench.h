#pragma once

namespace coulomb {

// The clutter study of IRR §X-A (printed as Markdown tables): 40 bodies,
// pair stiffness k = 1e7 N/m, d = 10 s/m, τ_d = 1e-4 s (SAP), σ = 1e-3,
// v_s = 1e-4 m/s, μ = 1, 3 s, for SAP, Lagged, regularized Lagged, Similar:
// * iterations and the scaled Hessian condition number over time (δt = 2 ms);
// * mean iterations and condition number per δt;
// * mean penetration at rest (the last 1.25 s) for pair stiffness 1e3…1e12
//   N/m at δt = 5 ms, where the solver fails, and why.
// quick: fewer step sizes and stiffnesses, 1.5 s.
void RunIrrClutterStudy(bool quick);

// Lagged and Similar up to rigid (docs/stiff_contact.md): the 40-body
// clutter with walls at δt = 10 ms for 10 s, stiffness per geometry 1e5…1e14
// N/m, for Lagged, regularized Lagged and Similar with the near-rigid clamp
// (failed steps, Newton iterations, steps accepted at round-off, clamped
// contacts, the largest scaled Hessian condition number, penetration at
// rest) and without it (where it fails); then the IRR scenes (belt, sphere,
// rod) at the same stiffnesses. quick: 1e6, 1e10, 1e14 and 2 s.
void RunStiffClutterStudy(bool quick);

}  // namespace coulomb
