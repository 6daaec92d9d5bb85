#pragma once

#include <limits>

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
};

// Combination rules for a pair (documented choices, tested):
// * stiffness: springs in series, k = k_a k_b / (k_a + k_b) (k_a = ∞ gives k_b);
// * dissipation time scale: the larger of the two given (if one is not given,
//   the other; if neither, "not given");
// * friction: μ = 2 μ_a μ_b / (μ_a + μ_b), the harmonic mean used by Drake
//   (0 if either is 0).
ContactMaterial CombineContactMaterials(const ContactMaterial& a,
                                        const ContactMaterial& b);

// Throws std::invalid_argument naming the bad field.
void ValidateContactMaterial(const ContactMaterial& material);

}  // namespace coulomb
