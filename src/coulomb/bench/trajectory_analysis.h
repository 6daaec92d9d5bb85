#pragma once

#include <vector>

#include "coulomb/sim/prescribed_motion.h"
#include "coulomb/sim/simulation.h"

namespace coulomb {

// Measurements on recorded trajectories for the IRR studies (IRR §IX):
// errors against a reference run, fitted convergence orders, gliding.

// RMS over the coarse run's samples of ‖p − p_ref‖ [m] for one body, with
// samples matched by time; the reference step must divide the coarse one
// (throws std::invalid_argument otherwise).
double PositionErrorRms(const Trajectory& coarse, const Trajectory& reference, int body);

// Least-squares slope of log(error) against log(δt): the order p of
// error ≈ C δt^p.
double FittedOrder(const std::vector<double>& time_steps,
                   const std::vector<double>& errors);

// Gliding of a box sliding on a kinematic belt (IRR §VII, docs/math.md §3.5).
// Slip s = |v_x(box) − v_x(belt)| at the end of each step. The rest height is
// the mean height while sticking (s < 1e-3 m/s); while sliding (s > min_slip)
// the box floats above it by h ≈ c μ s. c is fitted by least squares:
// c ≈ δt + τ_d for SAP, δt for Similar, 0 for Lagged.
struct GlidingMeasurement {
  double offset_per_slip = 0.0;           // c [s]: h / (μ s)
  double max_normal_speed_sliding = 0.0;  // max |v_z| while sliding [m/s]
  double max_normal_speed_stick = 0.0;    // max |v_z| while sticking [m/s]
  int sliding_samples = 0;
  int stick_samples = 0;
};
GlidingMeasurement MeasureGliding(const Trajectory& trajectory, int body,
                                  const PrescribedMotion& belt, double friction,
                                  double time_step, double min_slip);

}  // namespace coulomb
