#include "coulomb/fclib/natural_map_residual.h"

#include <stdexcept>

#include <Eigen/SparseCholesky>

#include "coulomb/contact/friction_cone_projection.h"

namespace coulomb {

Eigen::Vector3d ProjectOntoFrictionCone(const Eigen::Vector3d& x, double mu) {
  // The contact layer's projection works in [t1, t2, n] order.
  const Eigen::Vector3d tangential_first(x(1), x(2), x(0));
  const Eigen::Vector3d p =
      ProjectOntoFrictionConeWithJacobian(tangential_first, mu).value;
  return {p(2), p(0), p(1)};
}

Eigen::VectorXd CalcFclibContactVelocities(const FclibProblem& problem,
                                           const Eigen::VectorXd& r) {
  if (problem.kind == FclibProblem::Kind::kLocal) return problem.w_matrix * r + problem.q;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> m_factor(problem.m_matrix);
  if (m_factor.info() != Eigen::Success) {
    throw std::runtime_error(problem.path + ": /fclib_global/M cannot be factored");
  }
  const Eigen::VectorXd v = m_factor.solve(problem.h_matrix * r + problem.f);
  return problem.h_matrix.transpose() * v + problem.w;
}

NaturalMapResidual CalcNaturalMapResidual(const FclibProblem& problem,
                                          const Eigen::VectorXd& r) {
  NaturalMapResidual result;
  result.u = CalcFclibContactVelocities(problem, r);
  const Eigen::VectorXd q = problem.kind == FclibProblem::Kind::kLocal
                                ? problem.q
                                : CalcFclibContactVelocities(problem, 0.0 * r);
  double squared = 0.0;
  for (int contact = 0; contact < problem.num_contacts; ++contact) {
    const double mu = problem.mu[contact];
    const Eigen::Vector3d r_i = r.segment<3>(3 * contact);
    Eigen::Vector3d u_hat = result.u.segment<3>(3 * contact);
    u_hat[0] += mu * u_hat.tail<2>().norm();
    squared += (r_i - ProjectOntoFrictionCone(r_i - u_hat, mu)).squaredNorm();
  }
  result.unnormalized = std::sqrt(squared);
  const double normalization = std::max({q.norm(), r.norm(), result.u.norm()});
  result.normalization = normalization > 0.0 ? normalization : 1.0;
  result.error = result.unnormalized / result.normalization;
  return result;
}

}  // namespace coulomb
