#include "coulomb/bench/trajectory_analysis.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace coulomb {
namespace {

Eigen::Vector3d Position(const Trajectory& trajectory, int body, size_t sample) {
  return trajectory.body_samples[body][sample].head<3>();
}

// Slip of the box against the belt over the step that ends at sample n.
double Slip(const Trajectory& trajectory, int body, const PrescribedMotion& belt,
            double time_step, size_t n) {
  const double belt_speed =
      belt.MeanVelocity(trajectory.time[n] - time_step, time_step).x();
  return std::abs(trajectory.body_samples[body][n](7) - belt_speed);
}

}  // namespace

double PositionErrorRms(const Trajectory& coarse, const Trajectory& reference, int body) {
  if (coarse.time.size() < 2 || reference.time.size() < 2) {
    throw std::invalid_argument("PositionErrorRms: trajectories need two samples");
  }
  const double coarse_step = coarse.time[1] - coarse.time[0];
  const double reference_step = reference.time[1] - reference.time[0];
  const double ratio = coarse_step / reference_step;
  if (std::abs(ratio - std::round(ratio)) > 1e-6 * ratio) {
    throw std::invalid_argument(
        "PositionErrorRms: the reference step must divide the coarse one");
  }
  const auto stride = static_cast<size_t>(std::llround(ratio));
  double sum = 0.0;
  size_t count = 0;
  for (size_t n = 0; n < coarse.time.size() && n * stride < reference.time.size(); ++n) {
    sum +=
        (Position(coarse, body, n) - Position(reference, body, n * stride)).squaredNorm();
    ++count;
  }
  return std::sqrt(sum / static_cast<double>(count));
}

double FittedOrder(const std::vector<double>& time_steps,
                   const std::vector<double>& errors) {
  const size_t n = time_steps.size();
  double mean_x = 0.0, mean_y = 0.0;
  for (size_t i = 0; i < n; ++i) {
    mean_x += std::log(time_steps[i]) / static_cast<double>(n);
    mean_y += std::log(errors[i]) / static_cast<double>(n);
  }
  double sxy = 0.0, sxx = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = std::log(time_steps[i]) - mean_x;
    sxy += dx * (std::log(errors[i]) - mean_y);
    sxx += dx * dx;
  }
  return sxy / sxx;
}

GlidingMeasurement MeasureGliding(const Trajectory& trajectory, int body,
                                  const PrescribedMotion& belt, double friction,
                                  double time_step, double min_slip) {
  GlidingMeasurement result;
  double rest_height = 0.0;
  for (size_t n = 1; n < trajectory.time.size(); ++n) {
    if (Slip(trajectory, body, belt, time_step, n) >= 1e-3) continue;
    rest_height += Position(trajectory, body, n).z();
    ++result.stick_samples;
    result.max_normal_speed_stick = std::max(
        result.max_normal_speed_stick, std::abs(trajectory.body_samples[body][n](9)));
  }
  if (result.stick_samples == 0) return result;
  rest_height /= result.stick_samples;
  double numerator = 0.0, denominator = 0.0;
  for (size_t n = 1; n < trajectory.time.size(); ++n) {
    const double slip = Slip(trajectory, body, belt, time_step, n);
    if (slip <= min_slip) continue;
    const double friction_slip = friction * slip;
    numerator += (Position(trajectory, body, n).z() - rest_height) * friction_slip;
    denominator += friction_slip * friction_slip;
    ++result.sliding_samples;
    result.max_normal_speed_sliding = std::max(
        result.max_normal_speed_sliding, std::abs(trajectory.body_samples[body][n](9)));
  }
  if (denominator > 0.0) result.offset_per_slip = numerator / denominator;
  return result;
}

}  // namespace coulomb
