#include <cmath>
#include <initializer_list>
#include <numeric>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/solvers/sap_line_search.h"

namespace coulomb {
namespace {

// ℓ_p of a random contact problem along v + α Δv, Δv = −s ∇ℓ_p(v), as an
// IslandLineFunction over all of its constraints (one island), with a fresh,
// unrestricted copy for reference values.
class LineAlongSteepestDescent {
 public:
  explicit LineAlongSteepestDescent(uint64_t seed) {
    RandomContactProblemOptions options;
    options.num_bodies = 8;
    options.num_contacts = 30;
    options.seed = seed;
    problem_.emplace(MakeRandomContactProblem(options));
    constraints_.resize(problem_->num_constraints());
    std::iota(constraints_.begin(), constraints_.end(), 0);
    storage_.resize(constraints_.size());
    // Velocities up to 1 m/s: contacts in every region.
    v_ = Eigen::VectorXd::Random(problem_->num_dofs());
    problem_->CalcConstraintVelocities(v_, &v_c_);
    SetDirection(-Gradient());
  }

  // Scales Δv so that the minimizer of ℓ along the line is at α = target.
  void PlaceMinimizerAt(double target) {
    SetDirection(delta_v_ * (Minimizer() / target));
  }

  IslandLineFunction Line() {
    return IslandLineFunction(*problem_, constraints_, v_c_, delta_v_c_, c_, a_, b_,
                              storage_);
  }
  double Slope(double alpha) { return Line()(alpha, false).slope; }
  // The root of dℓ/dα by bisection on the unrestricted line (ℓ is convex).
  double Minimizer() {
    double low = 0.0, high = 1.0;
    while (Slope(high) < 0.0) high *= 2.0;
    for (int k = 0; k < 200 && high - low > 1e-15 * high; ++k) {
      const double middle = 0.5 * (low + high);
      (Slope(middle) < 0.0 ? low : high) = middle;
    }
    return 0.5 * (low + high);
  }

 private:
  // ∇ℓ_p(v) = A (v − v*) − Jᵀ γ(v_c).
  Eigen::VectorXd Gradient() const {
    Eigen::VectorXd gradient;
    problem_->MultiplyByA(v_ - problem_->v_star(), &gradient);
    Eigen::VectorXd gamma(problem_->num_constraint_equations());
    for (int index : constraints_) {
      const int offset = problem_->constraint_offset(index);
      const int size = problem_->constraint_size(index);
      ConstraintVector impulse;
      problem_->constraint(index).potential->Evaluate(v_c_.segment(offset, size),
                                                      &impulse, nullptr);
      gamma.segment(offset, size) = impulse;
    }
    Eigen::VectorXd jt_gamma = Eigen::VectorXd::Zero(problem_->num_dofs());
    problem_->AddJacobianTransposeTimes(gamma, &jt_gamma);
    return gradient - jt_gamma;
  }
  // Δv, Δv_c = J Δv and the quadratic part c + aα + ½bα² of ½‖v − v*‖²_A.
  void SetDirection(const Eigen::VectorXd& delta_v) {
    delta_v_ = delta_v;
    problem_->MultiplyByJacobian(delta_v_, &delta_v_c_);
    const Eigen::VectorXd error = v_ - problem_->v_star();
    Eigen::VectorXd a_error, a_delta;
    problem_->MultiplyByA(error, &a_error);
    problem_->MultiplyByA(delta_v_, &a_delta);
    c_ = 0.5 * error.dot(a_error);
    a_ = a_delta.dot(error);
    b_ = a_delta.dot(delta_v_);
  }

  std::optional<ContactProblem> problem_;
  std::vector<int> constraints_;
  std::vector<int> storage_;
  Eigen::VectorXd v_, v_c_, delta_v_, delta_v_c_;
  double c_ = 0.0, a_ = 0.0, b_ = 0.0;
};

// The exact line search ends where the slope of the whole line (evaluated
// afresh, every constraint on its own) is within its tolerance, whether the
// Newton step α = 1 overshoots the minimizer (the search restricted to
// [0, 1]), lands on it, or falls short (the search goes on along the whole
// line, beyond the segment it first restricted itself to).
TEST(ExactLineSearch, EndsAtTheMinimizerOfTheWholeLine) {
  const SapSolverParameters parameters;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    for (double target : {0.05, 0.3, 0.9, 1.0, 1.7, 6.5}) {
      LineAlongSteepestDescent along(seed);
      along.PlaceMinimizerAt(target);
      const double slope0 = along.Slope(0.0);
      ASSERT_LT(slope0, 0.0);
      IslandLineFunction line = along.Line();
      const LineSearchResult result =
          ExactLineSearch(line, slope0, 1e-13 * std::abs(slope0), parameters);
      ASSERT_TRUE(result.succeeded) << "seed " << seed << ", minimizer " << target;
      EXPECT_LE(std::abs(along.Slope(result.alpha)),
                1.01 * parameters.exact_line_search_tolerance * std::abs(slope0))
          << "seed " << seed << ", minimizer " << target << ", α " << result.alpha;
      EXPECT_NEAR(result.alpha, target, 0.05 * target) << "seed " << seed;
    }
  }
}

// A restricted line agrees with the whole one on its segment, a new
// restriction replaces the last, and undoing it gives back the whole line
// bit for bit.
TEST(IslandLineFunction, RestrictionKeepsTheValuesOnItsSegmentAndUndoes) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    LineAlongSteepestDescent along(seed);
    along.PlaceMinimizerAt(0.5);
    const IslandLineFunction whole = along.Line();
    IslandLineFunction line = along.Line();
    const auto expect_whole_line_values = [&](std::initializer_list<double> alphas) {
      for (double alpha : alphas) {
        const auto restricted = line(alpha, true), expected = whole(alpha, true);
        const double scale = 1.0 + std::abs(expected.cost);
        EXPECT_NEAR(restricted.cost, expected.cost, 1e-12 * scale) << "seed " << seed;
        EXPECT_NEAR(restricted.slope, expected.slope, 1e-12 * scale) << "seed " << seed;
        EXPECT_NEAR(restricted.curvature, expected.curvature, 1e-12 * scale)
            << "seed " << seed;
      }
    };
    line.RestrictToSegment(0.25, 1.0);
    expect_whole_line_values({0.25, 0.6, 1.0});
    // A second restriction starts from the whole line, not from the first.
    line.RestrictToSegment(1.0, 3.0);
    expect_whole_line_values({1.0, 2.0, 3.0});
    line.RestrictToWholeLine();
    for (double alpha : {0.0, 2.0, 5.0}) {
      const auto undone = line(alpha, true), expected = whole(alpha, true);
      EXPECT_EQ(undone.cost, expected.cost) << "seed " << seed;
      EXPECT_EQ(undone.slope, expected.slope) << "seed " << seed;
      EXPECT_EQ(undone.curvature, expected.curvature) << "seed " << seed;
    }
  }
}

}  // namespace
}  // namespace coulomb
