#include "test_support.h"

#include "coulomb/contact/sap_unilateral_constraint.h"

#include <fstream>
#include <random>
#include <stdexcept>

namespace coulomb::testing {

Eigen::MatrixXd NormalMatrix(int rows, int cols, std::mt19937* random) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd m(rows, cols);
  for (double& entry : m.reshaped()) entry = normal(*random);
  return m;
}

Eigen::Isometry3d RandomPose(double max_offset, std::mt19937* random) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  const double w = uniform(*random), x = uniform(*random), y = uniform(*random),
               z = uniform(*random);
  pose.linear() = Eigen::Quaterniond(w, x, y, z).normalized().toRotationMatrix();
  const double px = uniform(*random), py = uniform(*random), pz = uniform(*random);
  pose.translation() = max_offset * Eigen::Vector3d(px, py, pz);
  return pose;
}

Eigen::VectorXd NumericalGradient(const std::function<double(const Eigen::VectorXd&)>& f,
                                  const Eigen::VectorXd& x, double h) {
  Eigen::VectorXd gradient(x.size());
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    Eigen::VectorXd plus = x, minus = x;
    plus[k] += h;
    minus[k] -= h;
    gradient[k] = (f(plus) - f(minus)) / (2.0 * h);
  }
  return gradient;
}

Eigen::MatrixXd NumericalJacobian(
    const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
    const Eigen::VectorXd& x, double h) {
  const Eigen::VectorXd f0 = f(x);
  Eigen::MatrixXd jacobian(f0.size(), x.size());
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    Eigen::VectorXd plus = x, minus = x;
    plus[k] += h;
    minus[k] -= h;
    jacobian.col(k) = (f(plus) - f(minus)) / (2.0 * h);
  }
  return jacobian;
}

RandomTree MakeRandomTree(int num_dofs, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> normal;
  RandomTree result;
  result.tree.motion.resize(6, num_dofs);
  for (int k = 0; k < num_dofs; ++k) {
    result.tree.parent.push_back(std::uniform_int_distribution<int>(-1, k - 1)(random));
    for (int r = 0; r < 6; ++r) result.tree.motion(r, k) = normal(random);
  }
  result.a = 1e-3 * Eigen::MatrixXd::Identity(num_dofs, num_dofs);  // armature
  for (int body = 0; body < num_dofs; ++body) {
    Eigen::Matrix<double, 6, 6> root;
    for (int r = 0; r < 36; ++r) root(r) = normal(random);
    const Eigen::Matrix<double, 6, 6> inertia =
        root * root.transpose() + Eigen::Matrix<double, 6, 6>::Identity();
    Eigen::MatrixXd body_jacobian = Eigen::MatrixXd::Zero(6, num_dofs);
    for (int k = body; k >= 0; k = result.tree.parent[k])
      body_jacobian.col(k) = result.tree.motion.col(k);
    result.a += body_jacobian.transpose() * inertia * body_jacobian;
  }
  return result;
}

BodyJacobian RandomPointOnBody(int dof, double sign, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> normal;
  // Drawn last coordinate first, one at a time: the order of a constructor's
  // arguments is unspecified (GCC evaluates the last first, clang the first),
  // and the tests' seeds were chosen on GCC's draws.
  const auto draw = [&](Eigen::Index size) {
    Eigen::VectorXd values(size);
    for (Eigen::Index i = size - 1; i >= 0; --i) values[i] = normal(random);
    return values;
  };
  const Eigen::Vector4d wxyz = draw(4);
  const Eigen::Quaterniond rotation =
      Eigen::Quaterniond(wxyz[0], wxyz[1], wxyz[2], wxyz[3]).normalized();
  const Eigen::Vector3d p = draw(3);
  return {.dof = dof, .map = sign * rotation.toRotationMatrix() * PointVelocityMap(p)};
}

Eigen::MatrixXd DenseBlock(const CliqueTree& tree,
                           const std::vector<BodyJacobian>& bodies) {
  Eigen::MatrixXd block = Eigen::MatrixXd::Zero(3, tree.motion.cols());
  for (const BodyJacobian& body : bodies) AddBodyJacobian(tree, body, block);
  return block;
}

DenseSapProblem MakeDenseSapProblem(const ContactProblem& problem) {
  DenseSapProblem dense;
  const int n = problem.num_dofs();
  const int m = problem.num_constraint_equations();
  dense.a = Eigen::MatrixXd::Zero(n, n);
  for (int t = 0; t < problem.num_cliques(); ++t) {
    dense.a.block(problem.clique_offset(t), problem.clique_offset(t),
                  problem.clique_size(t), problem.clique_size(t)) =
        problem.clique_matrix(t);
  }
  dense.j = Eigen::MatrixXd::Zero(m, n);
  dense.bias.resize(m);
  dense.r_diagonal.resize(m);
  dense.v_hat.resize(m);
  dense.mu.resize(problem.num_constraints());
  for (int i = 0; i < problem.num_constraints(); ++i) {
    const ProblemConstraint& c = problem.constraint(i);
    const auto* cone = dynamic_cast<const SapFrictionCone*>(c.potential.get());
    if (cone == nullptr) throw std::logic_error("not a SAP friction cone");
    const int row = problem.constraint_offset(i);
    for (const JacobianBlock& block : c.jacobian) {
      dense.j.block(row, problem.clique_offset(block.clique), 3, block.matrix.cols()) =
          block.matrix;
    }
    dense.bias.segment<3>(row) = c.bias;
    dense.r_diagonal.segment<3>(row) << cone->rt(), cone->rt(), cone->rn();
    dense.v_hat.segment<3>(row) = cone->v_hat();
    dense.mu[i] = cone->friction();
  }
  dense.v_star = problem.v_star();
  return dense;
}

