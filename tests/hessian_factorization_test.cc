#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/contact/dense_problem_matrices.h"
#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/solvers/hessian_factorization.h"

namespace coulomb {
namespace {

// Random A_t and J on given cliques: each contact acts on one or two cliques.
class RandomProblem {
 public:
  RandomProblem(unsigned seed, std::vector<int> clique_sizes,
                std::vector<std::vector<int>> contact_cliques)
      : problem_(0.01),
        random_(seed),
        clique_sizes_(std::move(clique_sizes)),
        contact_cliques_(std::move(contact_cliques)) {
    int num_dofs = 0;
    for (int size : clique_sizes_) {
      const Eigen::MatrixXd b = Random(size, size);
      problem_.AddClique(b * b.transpose() +
                         size * Eigen::MatrixXd::Identity(size, size));
      num_dofs += size;
    }
    problem_.SetFreeMotionVelocities(Eigen::VectorXd::Zero(num_dofs));
    for (int i = 0; i < num_contacts(); ++i)
      problem_.AddConstraint(RandomJacobian(i), MakeCone());
    problem_.Finalize();
  }

  int num_contacts() const { return static_cast<int>(contact_cliques_.size()); }

  // The same cliques and constraint pattern, new Jacobian values.
  void NewJacobians() {
    ContactProblem next(problem_.time_step());
    next.ResetCliquesFrom(problem_);
    for (int i = 0; i < num_contacts(); ++i) {
      ProblemConstraint& slot = next.EmplaceConstraint();
      slot.jacobian = RandomJacobian(i);
      slot.bias = ConstraintVector::Zero(3);
      slot.potential = MakeCone();
    }
    next.Finalize();
    problem_ = std::move(next);
  }

  // A random symmetric positive semidefinite G_i (zero when `open`).
  ConstraintMatrix RandomHessian(bool open = false) {
    if (open) return ConstraintMatrix::Zero(3, 3);
    const Eigen::Matrix3d b = Random(3, 3);
    return b * b.transpose() * 1e3;
  }

  // H⁻¹ rhs from H = A + Σ J_iᵀ G_i J_i formed densely: the reference.
  Eigen::VectorXd DenseSolve(const std::vector<ConstraintMatrix>& hessians,
                             const Eigen::VectorXd& rhs) const {
    Eigen::MatrixXd a, j;
    AssembleDenseA(problem_, &a);
    AssembleDenseJacobian(problem_, &j);
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(3 * num_contacts(), 3 * num_contacts());
    for (int i = 0; i < num_contacts(); ++i) g.block<3, 3>(3 * i, 3 * i) = hessians[i];
    return (a + j.transpose() * g * j).llt().solve(rhs);
  }

  const ContactProblem& problem() const { return problem_; }

 private:
  Eigen::MatrixXd Random(int rows, int cols) {
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    Eigen::MatrixXd m(rows, cols);
    for (int k = 0; k < m.size(); ++k) m.data()[k] = uniform(random_);
    return m;
  }

  std::vector<JacobianBlock> RandomJacobian(int contact) {
    std::vector<JacobianBlock> jacobian;
    for (int clique : contact_cliques_[contact])
      jacobian.push_back({clique, Random(3, clique_sizes_[clique])});
    return jacobian;
  }
  static std::unique_ptr<SapFrictionCone> MakeCone() {
    return std::make_unique<SapFrictionCone>(SapContactParameters{},
                                             Eigen::Vector3d(0.0, 0.0, -0.1));
  }

