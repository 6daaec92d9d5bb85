#pragma once

#include "coulomb/contact/pd_controller_constraint.h"

namespace coulomb {

// Dry (Coulomb) friction on a one-dof joint, implicit in the solve: the
// joint torque (or force) u = clamp(−K v, ±F) opposes the joint velocity v,
// F > 0 the friction torque [N·m] or force [N] (a URDF joint's <dynamics
// friction>, MuJoCo's frictionloss). Rigid friction would hold the joint
// still while the other torques on it stay below F; as SAP's friction cone
// (SAP §V-B, Rt = σ w) it is regularized, with the sticking curvature
// G = δt K = 1/(σ w), w the joint's Delassus estimate (its inverse
// effective mass, [rad/(N·m·s)] or [m/(N·s)]): a joint loaded by τ < F
// creeps at v = σ w δt τ, σ SAP's tangential regularization.
// This is the PD law with Kp = 0, Kd = K and effort limit F
// (PdControllerConstraint: its potential, Hessian and soft rigid law).
class JointFrictionConstraint final : public ConvexConstraint {
 public:
  // friction: F > 0; sigma: σ > 0 (both finite).
  JointFrictionConstraint(double friction, double sigma);

  int num_equations() const override { return 1; }
  void Prepare(const ConstraintMatrix& delassus_estimate, double time_step) override;
  double Evaluate(const ConstraintVector& v_c, ConstraintVector* gamma,
                  ConstraintMatrix* hessian) const override {
    return law_.Evaluate(v_c, gamma, hessian);
  }
  RigidLaw rigid_law() const override { return law_.rigid_law(); }

 private:
  double friction_, sigma_;
  PdControllerConstraint law_;  // set by Prepare
};

}  // namespace coulomb
