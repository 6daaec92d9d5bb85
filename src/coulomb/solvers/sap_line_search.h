#pragma once

#include <span>

#include <Eigen/Dense>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/solvers/sap_solver_parameters.h"

namespace coulomb {

// ℓ_p restricted to one island along the Newton direction (SAP §IV-B, IV-C):
//   ℓ(α) = c + α a + ½ α² b + Σ_{i ∈ island} ℓ_i(v_c,i + α Δv_c,i)
// with c = ½‖v − v*‖²_A, a = Δpᵀ(v − v*), b = Δvᵀ Δp, Δp = A Δv, all over
// the island's dofs. Derivatives (docs/math.md §2.5), O(n) per evaluation:
//   dℓ/dα = a + α b − Σ Δv_c,iᵀ γ_i(α),   d²ℓ/dα² = b + Σ Δv_c,iᵀ G_i(α) Δv_c,i.
class IslandLineFunction {
 public:
  struct Value {
    double cost;
    double slope;
    double curvature;
  };

  // segment_storage: room for RestrictToSegment's list, at least as many
  // entries as `constraints` (kept by the caller, so that a line search
  // allocates nothing; islands searched at once get disjoint storage).
  IslandLineFunction(const ContactProblem& problem, std::span<const int> constraints,
                     Eigen::Ref<const Eigen::VectorXd> v_c,
                     Eigen::Ref<const Eigen::VectorXd> delta_v_c, double c, double a,
                     double b, std::span<int> segment_storage)
      : problem_(problem),
        island_constraints_(constraints),
        island_c_(c),
        island_a_(a),
        island_b_(b),
        constraints_(constraints),
        v_c_(v_c),
        delta_v_c_(delta_v_c),
        c_(c),
        a_(a),
        b_(b),
        segment_storage_(segment_storage) {}

  Value operator()(double alpha, bool with_curvature) const;

  // For the evaluations that follow, all with α in [alpha0, alpha1]: the
  // constraints whose ℓ_i is quadratic on that segment
  // (ConvexConstraint::QuadraticAlongSegment: sticking or separated contacts)
  // join the quadratic part c + aα + ½bα², and only the others are evaluated
  // at each α. (Any earlier restriction is undone first.)
  void RestrictToSegment(double alpha0, double alpha1);
  // Undoes RestrictToSegment: evaluations at any α.
  void RestrictToWholeLine();

 private:
  const ContactProblem& problem_;
  // The island's constraints and quadratic part, as constructed.
  std::span<const int> island_constraints_;
  double island_c_, island_a_, island_b_;
  // Those of the segment evaluated on (RestrictToSegment).
  std::span<const int> constraints_;
  // Views, not copies: v_c and Δv_c are ReusableVectors.
  Eigen::Ref<const Eigen::VectorXd> v_c_;
  Eigen::Ref<const Eigen::VectorXd> delta_v_c_;
  double c_, a_, b_;
  std::span<int> segment_storage_;
};

struct LineSearchResult {
  double alpha = 0.0;
  int iterations = 0;
  bool succeeded = false;
};

// α = argmin ℓ(α) by rtsafe on dℓ/dα (ℓ is strictly convex along the line).
// slope0 = dℓ/dα(0) < 0 for a descent direction; slope_roundoff is the
// round-off level of dℓ/dα (ε times the magnitude of its terms): below it
// the slope carries no information and the search stops.
LineSearchResult ExactLineSearch(IslandLineFunction& line, double slope0,
                                 double slope_roundoff,
                                 const SapSolverParameters& parameters);

// Armijo backtracking from α_max (SAP §IV-B).
LineSearchResult BacktrackingLineSearch(const IslandLineFunction& line, double slope0,
                                        double slope_roundoff,
                                        const SapSolverParameters& parameters);

}  // namespace coulomb