  ContactProblem problem_;
  std::mt19937 random_;
  std::vector<int> clique_sizes_;
  std::vector<std::vector<int>> contact_cliques_;
};

// One dense clique of 8 dofs and five contacts on it: a supernode larger than
// a body, whose A + JᵀGJ is kept and updated.
RandomProblem DenseClique(unsigned seed) {
  return RandomProblem(seed, {8}, {{0}, {0}, {0}, {0}, {0}});
}

// Seven free bodies in a chain, contacts between neighbours and with the
// ground: supernodes of one body, refactored where a changed G_i reaches.
RandomProblem BodyChain(unsigned seed) {
  return RandomProblem(seed, {6, 6, 6, 6, 6, 6, 6},
                       {{0}, {0, 1}, {1, 2}, {2, 3}, {3}, {3, 4}, {4, 5}, {5, 6}, {6}});
}

void ExpectFollowsEveryChangeOfH(LinearSolverType type, RandomProblem* setup) {
  std::unique_ptr<HessianFactorization> factorization =
      MakeHessianFactorization(type, setup->problem());
  const int num_dofs = setup->problem().num_dofs();
  const Eigen::VectorXd rhs = Eigen::VectorXd::LinSpaced(num_dofs, -1, 2);
  const int num_contacts = setup->num_contacts();
  std::vector<ConstraintMatrix> hessians;
  for (int i = 0; i < num_contacts; ++i) hessians.push_back(setup->RandomHessian());

  const auto expect_solves_h = [&](const char* what) {
    SCOPED_TRACE(what);
    ASSERT_TRUE(factorization->Factor(setup->problem(), hessians));
    Eigen::VectorXd x = rhs;
    factorization->Solve(x);
    const Eigen::VectorXd expected = setup->DenseSolve(hessians, rhs);
    EXPECT_LT((x - expected).norm(), 1e-12 * expected.norm());
  };
  factorization->LoadJacobians(setup->problem());
  expect_solves_h("first");
  hessians[2] = setup->RandomHessian();
  expect_solves_h("one G changed");
  expect_solves_h("none changed");
  hessians[1] = setup->RandomHessian(/*open=*/true);
  hessians[4] = setup->RandomHessian(/*open=*/true);
  expect_solves_h("two contacts opened");
  for (ConstraintMatrix& g : hessians) g = setup->RandomHessian();
  expect_solves_h("all changed");
  for (int round = 0; round < 40; ++round) {
    hessians[round % num_contacts] = setup->RandomHessian(round % 3 == 0);
    expect_solves_h("one of forty single changes");
  }
  setup->NewJacobians();
  factorization->LoadJacobians(setup->problem());
  expect_solves_h("new Jacobians, same G");
}

// The factor follows every change of H: one G_i changed (updated in place or
// refactored where it reaches), none (kept), all (assembled anew), open
// contacts (G_i = 0), forty single changes in a row (round-off of the updates
// stays bounded), and a new problem whose G_i equal the last ones (J changed:
// nothing may be kept); on a dense clique and on a chain of bodies.
TEST(HessianFactorization, FollowsEveryChangeOfHWhenKeepingOrUpdatingIt) {
  for (LinearSolverType type : {LinearSolverType::kSparse, LinearSolverType::kDense}) {
    for (const bool chain : {false, true}) {
      SCOPED_TRACE(type == LinearSolverType::kSparse ? "block sparse" : "dense");
      SCOPED_TRACE(chain ? "chain of bodies" : "dense clique");
      RandomProblem setup = chain ? BodyChain(7) : DenseClique(7);
      ExpectFollowsEveryChangeOfH(type, &setup);
    }
  }
}

// Two islands of bodies, {0, 1, 2} and {3, 4}, apart while the contact
// between bodies 2 and 3 (constraint 3) is open (G_3 = 0).
RandomProblem TwoIslands(unsigned seed) {
  return RandomProblem(seed, {6, 6, 6, 6, 6}, {{0}, {0, 1}, {1, 2}, {2, 3}, {3}, {3, 4}});
}

// An island set aside keeps its factor while the other is refactored, even
// where the elimination tree runs from one into the other through the open
// contact between them (a path: minimum degree eliminates body 0 first and
// ends in the island aside); taken back in, its factor serves again, and so
// after a G_i of it changed while it was aside (the solver does not change
// them, but nothing may be missed if it did); one aside since new Jacobians
// were loaded, or since a factorization failed, has no factor of them and
// gets one.
void ExpectFollowsIslandsSetAsideAndTakenBack(LinearSolverType type, bool one_by_one) {
  RandomProblem setup = TwoIslands(11);
  const ContactProblem& problem = setup.problem();
  std::unique_ptr<HessianFactorization> factorization =
      MakeHessianFactorization(type, problem);
  factorization->LoadJacobians(problem);
  const Eigen::VectorXd rhs = Eigen::VectorXd::LinSpaced(problem.num_dofs(), -1, 2);
  std::vector<ConstraintMatrix> hessians;
  for (int i = 0; i < setup.num_contacts(); ++i)
    hessians.push_back(setup.RandomHessian(/*open=*/i == 3));
  const int first_aside = problem.clique_offset(3);  // island {3, 4}'s dofs follow
  const auto expect_solves_h = [&](const char* what, int solved_dofs) {
    SCOPED_TRACE(what);
    ASSERT_TRUE(factorization->Factor(problem, hessians));
    Eigen::VectorXd x = rhs;
    factorization->Solve(x);
    const Eigen::VectorXd expected = setup.DenseSolve(hessians, rhs);
    EXPECT_LT((x - expected).head(solved_dofs).norm(),
              1e-12 * expected.head(solved_dofs).norm());
  };
  const auto set_aside = [&] {
    if (one_by_one) {
      const std::vector<int> aside = {3, 4};
      factorization->SetCliquesAside(aside);
    } else {
      factorization->SetActiveCliques({1, 1, 1, 0, 0});
    }
  };
  const int all = problem.num_dofs();
  expect_solves_h("all active", all);
  set_aside();
  hessians[1] = setup.RandomHessian();
  expect_solves_h("one G changed, an island aside", first_aside);
  for (int i : {0, 1, 2}) hessians[i] = setup.RandomHessian();
  expect_solves_h("every active G changed, an island aside", first_aside);
  factorization->SetActiveCliques({1, 1, 1, 1, 1});
  expect_solves_h("taken back in", all);
  hessians[5] = setup.RandomHessian();
  expect_solves_h("one G changed on the island taken back", all);
  set_aside();
  hessians[0] = setup.RandomHessian();
  hessians[4] = setup.RandomHessian();  // while aside
  expect_solves_h("aside again", first_aside);
  factorization->SetActiveCliques({1, 1, 1, 1, 1});
  expect_solves_h("taken back in after a G changed aside", all);
  set_aside();
  hessians[2] = setup.RandomHessian();
  expect_solves_h("aside once more", first_aside);
  factorization->SetActiveCliques({1, 1, 1, 1, 1});
  hessians[3] = setup.RandomHessian();  // the contact between the islands engages
  expect_solves_h("joined", all);
  hessians[3] = setup.RandomHessian(/*open=*/true);
  setup.NewJacobians();
  factorization->LoadJacobians(problem);
  set_aside();
  expect_solves_h("new Jacobians, an island aside from the start", first_aside);
  factorization->SetActiveCliques({1, 1, 1, 1, 1});
  expect_solves_h("taken back in, never factored with them", all);
  // A factorization that fails leaves no supernode a factor, not even one
  // set aside before the next succeeds.
  const ConstraintMatrix kept = hessians[5];
  hessians[5] = -1e9 * ConstraintMatrix::Identity(3, 3);  // H not positive definite
  EXPECT_FALSE(factorization->Factor(problem, hessians));
  hessians[5] = kept;
  set_aside();
  expect_solves_h("aside after a failed factorization", first_aside);
  factorization->SetActiveCliques({1, 1, 1, 1, 1});
  expect_solves_h("taken back in after a failed factorization", all);
}

TEST(HessianFactorization, FollowsIslandsSetAsideAndTakenBackIn) {
  for (LinearSolverType type : {LinearSolverType::kSparse, LinearSolverType::kDense}) {
    for (const bool one_by_one : {false, true}) {
      SCOPED_TRACE(type == LinearSolverType::kSparse ? "block sparse" : "dense");
      SCOPED_TRACE(one_by_one ? "SetCliquesAside" : "SetActiveCliques");
      ExpectFollowsIslandsSetAsideAndTakenBack(type, one_by_one);
    }
  }
}

// A contact between an island aside and an active one (open: G_i = 0) adds
// nothing to the active island's H, whichever of its bodies comes first, even
// when it carried an impulse in the problem before (its G J rows then hold
// what that problem put there, with its Jacobians). A simulation's step
// failed on a pivot that was not positive definite when those rows were
// taken in with the new Jacobians.
TEST(HessianFactorization, AContactBetweenAnIslandAsideAndAnActiveOneAddsNothing) {
  for (const bool aside_first : {false, true}) {
    SCOPED_TRACE(aside_first ? "island {0, 1, 2} aside" : "island {3, 4} aside");
    // TwoIslands with a last clique of 3 dofs (a robot's): not only contacts
    // on free bodies, so H is assembled from the stacked G J rows.
    RandomProblem setup(13, {6, 6, 6, 6, 3}, {{0}, {0, 1}, {1, 2}, {2, 3}, {3}, {3, 4}});
    const ContactProblem& problem = setup.problem();
    std::unique_ptr<HessianFactorization> factorization =
        MakeHessianFactorization(LinearSolverType::kSparse, problem);
    std::vector<ConstraintMatrix> hessians;
    for (int i = 0; i < setup.num_contacts(); ++i)
      hessians.push_back(setup.RandomHessian());
    factorization->LoadJacobians(problem);
    ASSERT_TRUE(factorization->Factor(problem, hessians));  // contact 3 engaged
    setup.NewJacobians();
    factorization->LoadJacobians(problem);
    hessians[3] = setup.RandomHessian(/*open=*/true);
    const std::vector<char> active =
        aside_first ? std::vector<char>{0, 0, 0, 1, 1} : std::vector<char>{1, 1, 1, 0, 0};
    factorization->SetActiveCliques(active);
    ASSERT_TRUE(factorization->Factor(problem, hessians));
    const Eigen::VectorXd rhs = Eigen::VectorXd::LinSpaced(problem.num_dofs(), -1, 2);
    Eigen::VectorXd x = rhs;
    factorization->Solve(x);
    const Eigen::VectorXd expected = setup.DenseSolve(hessians, rhs);
    const int split = problem.clique_offset(3);
    const auto solved = [&](const Eigen::VectorXd& v) -> Eigen::VectorXd {
      return aside_first ? v.tail(v.size() - split) : v.head(split);
    };
    EXPECT_LT((solved(x) - solved(expected)).norm(), 1e-12 * solved(expected).norm());
  }
}

}  // namespace
}  // namespace coulomb
