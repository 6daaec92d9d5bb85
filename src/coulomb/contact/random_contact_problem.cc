#include "coulomb/contact/random_contact_problem.h"

#include <cmath>
#include <memory>
#include <random>

#include "coulomb/contact/sap_friction_cone.h"

namespace coulomb {
namespace {

// Three draws of `distribution` as a vector, drawn in a fixed order: the
// order of a constructor's arguments is unspecified (GCC draws the last
// first, clang the first), and every compiler must build the same problems.
// Drawn z, y, x: the order GCC gave the problems the tests' seeds were
// chosen on.
template <typename Distribution>
Eigen::Vector3d DrawVector3(Distribution& distribution, std::mt19937_64* random) {
  const double z = distribution(*random);
  const double y = distribution(*random);
  const double x = distribution(*random);
  return Eigen::Vector3d(x, y, z);
}

// Mass block of a rigid body with mass m ∈ [0.1, 0.1 ratio] kg (log-uniform) and a random
// rotated inertia, expressed at a point offset from the center of mass, so that it is
// dense: M = [m I, −m [c]×; m [c]×, I_c − m [c]×²]. With `diagonal`, the
// principal inertia at the center of mass: M = diag(m, m, m, I_1, I_2, I_3).
Eigen::Matrix<double, 6, 6> RandomBodyMass(std::mt19937_64* random, bool diagonal,
                                           double ratio) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double mass = 0.1 * std::pow(ratio, unit(*random));
  const Eigen::Vector3d principal =
      mass * 0.01 * (DrawVector3(unit, random).array() + 0.2);
  const Eigen::Matrix3d rotation = Eigen::Quaterniond(Eigen::Vector4d::NullaryExpr([&] {
                                     return unit(*random) - 0.5;
                                   }))
                                       .normalized()
                                       .toRotationMatrix();
  const Eigen::Vector3d offset =
      (diagonal ? 0.0 : 0.2) *
      Eigen::Vector3d::NullaryExpr([&] { return unit(*random) - 0.5; });
  Eigen::Matrix3d cross;
  cross << 0, -offset.z(), offset.y(), offset.z(), 0, -offset.x(), -offset.y(),
      offset.x(), 0;
  Eigen::Matrix<double, 6, 6> m;
  m.topLeftCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
  m.topRightCorner<3, 3>() = -mass * cross;
  m.bottomLeftCorner<3, 3>() = mass * cross;
  m.bottomRightCorner<3, 3>() =
      diagonal
          ? Eigen::Matrix3d(principal.asDiagonal())
          : Eigen::Matrix3d(rotation * principal.asDiagonal() * rotation.transpose() -
                            mass * cross * cross);
  return m;
}

// Jacobian of the velocity of a point p on a body, in a random contact frame:
// v_c = R_Cᵀ (v_B + ω × p) = R_Cᵀ [I, −[p]×] [v_B; ω].
Eigen::MatrixXd RandomPointJacobian(const Eigen::Matrix3d& frame, std::mt19937_64* random,
                                    double sign) {
  std::uniform_real_distribution<double> unit(-0.5, 0.5);
  const Eigen::Vector3d p = DrawVector3(unit, random);
  Eigen::Matrix3d cross;
  cross << 0, -p.z(), p.y(), p.z(), 0, -p.x(), -p.y(), p.x(), 0;
  Eigen::Matrix<double, 3, 6> point;
  point << Eigen::Matrix3d::Identity(), -cross;
  return sign * frame.transpose() * point;
}

}  // namespace

ContactProblem MakeRandomContactProblem(const RandomContactProblemOptions& options) {
  std::mt19937_64 random(options.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ContactProblem problem(options.time_step);
  Eigen::VectorXd v_star(6 * options.num_bodies);
  for (int body = 0; body < options.num_bodies; ++body) {
    problem.AddClique(RandomBodyMass(&random, options.diagonal_mass, options.mass_ratio));
    v_star.segment<6>(6 * body) =
        Eigen::Vector<double, 6>::NullaryExpr([&] { return 2.0 * unit(random) - 1.0; });
  }
  problem.SetFreeMotionVelocities(v_star);
  std::uniform_int_distribution<int> pick_body(0, options.num_bodies - 1);
  for (int contact = 0; contact < options.num_contacts; ++contact) {
    const Eigen::Matrix3d frame = Eigen::Quaterniond(Eigen::Vector4d::NullaryExpr([&] {
                                    return unit(random) - 0.5;
                                  }))
                                      .normalized()
                                      .toRotationMatrix();
    std::vector<JacobianBlock> jacobian;
    const int body_a = pick_body(random);
    jacobian.push_back({body_a, RandomPointJacobian(frame, &random, -1.0)});
    if (options.num_bodies > 1 && unit(random) < options.two_body_fraction) {
      int body_b = pick_body(random);
      while (body_b == body_a) body_b = pick_body(random);
      jacobian.push_back({body_b, RandomPointJacobian(frame, &random, 1.0)});
    }
    SapContactParameters parameters;
    parameters.friction = unit(random) < options.frictionless_fraction
                              ? 0.0
                              : options.max_friction * unit(random);
    if (unit(random) < options.compliant_fraction) {
      parameters.stiffness =
          std::pow(10.0, 3.0 + (options.max_stiffness_exponent - 3.0) * unit(random));
      parameters.dissipation_time_scale = options.time_step * unit(random);
    }
    const double phi0 = 0.01 * (unit(random) - 0.7);  // mostly penetrating
    const Eigen::Vector3d v_hat(
        0.0, 0.0,
        SapStabilizationVelocity(phi0, options.time_step,
                                 parameters.dissipation_time_scale));
    if (unit(random) < options.duplicate_fraction) {
      problem.AddConstraint(jacobian,
                            std::make_unique<SapFrictionCone>(parameters, v_hat));
    }
    problem.AddConstraint(std::move(jacobian),
                          std::make_unique<SapFrictionCone>(parameters, v_hat));
  }
  problem.Finalize();
  return problem;
}

}  // namespace coulomb
