#include "coulomb/sim/contact_material.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace coulomb {
namespace {

// (k_b d_a + k_a d_b)/(k_a + k_b), with the limits for infinite stiffness;
// divided through by the larger k, so that no product overflows.
double CombineDissipation(const ContactMaterial& a, const ContactMaterial& b) {
  const double d_a = a.hunt_crossley_dissipation;
  const double d_b = b.hunt_crossley_dissipation;
  if (std::isinf(a.stiffness) && std::isinf(b.stiffness)) return 0.5 * (d_a + d_b);
  if (std::isinf(a.stiffness)) return d_b;
  if (std::isinf(b.stiffness)) return d_a;
  if (a.stiffness <= b.stiffness) {
    const double ratio = a.stiffness / b.stiffness;  // k_a / k_b ≤ 1
    return (d_a + ratio * d_b) / (1.0 + ratio);
  }
  const double ratio = b.stiffness / a.stiffness;  // k_b / k_a < 1
  return (ratio * d_a + d_b) / (1.0 + ratio);
}

// x y / (x + y) for x, y ≥ 0 (not both 0) as s / (1 + s / l), s and l the
// smaller and the larger: no product to overflow, and a tiny side kept.
// (The harmonic mean is twice it; the result is at most s, so 2 s/(1 + s/l)
// overflows only where the mean itself does.)
double SeriesOfPositive(double x, double y) {
  const double small = std::min(x, y), large = std::max(x, y);
  return small / (1.0 + small / large);
}

}  // namespace

ContactMaterial CombineContactMaterials(const ContactMaterial& a,
                                        const ContactMaterial& b,
                                        FrictionCombination friction_combination) {
  ContactMaterial pair;
  if (std::isinf(a.stiffness)) {
    pair.stiffness = b.stiffness;
  } else if (std::isinf(b.stiffness)) {
    pair.stiffness = a.stiffness;
  } else {
    pair.stiffness = SeriesOfPositive(a.stiffness, b.stiffness);
  }
  pair.dissipation_time_scale =
      std::max(a.dissipation_time_scale, b.dissipation_time_scale);
  pair.hunt_crossley_dissipation = CombineDissipation(a, b);
  const double sum = a.friction + b.friction;
  pair.friction =
      friction_combination == FrictionCombination::kMax
          ? std::max(a.friction, b.friction)
          : (sum > 0.0 ? 2.0 * SeriesOfPositive(a.friction, b.friction) : 0.0);
  return pair;
}

void ValidateContactMaterial(const ContactMaterial& m) {
  if (!(m.stiffness > 0.0)) {
    throw std::invalid_argument("stiffness: must be positive, got " +
                                std::to_string(m.stiffness));
  }
  if (!std::isfinite(m.dissipation_time_scale)) {
    throw std::invalid_argument("dissipation_time_scale: must be finite");
  }
  if (!(m.hunt_crossley_dissipation >= 0.0) ||
      !std::isfinite(m.hunt_crossley_dissipation)) {
    throw std::invalid_argument(
        "hunt_crossley_dissipation: must be finite and ≥ 0, got " +
        std::to_string(m.hunt_crossley_dissipation));
  }
  if (!(m.friction >= 0.0) || !std::isfinite(m.friction)) {
    throw std::invalid_argument("friction: must be finite and ≥ 0, got " +
                                std::to_string(m.friction));
  }
}

}  // namespace coulomb
