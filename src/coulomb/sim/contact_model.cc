#include "coulomb/sim/contact_model.h"

#include <cmath>
#include <stdexcept>
#include <typeinfo>

#include "coulomb/contact/lagged_contact.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/contact/similar_contact.h"

namespace coulomb {
namespace {

void EmplaceSapCone(const ContactModelParameters& model, const ContactMaterial& pair,
                    const ContactPointState& point,
                    std::unique_ptr<ConvexConstraint>* slot) {
  SapContactParameters parameters;
  parameters.stiffness = pair.stiffness;
  parameters.friction = pair.friction;
  parameters.near_rigid_threshold = model.near_rigid_threshold;
  parameters.sigma = model.sigma;
  parameters.dissipation_time_scale = pair.dissipation_time_scale;  // < 0: default
  // The slot's last potential, reset in place when it is a SAP cone (a final
  // class: its type alone decides, without the search of a dynamic_cast).
  ConvexConstraint* last = slot->get();
  if (last != nullptr && typeid(*last) == typeid(SapFrictionCone)) {
    static_cast<SapFrictionCone*>(last)->ResetAtSignedDistance(parameters, point.phi0);
    return;
  }
  EmplaceConstraintPotential<SapFrictionCone>(
      slot, SapFrictionCone::AtSignedDistance(parameters, point.phi0));
}

HuntCrossleyParameters HuntCrossley(const ContactModelParameters& model,
                                    const ContactMaterial& pair) {
  if (std::isinf(pair.stiffness)) {
    throw std::invalid_argument(
        "contact.stiffness: the " + ToString(model.model) +
        " model needs a finite stiffness (e.g. 1e7 N/m for steel)");
  }
  HuntCrossleyParameters parameters;
  parameters.stiffness = pair.stiffness;
  parameters.dissipation = pair.hunt_crossley_dissipation;
  parameters.friction = pair.friction;
  parameters.stiction_tolerance = model.stiction_tolerance;
  parameters.near_rigid_threshold = model.hunt_crossley_near_rigid_threshold;
  return parameters;
}

}  // namespace

void EmplaceContactPotential(const ContactModelParameters& model,
                             const ContactMaterial& pair, const ContactPointState& point,
                             std::unique_ptr<ConvexConstraint>* slot) {
  switch (model.model) {
    case ContactModel::kSap:
      return EmplaceSapCone(model, pair, point, slot);
    case ContactModel::kLagged:
      return EmplaceConstraintPotential<LaggedContact>(slot, HuntCrossley(model, pair),
                                                       point.phi0, point.v_n0);
    case ContactModel::kRegularizedLagged:
      return EmplaceConstraintPotential<LaggedContact>(
          slot, HuntCrossley(model, pair), point.phi0, point.v_n0, model.sigma);
    case ContactModel::kSimilar:
      return EmplaceConstraintPotential<SimilarContact>(slot, HuntCrossley(model, pair),
                                                        point.phi0);
  }
  throw std::logic_error("unhandled contact model");
}

}  // namespace coulomb
