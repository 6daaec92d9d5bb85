#include "coulomb/contact/friction_cone_projection.h"

#include <algorithm>

namespace coulomb {

ConeProjection ProjectOntoFrictionConeWithJacobian(const Eigen::Vector3d& x, double mu) {
  const Eigen::Vector2d x_t = x.head<2>();
  const double x_n = x(2);
  const double slip = x_t.norm();
  // x_n ≥ 0 matters for μ = 0, where slip ≤ μ x_n also holds at x_t = 0, x_n < 0.
  if (x_n >= 0.0 && slip <= mu * x_n) return {x, Eigen::Matrix3d::Identity()};  // stick
  if (mu * slip <= -x_n)
    return {Eigen::Vector3d::Zero(), Eigen::Matrix3d::Zero()};  // open
  const Eigen::Vector2d t_hat = x_t / slip;
  const double scale = 1.0 / (1.0 + mu * mu);
  const double normal = (x_n + mu * slip) * scale;
  ConeProjection projection;
  projection.value << mu * normal * t_hat, normal;
  const Eigen::Matrix2d tt = t_hat * t_hat.transpose();
  projection.jacobian.topLeftCorner<2, 2>() =
      scale *
      (mu * mu * tt + mu * (x_n + mu * slip) / slip * (Eigen::Matrix2d::Identity() - tt));
  projection.jacobian.topRightCorner<2, 1>() = scale * mu * t_hat;
  projection.jacobian.bottomLeftCorner<1, 2>() = scale * mu * t_hat.transpose();
  projection.jacobian(2, 2) = scale;
  return projection;
}

Eigen::Vector3d StrictFrictionOperator(const Eigen::Vector3d& x, double mu) {
  const double normal = std::max(x(2), 0.0);
  const double radius = mu * normal;
  Eigen::Vector3d result;
  const double slip = x.head<2>().norm();
  result.head<2>() = slip > radius ? Eigen::Vector2d(x.head<2>() * (radius / slip))
                                   : Eigen::Vector2d(x.head<2>());
  result(2) = normal;
  return result;
}

ConeProjection StrictFrictionOperatorWithJacobian(const Eigen::Vector3d& x, double mu) {
  ConeProjection result{StrictFrictionOperator(x, mu), Eigen::Matrix3d::Zero()};
  if (x(2) <= 0.0) return result;  // open
  const double slip = x.head<2>().norm();
  const double radius = mu * x(2);
  if (slip <= radius) {
    result.jacobian.setIdentity();
    return result;
  }
  const Eigen::Vector2d direction = x.head<2>() / slip;
  result.jacobian.topLeftCorner<2, 2>() =
      (radius / slip) * (Eigen::Matrix2d::Identity() - direction * direction.transpose());
  result.jacobian.topRightCorner<2, 1>() = mu * direction;
  result.jacobian(2, 2) = 1.0;
  return result;
}

}  // namespace coulomb
