#include "coulomb/contact/contact_problem.h"

#include <gtest/gtest.h>

#include "coulomb/contact/clique_graph.h"
#include "coulomb/contact/sap_friction_cone.h"

namespace coulomb {
namespace {

std::unique_ptr<SapFrictionCone> Cone() {
  return std::make_unique<SapFrictionCone>(SapContactParameters{},
                                           Eigen::Vector3d::Zero());
}

TEST(ContactProblem, DelassusEstimateSumsOverTheTouchedCliques) {
  // Two point masses m1 = 2, m2 = 4 in contact: W = (1/m1 + 1/m2) I.
  ContactProblem problem(0.01);
  problem.AddClique(2.0 * Eigen::Matrix3d::Identity());
  problem.AddClique(4.0 * Eigen::Matrix3d::Identity());
  problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(6));
  std::vector<JacobianBlock> jacobian;
  jacobian.push_back({0, -Eigen::MatrixXd::Identity(3, 3)});
  jacobian.push_back({1, Eigen::MatrixXd::Identity(3, 3)});
  problem.AddConstraint(std::move(jacobian), Cone());
  problem.Finalize();
  const auto& cone =
      dynamic_cast<const SapFrictionCone&>(*problem.constraint(0).potential);
  const double w = 0.75 * std::sqrt(3.0) / 3.0;  // ‖0.75 I‖_F / 3
  EXPECT_DOUBLE_EQ(cone.rt(), 1e-3 * w);
}

TEST(ContactProblem, ComputesConstraintVelocitiesWithBias) {
  ContactProblem problem(0.01);
  problem.AddClique(Eigen::Matrix2d::Identity());
  problem.SetFreeMotionVelocities(Eigen::Vector2d::Zero());
  Eigen::MatrixXd j(3, 2);
  j << 1, 2, 3, 4, 5, 6;
  ConstraintVector bias(3);
  bias << 0.5, 0.0, -1.0;
  problem.AddConstraint({{0, j}}, bias, Cone());
  problem.Finalize();
  Eigen::VectorXd v_c;
  problem.CalcConstraintVelocities(Eigen::Vector2d(1.0, -1.0), &v_c);
  EXPECT_EQ(v_c, Eigen::Vector3d(-0.5, -1.0, -2.0));
}

TEST(ContactProblem, RejectsBadInputNamingWhatIsWrong) {
  ContactProblem problem(0.01);
  Eigen::Matrix2d indefinite;
  indefinite << 1, 2, 2, 1;
  EXPECT_THROW(problem.AddClique(indefinite), std::invalid_argument);
  Eigen::Matrix2d asymmetric;
  asymmetric << 1, 0.5, 0, 1;
  EXPECT_THROW(problem.AddClique(asymmetric), std::invalid_argument);
  problem.AddClique(Eigen::Matrix2d::Identity());
  try {
    problem.AddConstraint({{0, Eigen::MatrixXd::Ones(3, 3)}}, Cone());
    FAIL() << "a 3×3 block on a 2-dof clique must be rejected";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected 3×2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(problem.AddConstraint({{5, Eigen::MatrixXd::Ones(3, 2)}}, Cone()),
               std::invalid_argument);
  EXPECT_THROW(ContactProblem(-1.0), std::invalid_argument);
  EXPECT_THROW(problem.Finalize(), std::invalid_argument);  // v* not set
}

TEST(CliqueGraph, SplitsIndependentIslands) {
  ContactProblem problem(0.01);
  for (int t = 0; t < 4; ++t) problem.AddClique(Eigen::Matrix3d::Identity());
  problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(12));
  problem.AddConstraint(
      {{0, Eigen::MatrixXd::Identity(3, 3)}, {2, Eigen::MatrixXd::Identity(3, 3)}},
      Cone());
  problem.AddConstraint({{3, Eigen::MatrixXd::Identity(3, 3)}}, Cone());
  problem.Finalize();
  const CliqueGraph graph(problem);
  EXPECT_EQ(graph.num_islands, 3);
  EXPECT_EQ(graph.island_of_clique[0], graph.island_of_clique[2]);
  EXPECT_NE(graph.island_of_clique[0], graph.island_of_clique[1]);
  EXPECT_EQ(graph.constraints_of_island[graph.island_of_clique[3]], std::vector<int>{1});
  EXPECT_TRUE(graph.Matches(problem));
}

}  // namespace
}  // namespace coulomb
