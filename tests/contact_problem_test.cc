#include "coulomb/contact/contact_problem.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <utility>

#include "coulomb/contact/clique_coupling.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/contact/sap_unilateral_constraint.h"
#include "test_support.h"

namespace coulomb {
namespace {

std::unique_ptr<SapFrictionCone> Cone() {
  return std::make_unique<SapFrictionCone>(SapContactParameters{},
                                           Eigen::Vector3d::Zero());
}

// What `act` throws as std::invalid_argument, or "accepted".
std::string InvalidArgumentMessage(const std::function<void()>& act) {
  try {
    act();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
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

double ConeRt(const ContactProblem& problem) {
  return dynamic_cast<const SapFrictionCone&>(*problem.constraint(0).potential).rt();
}

TEST(ContactProblem, DelassusEstimateOfACliqueIsJTimesTheInverseOfAItsTranspose) {
  // A full SPD A and a contact's 3 × n Jacobian: W = J A⁻¹ Jᵀ against
  // Eigen's dense inverse, for a free body (6 dofs: A⁻¹ in fixed size), a
  // legged robot's tree (14: through the Cholesky factor of A in plain
  // loops) and a larger tree (70: Eigen's blocked factorization); and a
  // free body in its principal axes (6 dofs, A diagonal: A⁻¹'s diagonal
  // kernel).
  for (const auto& [n, diagonal] : {std::pair{6, false}, std::pair{14, false},
                                    std::pair{70, false}, std::pair{6, true}}) {
    Eigen::MatrixXd a = Eigen::MatrixXd::Random(n, n);
    a = a * a.transpose() + n * Eigen::MatrixXd::Identity(n, n);
    if (diagonal) a = Eigen::MatrixXd(a.diagonal().asDiagonal());
    const Eigen::MatrixXd j = Eigen::MatrixXd::Random(3, n);
    ContactProblem problem(0.01);
    problem.AddClique(a);
    problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(n));
    problem.AddConstraint({{0, j}}, Cone());
    problem.Finalize();
    const double w = (j * a.inverse() * j.transpose()).norm() / 3.0;
    EXPECT_NEAR(ConeRt(problem), 1e-3 * w, 1e-12 * w)
        << n << (diagonal ? " diagonal" : "");
  }
}

// A problem of one 7-dof clique A = 4 I with one contact, its Jacobian J,
// built in place (cleared first).
void BuildOneCliqueProblem(const Eigen::MatrixXd& j, ContactProblem* problem) {
  problem->Clear();
  problem->EmplaceClique(7) = 4.0 * Eigen::MatrixXd::Identity(7, 7);
  problem->mutable_v_star() = Eigen::VectorXd::Zero(7);
  ProblemConstraint& contact = problem->EmplaceConstraint(0);
  contact.jacobian = {{0, j}};
  contact.bias = Eigen::Vector3d::Zero();
  contact.potential = Cone();
}

ContactProblem OneCliqueProblem(const Eigen::MatrixXd& j) {
  ContactProblem problem(0.01);
  BuildOneCliqueProblem(j, &problem);
  return problem;
}

TEST(ContactProblem, DelassusEstimateUsesTheFactorOfAGivenByTheBuilder) {
  const Eigen::MatrixXd j = Eigen::MatrixXd::Random(3, 7);
  const double w_of_a = (j * j.transpose() / 4.0).norm() / 3.0;  // W = J (4 I)⁻¹ Jᵀ
  ContactProblem factored_here = OneCliqueProblem(j);
  factored_here.Finalize();
  EXPECT_NEAR(ConeRt(factored_here), 1e-3 * w_of_a, 1e-12 * w_of_a);
  // The factor given is used as it is (the builder vouches for it): L = 2 I
  // is A's, L = I would be that of A = I, whose W is four times larger.
  for (const double scale : {2.0, 1.0}) {
    ContactProblem given = OneCliqueProblem(j);
    given.EmplaceCliqueFactor(0) = scale * Eigen::MatrixXd::Identity(7, 7);
    given.Finalize();
    const double w = w_of_a * 4.0 / (scale * scale);
    EXPECT_NEAR(ConeRt(given), 1e-3 * w, 1e-12 * w) << scale;
  }
  // Rebuilt in place with the same A, factored here, then given a factor,
  // then without one again: the factor given is not kept for that build.
  ContactProblem rebuilt = OneCliqueProblem(j);
  for (const bool give : {false, true, false}) {
    BuildOneCliqueProblem(j, &rebuilt);
    if (give) rebuilt.EmplaceCliqueFactor(0) = Eigen::MatrixXd::Identity(7, 7);
    rebuilt.Finalize();
    const double w = give ? 4.0 * w_of_a : w_of_a;
    EXPECT_NEAR(ConeRt(rebuilt), 1e-3 * w, 1e-12 * w) << give;
  }
}

TEST(ContactProblem, DelassusEstimateUsesATreeFactorOfAGivenByTheBuilder) {
  // A floating base (a chain of 6 dofs) with two legs of 2 dofs each, A with
  // that branch pattern, and a contact on the second leg's foot (J zero on
  // the first leg): W = J A⁻¹ Jᵀ from A = Lᵀ L against Eigen's inverse.
  const std::vector<int> parent = {-1, 0, 1, 2, 3, 4, 5, 6, 5, 8};
  const int n = static_cast<int>(parent.size());
  Eigen::MatrixXd a = 0.5 * Eigen::MatrixXd::Identity(n, n);
  for (const int foot : {7, 9}) {  // Σ bᵀb over rows b on a foot's chain
    for (int row = 0; row < 3; ++row) {
      Eigen::VectorXd b = Eigen::VectorXd::Zero(n);
      for (int k = foot; k >= 0; k = parent[k]) b(k) = std::sin(1.0 + row + 2.0 * k);
      a += b * b.transpose();
    }
  }
  Eigen::MatrixXd j = Eigen::MatrixXd::Random(3, n);
  j.col(6).setZero();
  j.col(7).setZero();
  ContactProblem problem(0.01);
  problem.AddClique(a);
  problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(n));
  problem.AddConstraint({{0, j}}, Cone());
  TreeCholesky& factor = problem.EmplaceCliqueTreeFactor(0);
  factor.SetParents(parent);
  factor.mutable_matrix() = a;
  ASSERT_TRUE(factor.Factor());
  problem.Finalize();
  const double w = (j * a.inverse() * j.transpose()).norm() / 3.0;
  EXPECT_NEAR(ConeRt(problem), 1e-3 * w, 1e-12 * w);
  // A tree factor of another size is refused, as a dense one is.
  problem.EmplaceCliqueTreeFactor(0).SetParents({-1, 0});
  try {
    problem.Finalize();
    ADD_FAILURE() << "a 2-dof tree factor for a 10-dof clique was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "clique 0: the tree factor of A given has 2 parents, expected 10");
  }
}

TEST(ContactProblem, FactorOfAGivenWithTheWrongSizeOrANonPositivePivotIsRefused) {
  const Eigen::MatrixXd j = Eigen::MatrixXd::Random(3, 7);
  const auto message = [&](const Eigen::MatrixXd& factor) -> std::string {
    ContactProblem problem = OneCliqueProblem(j);
    problem.EmplaceCliqueFactor(0) = factor;
    try {
      problem.Finalize();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message(Eigen::MatrixXd::Identity(6, 6)),
            "clique 0: the factor of A given is 6×6, expected 7×7");
  Eigen::MatrixXd failed = 2.0 * Eigen::MatrixXd::Identity(7, 7);
  failed(4, 4) = -0.5;  // where a factorization of an indefinite A stops
  EXPECT_NE(message(failed).find("clique 0: A is not positive definite"),
            std::string::npos);
  failed(4, 4) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message(failed).find("clique 0: A is not positive definite"),
            std::string::npos);
  EXPECT_THROW(OneCliqueProblem(j).EmplaceCliqueFactor(1), std::invalid_argument);
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

// The products restricted to listed constraints and cliques: the listed
// entries are the whole products' (J x against dense J, Jᵀγ against Jᵀ, A x
// against blockdiag(A)), the others untouched.
TEST(ContactProblem, ProductsOverListedConstraintsAndCliquesMatchTheDenseOnes) {
  ContactProblem problem(0.01);
  const Eigen::Matrix2d a0 = 3.0 * Eigen::Matrix2d::Identity();
  const Eigen::Matrix3d a1 = Eigen::Vector3d(1.0, 2.0, 4.0).asDiagonal();
  problem.AddClique(a0);
  problem.AddClique(a1);
  problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(5));
  Eigen::MatrixXd dense_j = Eigen::MatrixXd::Zero(9, 5);
  for (int i = 0; i < 3; ++i) {  // constraint 1 touches both cliques
    std::vector<JacobianBlock> blocks;
    if (i != 2) blocks.push_back({0, Eigen::MatrixXd::Random(3, 2)});
    if (i != 0) blocks.push_back({1, Eigen::MatrixXd::Random(3, 3)});
    for (const JacobianBlock& block : blocks)
      dense_j.block(3 * i, block.clique == 0 ? 0 : 2, 3, block.matrix.cols()) =
          block.matrix;
    problem.AddConstraint(std::move(blocks), ConstraintVector::Constant(3, 7.0), Cone());
  }
  problem.Finalize();
  const Eigen::VectorXd x = Eigen::VectorXd::Random(5),
                        gamma = Eigen::VectorXd::Random(9);
  const std::vector<int> listed = {2, 0};

  Eigen::VectorXd y = Eigen::VectorXd::Constant(9, -1.0);
  problem.MultiplyByJacobian(x, listed, y);
  const Eigen::VectorXd jx = dense_j * x;  // no bias
  EXPECT_TRUE(y.head(3).isApprox(jx.head(3), 1e-14));
  EXPECT_EQ(y.segment(3, 3), Eigen::Vector3d::Constant(-1.0));
  EXPECT_TRUE(y.tail(3).isApprox(jx.tail(3), 1e-14));

  Eigen::VectorXd generalized = Eigen::VectorXd::Ones(5);
  problem.AddJacobianTransposeTimes(gamma, listed, generalized);
  Eigen::VectorXd listed_gamma = gamma;
  listed_gamma.segment(3, 3).setZero();
  const Eigen::VectorXd expected =
      Eigen::VectorXd::Ones(5) + dense_j.transpose() * listed_gamma;
  EXPECT_TRUE(generalized.isApprox(expected, 1e-14));

  Eigen::VectorXd ax = Eigen::VectorXd::Constant(5, -1.0);
  problem.MultiplyByA(x, std::vector<int>{1}, ax);
  EXPECT_EQ(ax.head(2), Eigen::Vector2d::Constant(-1.0));
  EXPECT_TRUE(ax.tail(3).isApprox(a1 * x.tail(3), 1e-15));
}

TEST(ContactProblem, SubproblemReadsTheSourcesConstraintsInPlace) {
  ContactProblem whole(0.01);
  whole.AddClique(Eigen::Matrix2d::Identity());
  whole.AddClique(2.0 * Eigen::Matrix3d::Identity());
  whole.SetFreeMotionVelocities(Eigen::VectorXd::LinSpaced(5, -1.0, 1.0));
  for (int i = 0; i < 3; ++i) {
    whole.AddConstraint({{i % 2, Eigen::MatrixXd::Random(3, 2 + i % 2)}},
                        ConstraintVector::Constant(3, 0.1 * i), Cone());
  }
  whole.Finalize();
  ContactProblem sub(0.01);
  sub.ResetToSubproblem(whole, {0, 2});
  ASSERT_EQ(sub.num_constraints(), 2);
  EXPECT_EQ(&sub.constraint(1), &whole.constraint(2));  // not a copy
  EXPECT_EQ(sub.constraint_offset(1), 3);
  EXPECT_EQ(sub.v_star(), whole.v_star());
  // Its v_c = J v + b: the rows of the source's kept constraints.
  const Eigen::VectorXd v = Eigen::VectorXd::Random(5);
  Eigen::VectorXd v_c_whole, v_c_sub;
  whole.CalcConstraintVelocities(v, &v_c_whole);
  sub.CalcConstraintVelocities(v, &v_c_sub);
  ASSERT_EQ(v_c_sub.size(), 6);
  EXPECT_EQ(v_c_sub.head(3), v_c_whole.head(3));
  EXPECT_EQ(v_c_sub.tail(3), v_c_whole.tail(3));
  // The next round of a working set: other constraints, the same cliques.
  sub.ResetToSubproblem(whole, {1});
  ASSERT_EQ(sub.num_constraints(), 1);
  EXPECT_EQ(&sub.constraint(0), &whole.constraint(1));
  EXPECT_EQ(sub.num_constraint_equations(), 3);
  ASSERT_EQ(sub.num_cliques(), 2);
  EXPECT_EQ(sub.clique_matrix(1), whole.clique_matrix(1));
  // A source rebuilt in place (a new revision) is copied again.
  whole.Clear();
  whole.AddClique(3.0 * Eigen::Matrix3d::Identity());
  whole.SetFreeMotionVelocities(Eigen::VectorXd::Ones(3));
  whole.AddConstraint({{0, Eigen::MatrixXd::Identity(3, 3)}}, Cone());
  whole.Finalize();
  sub.ResetToSubproblem(whole, {0});
  ASSERT_EQ(sub.num_cliques(), 1);
  EXPECT_EQ(sub.clique_matrix(0), whole.clique_matrix(0));
  EXPECT_EQ(sub.v_star(), whole.v_star());
  EXPECT_EQ(sub.num_dofs(), 3);
  EXPECT_THROW(sub.Finalize(), std::logic_error);
  EXPECT_THROW(sub.EmplaceConstraint(), std::logic_error);
  sub.Clear();  // a problem of its own again
  EXPECT_NO_THROW(sub.EmplaceConstraint());
}

TEST(ContactProblem, RebuiltInPlaceEachKindKeepsItsSlots) {
  // Built as a stepper does: contacts (kind 0), then a joint constraint
  // (kind -1). With three contacts, then one, then three again, the joint
  // constraint's slot is always the same object, and so are the contacts'.
  ContactProblem problem(0.01);
  const auto build = [&](int contacts) -> std::vector<const ProblemConstraint*> {
    problem.Clear();
    problem.EmplaceClique(2) = Eigen::Matrix2d::Identity();
    problem.mutable_v_star() = Eigen::Vector2d::Zero();
    std::vector<const ProblemConstraint*> slots;
    for (int i = 0; i < contacts + 1; ++i) {
      const int kind = i < contacts ? 0 : -1;
      ProblemConstraint& slot = problem.EmplaceConstraint(kind);
      slot.jacobian.resize(1);
      slot.jacobian[0] = {0, Eigen::MatrixXd::Random(kind == 0 ? 3 : 1, 2)};
      slot.bias.setZero(kind == 0 ? 3 : 1);
      if (kind == 0) {
        EmplaceConstraintPotential<SapFrictionCone>(
            &slot.potential, SapContactParameters{}, Eigen::Vector3d::Zero());
      } else {
        EmplaceConstraintPotential<SapUnilateralConstraint>(
            &slot.potential, SapUnilateralConstraint::Parameters{}, 0.0);
      }
      slots.push_back(&slot);
      EXPECT_EQ(slot.kind, kind);
    }
    problem.Finalize();
    return slots;
  };
  const std::vector<const ProblemConstraint*> three = build(3);
  const ConvexConstraint* limit = three[3]->potential.get();
  const std::vector<const ProblemConstraint*> one = build(1);
  EXPECT_EQ(one[1]->potential.get(), limit);  // found past the spare contact slots
  const std::vector<const ProblemConstraint*> again = build(3);
  EXPECT_EQ(again[3]->potential.get(), limit);
  for (int i = 0; i < 3; ++i) {  // each contact slot was a contact's before
    EXPECT_NE(dynamic_cast<const SapFrictionCone*>(again[i]->potential.get()), nullptr);
  }
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

// A clique's A: a non-finite entry anywhere, or an asymmetry anywhere beyond
// round-off, is refused with what is wrong; a symmetric A is accepted.
TEST(ContactProblem, RefusesEveryNonFiniteOrAsymmetricEntryOfA) {
  const auto message = [](const Eigen::MatrixXd& a) -> std::string {
    try {
      ContactProblem(0.01).AddClique(a);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  const int n = 5;
  const Eigen::MatrixXd spd =
      4.0 * Eigen::MatrixXd::Identity(n, n) + Eigen::MatrixXd::Constant(n, n, 0.5);
  EXPECT_EQ(message(spd), "accepted");
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (const double bad : {std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity()}) {
        Eigen::MatrixXd a = spd;
        a(i, j) = bad;
        EXPECT_NE(message(a).find("non-finite entries"), std::string::npos) << i << j;
      }
      if (i == j) continue;
      Eigen::MatrixXd a = spd;
      a(i, j) += 1e-6;
      EXPECT_NE(message(a).find("not symmetric"), std::string::npos) << i << j;
      a(i, j) = spd(i, j) * (1.0 + 1e-14);  // round-off
      EXPECT_EQ(message(a), "accepted") << i << j;
    }
  }
}

// Every non-finite entry of a Jacobian block or bias is refused, wherever it
// is; finite entries are accepted however large.
TEST(ContactProblem, RejectsNonFiniteJacobiansAndBiasesAndAcceptsLargeOnes) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto message = InvalidArgumentMessage;
  for (const double bad : {nan, inf, -inf}) {
    for (int entry = 0; entry < 18; ++entry) {
      ContactProblem problem(0.01);
      problem.AddClique(Eigen::Matrix<double, 6, 6>::Identity());
      Eigen::MatrixXd j = Eigen::MatrixXd::Random(3, 6);
      j(entry % 3, entry / 3) = bad;
      EXPECT_NE(message([&] {
                  problem.AddConstraint({{0, j}}, Cone());
                }).find("Jacobian is not finite"),
                std::string::npos)
          << "entry " << entry << " = " << bad;
    }
    for (int entry = 0; entry < 3; ++entry) {
      ContactProblem problem(0.01);
      problem.AddClique(Eigen::Matrix<double, 6, 6>::Identity());
      Eigen::Vector3d bias = Eigen::Vector3d::Zero();
      bias(entry) = bad;
      EXPECT_NE(
          message([&] {
            problem.AddConstraint({{0, Eigen::MatrixXd::Random(3, 6)}}, bias, Cone());
          }).find("bias must be finite"),
          std::string::npos)
          << "bias entry " << entry << " = " << bad;
    }
  }
  ContactProblem problem(0.01);
  problem.AddClique(Eigen::Matrix<double, 6, 6>::Identity());
  const Eigen::MatrixXd large = 1e300 * Eigen::MatrixXd::Ones(3, 6);
  EXPECT_EQ(
      message([&] {
        problem.AddConstraint({{0, large}}, Eigen::Vector3d::Constant(1e300), Cone());
      }),
      "accepted");
}

// A problem built in place and finalized, as a stepper builds one, rejects a
// non-finite Jacobian entry wherever it is: every entry of a contact on a
// rigid body (the 3 × 6 kernel, A⁻¹ dense) and on a 2-dof clique, one
// contact on both. Entries too large for J A⁻¹ Jᵀ are refused by the
// Delassus estimate.
TEST(ContactProblem, FinalizeRejectsNonFiniteJacobiansItBuiltInPlace) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Eigen::Matrix<double, 6, 6> dense = Eigen::Matrix<double, 6, 6>::Random();
  dense = dense * dense.transpose() + Eigen::Matrix<double, 6, 6>::Identity();
  const auto finalize_message = [&](int bad_block, int entry, double bad) -> std::string {
    ContactProblem problem(0.01);
    problem.EmplaceClique(6) = dense;
    problem.EmplaceClique(2) = Eigen::Matrix2d::Identity();
    problem.mutable_v_star() = Eigen::VectorXd::Zero(8);
    ProblemConstraint& slot = problem.EmplaceConstraint();
    slot.jacobian = {{0, Eigen::MatrixXd::Random(3, 6)},
                     {1, Eigen::MatrixXd::Random(3, 2)}};
    Eigen::MatrixXd& block = slot.jacobian[bad_block].matrix;
    block(entry % 3, (entry / 3) % block.cols()) = bad;
    slot.bias.setZero(3);
    slot.potential = Cone();
    try {
      problem.Finalize();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  for (const double bad : {nan, inf, -inf}) {
    for (int entry = 0; entry < 18; ++entry) {
      EXPECT_NE(finalize_message(0, entry, bad).find("Jacobian is not finite"),
                std::string::npos)
          << "rigid-body entry " << entry << " = " << bad;
    }
    for (int entry = 0; entry < 6; ++entry) {
      EXPECT_NE(finalize_message(1, entry, bad).find("Jacobian is not finite"),
                std::string::npos)
          << "2-dof entry " << entry << " = " << bad;
    }
  }
  EXPECT_NE(finalize_message(0, 4, 1e300).find("Delassus estimate"), std::string::npos);
  EXPECT_EQ(finalize_message(0, 4, 1e3), "accepted");
}

// A constraint built in place is checked by Finalize as AddConstraint checks
// one handed to it: each defect of its shape gives the same error on both
// paths, whether it has one, two or three Jacobian blocks (Finalize's quick
// check of the common contact must hand every defect to the full one).
TEST(ContactProblem, FinalizeFindsEveryShapeDefectAddConstraintFinds) {
  struct Defect {
    const char* what;
    std::function<void(ProblemConstraint*)> apply;
  };
  const Eigen::MatrixXd on_6 = Eigen::MatrixXd::Random(3, 6);
  const Eigen::MatrixXd on_3 = Eigen::MatrixXd::Random(3, 3);
  const std::vector<Defect> defects = {
      {"none", [](ProblemConstraint*) {}},
      {"no potential", [](ProblemConstraint* c) { c->potential.reset(); }},
      {"no blocks", [](ProblemConstraint* c) { c->jacobian.clear(); }},
      {"short bias", [](ProblemConstraint* c) { c->bias.setZero(2); }},
      {"NaN bias",
       [](ProblemConstraint* c) {
         c->bias(1) = std::numeric_limits<double>::quiet_NaN();
       }},
      {"no such clique", [](ProblemConstraint* c) { c->jacobian[1].clique = 7; }},
      {"negative clique", [](ProblemConstraint* c) { c->jacobian[0].clique = -1; }},
      {"one clique twice",
       [&](ProblemConstraint* c) {
         c->jacobian[1] = {0, on_6};
       }},
      {"wrong columns",
       [](ProblemConstraint* c) { c->jacobian[0].matrix = Eigen::MatrixXd::Zero(3, 5); }},
      {"wrong rows",
       [](ProblemConstraint* c) { c->jacobian[1].matrix = Eigen::MatrixXd::Zero(2, 3); }},
      {"body parts without a tree",
       [](ProblemConstraint* c) {
         c->jacobian[0].bodies.push_back({0, PointVelocityMap(Eigen::Vector3d::Zero())});
       }},
      {"third block repeats the first",
       [&](ProblemConstraint* c) {
         c->jacobian.push_back({0, on_6});
       }},
      {"third block valid",
       [&](ProblemConstraint* c) {
         c->jacobian.push_back({2, on_3});
       }},
  };
  const auto fill = [&](ProblemConstraint* c, const Defect& defect) {
    c->jacobian = {{0, on_6}, {1, on_3}};
    c->bias = Eigen::Vector3d::Zero();
    c->potential = Cone();
    defect.apply(c);
  };
  const auto message = InvalidArgumentMessage;
  const auto problem_of_three_cliques = [] {
    ContactProblem problem(0.01);
    problem.EmplaceClique(6) = Eigen::MatrixXd::Identity(6, 6);
    problem.EmplaceClique(3) = Eigen::MatrixXd::Identity(3, 3);
    problem.EmplaceClique(3) = Eigen::MatrixXd::Identity(3, 3);
    problem.mutable_v_star() = Eigen::VectorXd::Zero(12);
    return problem;
  };
  for (const Defect& defect : defects) {
    ContactProblem added = problem_of_three_cliques();
    ProblemConstraint given;
    fill(&given, defect);
    const std::string add_message = message([&] {
      added.AddConstraint(std::move(given.jacobian), std::move(given.bias),
                          std::move(given.potential));
    });
    ContactProblem in_place = problem_of_three_cliques();
    fill(&in_place.EmplaceConstraint(), defect);
    const std::string finalize_message = message([&] { in_place.Finalize(); });
    const bool valid = defect.what == std::string("none") ||
                       defect.what == std::string("third block valid");
    EXPECT_EQ(add_message == "accepted", valid) << defect.what << ": " << add_message;
    EXPECT_EQ(finalize_message, add_message) << defect.what;
  }
}

// Finalize reads a Jacobian's finiteness off its Delassus estimate, so every
// way of forming J A⁻¹ Jᵀ must see a bad entry: a one-row constraint on a
// 6-dof clique (A⁻¹ times Jᵀ) and on a clique whose A comes with a tree
// factor (one triangular solve), each entry in turn.
TEST(ContactProblem, FinalizeRejectsNonFiniteJacobiansOnEveryDelassusPath) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Eigen::Matrix<double, 6, 6> dense = Eigen::Matrix<double, 6, 6>::Random();
  dense = dense * dense.transpose() + Eigen::Matrix<double, 6, 6>::Identity();
  const std::vector<int> chain = {-1, 0, 1, 1};  // a tree of four dofs
  Eigen::Matrix4d tree_a = Eigen::Matrix4d::Identity();
  tree_a(1, 0) = tree_a(0, 1) = 0.3;
  tree_a(2, 1) = tree_a(1, 2) = tree_a(3, 1) = tree_a(1, 3) = 0.2;
  const auto finalize_message = [&](int clique, int entry, double bad) -> std::string {
    ContactProblem problem(0.01);
    problem.EmplaceClique(6) = dense;
    problem.EmplaceClique(4) = tree_a;
    TreeCholesky& factor = problem.EmplaceCliqueTreeFactor(1);
    factor.SetParents(chain);
    factor.mutable_matrix() = tree_a;
    EXPECT_TRUE(factor.Factor());
    problem.mutable_v_star() = Eigen::VectorXd::Zero(10);
    ProblemConstraint& slot = problem.EmplaceConstraint();
    Eigen::MatrixXd row = Eigen::MatrixXd::Random(1, clique == 0 ? 6 : 4);
    if (entry >= 0) row(0, entry) = bad;
    slot.jacobian = {{clique, row}};
    slot.bias.setZero(1);
    EmplaceConstraintPotential<SapUnilateralConstraint>(
        &slot.potential, SapUnilateralConstraint::Parameters{}, 0.0);
    try {
      problem.Finalize();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  for (const int clique : {0, 1}) {
    EXPECT_EQ(finalize_message(clique, -1, 0.0), "accepted");
    for (const double bad : {nan, inf, -inf}) {
      for (int entry = 0; entry < (clique == 0 ? 6 : 4); ++entry) {
        EXPECT_NE(finalize_message(clique, entry, bad).find("Jacobian is not finite"),
                  std::string::npos)
            << "clique " << clique << " entry " << entry << " = " << bad;
      }
    }
  }
}

// A problem on five 3-dof cliques whose constraints touch the listed clique
// tuples (each block the identity).
ContactProblem WithTuples(const std::vector<std::vector<int>>& tuples) {
  ContactProblem problem(0.01);
  for (int t = 0; t < 5; ++t) problem.AddClique(Eigen::Matrix3d::Identity());
  problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(15));
  for (const std::vector<int>& tuple : tuples) {
    std::vector<JacobianBlock> jacobian;
    for (int clique : tuple)
      jacobian.push_back({clique, Eigen::MatrixXd::Identity(3, 3)});
    problem.AddConstraint(std::move(jacobian), Cone());
  }
  problem.Finalize();
  return problem;
}

// The symbolic work depends on the set of clique tuples only: the same set
// in another order, with repeats, keeps it (Update false); any tuple of one,
// two or three cliques replaced by another redoes it (Update true).
TEST(CliqueCoupling, UpdateKeepsTheAnalysisExactlyWhileTheTupleSetIsTheSame) {
  const std::vector<std::vector<int>> base = {{0, 1}, {2}, {1, 3, 4}, {3, 4}};
  CliqueCoupling coupling(WithTuples(base));
  const std::vector<std::vector<int>> same_sets[] = {
      {{4, 3}, {1, 0}, {2}, {2}, {4, 1, 3}, {0, 1}},
      {{2}, {3, 4}, {1, 0}, {3, 1, 4}, {1, 3, 4}},
  };
  for (const auto& tuples : same_sets) {
    EXPECT_FALSE(coupling.Update(WithTuples(tuples)));
    EXPECT_TRUE(coupling.Matches(WithTuples(tuples)));
  }
  const std::vector<std::vector<int>> other_sets[] = {
      {{0, 2}, {2}, {1, 3, 4}, {3, 4}},          // a pair's other clique
      {{0, 1}, {1}, {1, 3, 4}, {3, 4}},          // a single clique
      {{0, 1}, {2}, {0, 2}, {1, 3, 4}, {3, 4}},  // one more pair
      {{0, 1}, {2}, {0, 3, 4}, {3, 4}},          // a triple
      {{0, 1}, {0}, {2}, {1, 3, 4}, {3, 4}},     // one more single clique
  };
  for (const auto& tuples : other_sets) {
    ASSERT_FALSE(coupling.Update(WithTuples(base)));
    EXPECT_TRUE(coupling.Update(WithTuples(tuples)));
    EXPECT_TRUE(coupling.Update(WithTuples(base)));
  }
}

}  // namespace
}  // namespace coulomb

namespace coulomb {
namespace {

// A random tree clique with one contact through two of its bodies (and the
// world), which Finalize must accept; then the ways it can be wrong.
struct TreeProblemCase {
  testing::RandomTree random = testing::MakeRandomTree(6, 3);
  std::vector<BodyJacobian> bodies = {testing::RandomPointOnBody(5, 1.0, 1),
                                      testing::RandomPointOnBody(2, -1.0, 2)};
  ContactProblem Build() const {
    ContactProblem problem(0.01);
    problem.AddClique(random.a);
    problem.SetCliqueTree(0, random.tree);
    problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(6));
    problem.AddConstraint({{0, testing::DenseBlock(random.tree, bodies), bodies}},
                          Cone());
    return problem;
  }
};

std::string FinalizeError(ContactProblem problem) {
  try {
    problem.Finalize();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ContactProblem, AcceptsTreesAndBodyPartsThatAgreeWithTheJacobian) {
  TreeProblemCase c;
  ContactProblem problem = c.Build();
  EXPECT_NO_THROW(problem.Finalize());
  ASSERT_NE(problem.clique_tree(0), nullptr);
  EXPECT_EQ(problem.clique_tree(0)->parent, c.random.tree.parent);
}

TEST(ContactProblem, RejectsTreesAndBodyPartsThatDisagreeWithTheData) {
  {  // a parent after its child
    TreeProblemCase c;
    c.random.tree.parent[3] = 4;
    EXPECT_NE(FinalizeError(c.Build()).find("parent of dof 3"), std::string::npos);
  }
  {  // A couples two dofs on different branches
    TreeProblemCase c;
    int k = 1, l = 0;  // find a pair that is not on one chain
    for (k = 1; k < 6; ++k) {
      const auto on_chain = [&](int from, int to) {
        for (int j = from; j >= 0; j = c.random.tree.parent[j])
          if (j == to) return true;
        return false;
      };
      for (l = 0; l < k && on_chain(k, l); ++l) {
      }
      if (l < k) break;
    }
    ASSERT_LT(k, 6) << "the random tree is a chain; pick another seed";
    c.random.a(k, l) = c.random.a(l, k) = 0.01;
    EXPECT_NE(FinalizeError(c.Build()).find("neither dof is an ancestor"),
              std::string::npos);
  }
  {  // a body part that does not match the Jacobian block
    TreeProblemCase c;
    ContactProblem problem = c.Build();
    ProblemConstraint& constraint = problem.EmplaceConstraint();
    constraint.jacobian = {{0, testing::DenseBlock(c.random.tree, c.bodies), c.bodies}};
    constraint.jacobian[0].bodies[1].map(0, 0) += 1e-3;
    constraint.bias.setZero(3);
    constraint.potential = Cone();
    EXPECT_NE(FinalizeError(std::move(problem)).find("body parts disagree"),
              std::string::npos);
  }
  {  // body parts on a clique without a tree
    TreeProblemCase c;
    ContactProblem problem(0.01);
    problem.AddClique(c.random.a);
    problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(6));
    EXPECT_THROW(
        problem.AddConstraint(
            {{0, testing::DenseBlock(c.random.tree, c.bodies), c.bodies}}, Cone()),
        std::invalid_argument);
  }
}

}  // namespace
}  // namespace coulomb