ContactProblem MakeSliderAtLimitBesideContact() {
  ContactProblem problem(0.01);
  problem.AddClique(Eigen::MatrixXd::Constant(1, 1, 2.0));
  problem.AddClique(Eigen::MatrixXd::Identity(3, 3));
  Eigen::VectorXd v_star(4);
  v_star << -1.0, 0.3, 0.0, -0.5;
  problem.SetFreeMotionVelocities(v_star);
  SapContactParameters contact;
  contact.friction = 0.5;
  problem.AddConstraint(
      {{1, Eigen::MatrixXd::Identity(3, 3)}},
      std::make_unique<SapFrictionCone>(contact, Eigen::Vector3d::Zero()));
  problem.AddConstraint({{0, Eigen::MatrixXd::Ones(1, 1)}},
                        std::make_unique<SapUnilateralConstraint>(
                            SapUnilateralConstraint::Parameters{}, 0.0));
  problem.Finalize();
  return problem;
}

Eigen::Vector3d ProjectOntoCone(const Eigen::Vector3d& x, double mu) {
  const double normal = x.z();
  const double tangent = x.head<2>().norm();
  if (normal >= 0.0 && tangent <= mu * normal) return x;
  if (mu * tangent <= -normal) return Eigen::Vector3d::Zero();
  const double projected_normal = (normal + mu * tangent) / (1.0 + mu * mu);
  Eigen::Vector3d result;
  result << mu * projected_normal * x.head<2>() / tangent, projected_normal;
  return result;
}

namespace {

Eigen::VectorXd ProjectAll(const Eigen::VectorXd& x, const Eigen::VectorXd& mu) {
  Eigen::VectorXd result(x.size());
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    result.segment<3>(3 * i) = ProjectOntoCone(x.segment<3>(3 * i), mu[i]);
  }
  return result;
}

}  // namespace

Eigen::VectorXd SolveSapDualByProjectedGradient(const DenseSapProblem& p,
                                                int max_iterations, double tolerance) {
  const Eigen::MatrixXd w = p.j * p.a.llt().solve(p.j.transpose());
  const Eigen::MatrixXd q = w + Eigen::MatrixXd(p.r_diagonal.asDiagonal());
  const Eigen::VectorXd r = p.j * p.v_star + p.bias - p.v_hat;
  const double lipschitz =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(q).eigenvalues().maxCoeff();
  const double step = 1.0 / lipschitz;
  Eigen::VectorXd gamma = Eigen::VectorXd::Zero(r.size());
  Eigen::VectorXd y = gamma;
  double t = 1.0;
  const auto fixed_point_residual = [&](const Eigen::VectorXd& x) {
    return (x - ProjectAll(x - step * (q * x + r), p.mu)).norm();
  };
  for (int k = 0; k < max_iterations; ++k) {
    const Eigen::VectorXd next = ProjectAll(y - step * (q * y + r), p.mu);
    // Adaptive restart (O'Donoghue & Candès) keeps convergence linear. A
    // restart right after one (y = γ, t = 1) would repeat forever: the
    // gradient step from γ no longer descends in floating point, the floor.
    if ((q * y + r).dot(next - gamma) > 0.0) {
      if (t == 1.0) break;
      t = 1.0;
      y = gamma;
      continue;
    }
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    y = next + ((t - 1.0) / t_next) * (next - gamma);
    gamma = next;
    t = t_next;
    if (k % 50 == 0 &&
        fixed_point_residual(gamma) <= tolerance * std::max(1e-300, gamma.norm())) {
      break;
    }
  }
  return gamma;
}

Eigen::Isometry3d At(double x, double y, double z) {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() = Eigen::Vector3d(x, y, z);
  return pose;
}

void WritePendulumUrdf(const std::string& path) {
  std::ofstream(path) << R"(<robot name="pendulum">
  <link name="base"/>
  <link name="bob">
    <inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 -0.5"/><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="bob"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
</robot>)";
}

void WriteSliderPairUrdf(const std::string& path) {
  std::ofstream(path) << R"(<robot name="sliders">
  <link name="frame"/>
  <link name="a"><inertial><mass value="0.3"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="0.1"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="slide_a" type="prismatic"><parent link="frame"/><child link="a"/>
    <axis xyz="0 0 1"/><limit lower="-10" upper="10" effort="10" velocity="10"/></joint>
  <joint name="slide_b" type="prismatic"><parent link="frame"/><child link="b"/>
    <axis xyz="0 0 1"/><limit lower="-10" upper="10" effort="10" velocity="10"/></joint>
</robot>)";
}

}  // namespace coulomb::testing
