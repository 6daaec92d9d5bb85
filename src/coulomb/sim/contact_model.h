#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "coulomb/base/named_enum.h"

#include "coulomb/contact/convex_constraint.h"
#include "coulomb/contact/hunt_crossley.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/sim/contact_material.h"

namespace coulomb {

// The convex contact potential used for every contact point of a run.
// * sap: SAP's regularized friction cone with linear compliance k, τ_d and
//   the near-rigid regime (SAP §V);
// * lagged, regularized_lagged: Hunt & Crossley with friction bounded by
//   the previous step's normal impulse (IRR §VI-B, IRR-44);
// * similar: Hunt & Crossley at z = v_n − μ‖v_t‖_s (IRR §VI-C).
// Hunt & Crossley models need a finite stiffness.
enum class ContactModel { kSap, kLagged, kRegularizedLagged, kSimilar };
template <>
struct EnumNames<ContactModel> {
  static constexpr std::string_view kWhat = "contact model";
  static constexpr std::array<std::pair<ContactModel, std::string_view>, 4> kNames = {{
      {ContactModel::kSap, "sap"},
      {ContactModel::kLagged, "lagged"},
      {ContactModel::kRegularizedLagged, "regularized_lagged"},
      {ContactModel::kSimilar, "similar"},
  }};
};
inline std::string ToString(ContactModel model) { return std::string(EnumName(model)); }

// What the potential of one contact point needs besides its material.
struct ContactPointState {
  double phi0 = 0.0;  // signed distance at q0 [m]
  double v_n0 = 0.0;  // normal velocity at v0 [m/s] (the Lagged impulse)
};

// Model-wide parameters (per run, not per geometry).
struct ContactModelParameters {
  ContactModel model = ContactModel::kSap;
  double near_rigid_threshold = kDefaultNearRigidThreshold;  // β of SAP eq. 29
  double sigma = kDefaultSigma;      // σ of SAP §V-B and of IRR-44
  double stiction_tolerance = 1e-4;  // v_s [m/s] of Lagged and Similar (IRR §IX)
  // β_HC of Lagged and Similar's near-rigid clamp (NearRigidStiffness; 0: off).
  double hunt_crossley_near_rigid_threshold = kDefaultHuntCrossleyNearRigidThreshold;
  // How a pair combines its two geometries' friction (CombineContactMaterials).
  FrictionCombination friction_combination = FrictionCombination::kHarmonicMean;
};

// The potential of one contact point with the combined material of its pair,
// stored in *slot (reusing the object there if it has the model's type: no
// allocation when a simulation rebuilds its problem in place). What depends
// on δt (a missing τ_d's near-rigid default (β/π) δt, v̂) is computed by the
// potential's Prepare. Throws std::invalid_argument for a
// Hunt & Crossley model with infinite stiffness.
void EmplaceContactPotential(const ContactModelParameters& model,
                             const ContactMaterial& pair, const ContactPointState& point,
                             std::unique_ptr<ConvexConstraint>* slot);

}  // namespace coulomb
