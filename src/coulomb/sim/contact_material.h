#pragma once

#include <array>
#include <limits>
#include <string_view>
#include <utility>

#include "coulomb/base/named_enum.h"

namespace coulomb {

// Contact parameters of one geometry (SAP §V). A pair combines its two
// materials with CombineContactMaterials.
struct ContactMaterial {
  // k [N/m] > 0, +∞ for near-rigid contact.
  double stiffness = std::numeric_limits<double>::infinity();
  // τ_d [s] ≥ 0; negative means "not given": the near-rigid default
  // τ_d = (β/π) δt of SAP §V-B is then used.
  double dissipation_time_scale = -1.0;
  // μ ≥ 0.
  double friction = 1.0;
  // d [s/m] ≥ 0: Hunt & Crossley dissipation of the Lagged and Similar models
  // (unused by SAP). Default 10 s/m, the IRR clutter value (IRR §X-A).
  double hunt_crossley_dissipation = 10.0;
};

// How a pair's friction combines its two geometries' μ:
// * harmonic_mean: μ = 2 μ_a μ_b / (μ_a + μ_b) (0 if either is 0), Drake's
//   rule: a frictionless side makes the pair frictionless;
// * max: μ = max(μ_a, μ_b), MuJoCo's rule for geoms of equal priority.
enum class FrictionCombination { kHarmonicMean, kMax };
template <>
struct EnumNames<FrictionCombination> {
  static constexpr std::string_view kWhat = "friction combination";
  static constexpr std::array<std::pair<FrictionCombination, std::string_view>, 2>
      kNames = {{
          {FrictionCombination::kHarmonicMean, "harmonic_mean"},
          {FrictionCombination::kMax, "max"},
      }};
};

// Combination rules for a pair (documented choices, tested):
// * stiffness: springs in series, k = k_a k_b / (k_a + k_b) (k_a = ∞ gives k_b);
// * dissipation time scale: the larger of the two given (if one is not given,
//   the other; if neither, "not given");
// * friction: by `friction_combination`, above (Drake's harmonic mean by
//   default).
// * Hunt & Crossley dissipation: the series combination of two spring–damper
//   elements with f = k x (1 + d ẋ), d = k (d_a/k_a + d_b/k_b) = (k_b d_a +
//   k_a d_b)/(k_a + k_b): a rigid side (k = ∞) leaves the other's d; two rigid
//   sides (or equal stiffness) give the mean.
// Each is computed without a product of the two sides' values, so that
// values near the largest double (k = 1e308) combine without overflow.
ContactMaterial CombineContactMaterials(
    const ContactMaterial& a, const ContactMaterial& b,
    FrictionCombination friction_combination = FrictionCombination::kHarmonicMean);

// Throws std::invalid_argument naming the bad field.
void ValidateContactMaterial(const ContactMaterial& material);

}  // namespace coulomb
