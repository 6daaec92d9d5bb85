#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/contact/clique_tree.h"
#include "coulomb/contact/convex_constraint.h"
#include "coulomb/math/body_block_kernels.h"
#include "coulomb/math/reusable_dense.h"
#include "coulomb/math/tree_cholesky.h"

namespace coulomb {

// One block of a constraint Jacobian: the rows of J_i acting on one clique.
struct JacobianBlock {
  int clique = -1;
  Eigen::MatrixXd matrix;  // num_equations × clique's num_dofs
  // Optional, on a clique with a CliqueTree: matrix = Σ map · J_b over the
  // bodies the rows act through (two for a contact inside one tree).
  std::vector<BodyJacobian> bodies{};
};

// A constraint of the problem: its Jacobian blocks, bias and potential.
// Constraint velocity v_c = Σ_blocks J_it v_t + bias.
struct ProblemConstraint {
  std::vector<JacobianBlock> jacobian;
  ConstraintVector bias;
  std::unique_ptr<ConvexConstraint> potential;
  // The builder's label for what this slot holds (ContactProblem::EmplaceConstraint).
  int kind = 0;
};

// The contact problem of one time step (SAP §IV-D, docs/math.md §2.8): pure data.
//
// Generalized velocities v are grouped into cliques (trees) t, each with a
// dense SPD block A_t of the (linearized) dynamics; A = blockdiag(A_t). The
// solvers minimize ℓ_p(v) = ½‖v − v*‖²_A + Σ_i ℓ_i(J_i v + b_i), where each
// constraint i touches one or more cliques through its Jacobian blocks. The
// velocities of clique t are v.segment(clique_offset(t), clique_size(t)).
//
// Build with AddClique / SetFreeMotionVelocities / AddConstraint, then call
// Finalize(), which validates everything and prepares the constraints
// (Delassus estimates); solvers accept only finalized problems. Bad input
// throws std::invalid_argument saying which clique/constraint is wrong.
//
// Simulations rebuild the problem in place every step: Clear() forgets the
// cliques and constraints but keeps their storage, and EmplaceClique /
// mutable_v_star / EmplaceConstraint hand it back to be filled (validated by
// Finalize). A step whose cliques and constraints have the sizes of the
// previous one allocates nothing.
class ContactProblem {
 public:
  // time_step δt [s] > 0, passed to the constraints (SAP's Rn depends on it).
  explicit ContactProblem(double time_step);

  ContactProblem(ContactProblem&&) = default;
  ContactProblem& operator=(ContactProblem&&) = default;

  // Adds a clique with SPD block A_t; returns its index.
  int AddClique(Eigen::MatrixXd a);
  // Adds a copy of another problem's clique: A_t and its tree, if any.
  int AddCliqueOf(const ContactProblem& source, int clique);
  // Clear(), then in place the cliques (A_t and trees) and v* of another
  // problem (storage reused; validated by Finalize): the start of a derived
  // problem with other constraints.
  void ResetCliquesFrom(const ContactProblem& source);
  // In place, the finalized problem of a finalized source restricted to the
  // constraints listed (indices into source, increasing): its cliques and v*,
  // and those constraints in that order, read in the source (not copied: the
  // source must stay where it is, unchanged, until this problem's next Clear).
  // Nothing is validated or prepared again, and the cliques are not copied
  // again when the last reset was from the same source, unchanged (the same
  // revision). A constraint whose impulse vanishes at v adds nothing to ℓ_p
  // or its gradient there, so at a v where every constraint left out is
  // inactive both problems have the same cost and gradient: SapSolver's
  // working set (SapSolverParameters::working_set).
  void ResetToSubproblem(const ContactProblem& source,
                         const std::vector<int>& constraints);
  void SetFreeMotionVelocities(Eigen::VectorXd v_star);
  // Adds a constraint; the bias defaults to zero. Returns its index.
  int AddConstraint(std::vector<JacobianBlock> jacobian,
                    std::unique_ptr<ConvexConstraint> potential);
  int AddConstraint(std::vector<JacobianBlock> jacobian, ConstraintVector bias,
                    std::unique_ptr<ConvexConstraint> potential);
  void Finalize();

  // In-place rebuilding (see above).
  void Clear();
  // A_t of a new clique, size × size, to be filled by the caller.
  Eigen::MatrixXd& EmplaceClique(int size);
  // Optional, for a clique of this build whose A_t the caller has factored
  // already (a tree's free motion solves with it): storage for L, A_t = L Lᵀ
  // in its lower triangle (dense_cholesky.h), to be filled by the caller,
  // who vouches for it. Finalize then forms the clique's Delassus estimates
  // with it instead of factoring A_t again, after checking that L is
  // size × size with a positive, finite diagonal (a factorization that
  // failed leaves a pivot that is not). Cliques of six dofs do not use it
  // (their A_t⁻¹ is formed once, in fixed size).
  Eigen::MatrixXd& EmplaceCliqueFactor(int clique);
  // The same for a clique whose dofs form a tree (a multibody tree's, the
  // parents of TreeCholesky): A_t = Lᵀ L factored without fill-in, to be
  // filled (parents and Factor()) by the caller. A contact's Delassus
  // estimate then solves along the branch its Jacobian touches only.
  TreeCholesky& EmplaceCliqueTreeFactor(int clique);
  Eigen::VectorXd& mutable_v_star() { return v_star_; }
  // The kinematic structure of a clique (optional; see CliqueTree), to be
  // filled by the caller; validated with A by Finalize.
  CliqueTree& EmplaceCliqueTree(int clique);
  void SetCliqueTree(int clique, CliqueTree tree) {
    EmplaceCliqueTree(clique) = std::move(tree);
  }
  // A new constraint's slot, holding what a previous constraint of the same
  // `kind` left there (Jacobian blocks, potential object) for reuse; the
  // caller sets all of it. Kinds are the caller's labels for constraints
  // whose storage fits each other (contacts, joint limits, …): a slot left
  // by another kind is exchanged for a spare one of this kind when there is
  // one, so that a problem rebuilt with its constraints in other places
  // (fewer contacts before the joint limits) allocates nothing.
  ProblemConstraint& EmplaceConstraint(int kind = 0);

  bool finalized() const { return finalized_; }
  // Changes at every Finalize (and ResetToSubproblem), never repeating across
  // problems: a solver that sees the revision it saw last has the same
  // cliques, Jacobians and biases before it (the potentials may differ).
  std::uint64_t revision() const { return revision_; }
  double time_step() const { return time_step_; }
  int num_cliques() const { return num_cliques_; }
  int num_dofs() const { return num_dofs_; }
  int num_constraints() const { return num_constraints_; }
  // Σ_i num_equations(i): the size of the stacked v_c and γ.
  int num_constraint_equations() const { return num_constraint_equations_; }

  const Eigen::MatrixXd& clique_matrix(int clique) const { return cliques_[clique]; }
  int clique_offset(int clique) const { return clique_offsets_[clique]; }
  int clique_size(int clique) const { return static_cast<int>(cliques_[clique].rows()); }
  // Null unless the clique's tree structure was given.
  const CliqueTree* clique_tree(int clique) const {
    return has_tree_[clique] ? &trees_[clique] : nullptr;
  }
  const Eigen::VectorXd& v_star() const { return v_star_; }
  const ProblemConstraint& constraint(int index) const {
    return subproblem_source_ == nullptr
               ? constraints_[index]
               : subproblem_source_->constraints_[source_constraint_[index]];
  }
  // Its potential, read from a compact list (the hot loops of the solvers).
  const ConvexConstraint& potential(int index) const { return *potentials_[index]; }
  int constraint_offset(int index) const { return constraint_offsets_[index]; }
  // Its number of equations (of a finalized problem), kept in a compact list
  // from the constraint's own record (its bias has that many rows, checked
  // by Finalize), not asked of its potential.
  int constraint_size(int index) const { return constraint_sizes_[index]; }

  // v_c = J v + b for all constraints, stacked.
  // (Vector: Eigen::VectorXd or ReusableVector, resized to the stack.)
  template <class Vector>
  void CalcConstraintVelocities(Eigen::Ref<const Eigen::VectorXd> v, Vector* v_c) const {
    v_c->resize(num_constraint_equations_);
    MultiplyByJacobianInto(v, true, v_c->data());
  }
  // v_c = J_i v + b_i of one constraint.
  ConstraintVector ConstraintVelocity(int index, const Eigen::VectorXd& v) const;
  // y = J x (no bias), stacked like v_c.
  template <class Vector>
  void MultiplyByJacobian(Eigen::Ref<const Eigen::VectorXd> x, Vector* y) const {
    y->resize(num_constraint_equations_);
    MultiplyByJacobianInto(x, false, y->data());
  }
  // Adds Jᵀ γ (γ stacked like v_c) to `generalized` (num_dofs() entries;
  // Vector: Eigen::VectorXd or ReusableVector).
  template <class Vector>
  void AddJacobianTransposeTimes(Eigen::Ref<const Eigen::VectorXd> gamma,
                                 Vector* generalized) const {
    AddJacobianTransposeTimesInto(gamma, generalized->data());
  }
  // y = A x.
  void MultiplyByA(Eigen::Ref<const Eigen::VectorXd> x, Eigen::VectorXd* y) const;

  // The same restricted to a list of constraints or cliques (indices into
  // this problem), for a solver that iterates only part of the problem: y_i =
  // J_i x for each constraint listed (y already sized like v_c, its other
  // entries left as they are); generalized += Σ_listed J_iᵀ γ_i; y_t = A_t x_t
  // for each clique listed (y sized like v).
  void MultiplyByJacobian(Eigen::Ref<const Eigen::VectorXd> x,
                          std::span<const int> constraints,
                          Eigen::Ref<Eigen::VectorXd> y) const;
  void AddJacobianTransposeTimes(Eigen::Ref<const Eigen::VectorXd> gamma,
                                 std::span<const int> constraints,
                                 Eigen::Ref<Eigen::VectorXd> generalized) const;
  void MultiplyByA(Eigen::Ref<const Eigen::VectorXd> x, std::span<const int> cliques,
                   Eigen::Ref<Eigen::VectorXd> y) const;

 private:
  // y = J x, and with_bias + b, into y[0, num_constraint_equations()).
  void MultiplyByJacobianInto(Eigen::Ref<const Eigen::VectorXd> x, bool with_bias,
                              double* y) const;
  // generalized[0, num_dofs()) += Jᵀ γ.
  void AddJacobianTransposeTimesInto(Eigen::Ref<const Eigen::VectorXd> gamma,
                                     double* generalized) const;
  // One constraint's or clique's share of the products above: y_i = J_i x
  // (+ b_i), generalized += J_iᵀ γ_i, y_t = A_t x_t (x, y, γ and generalized
  // the whole stacked vectors).
  void MultiplyConstraint(int index, const double* x, bool with_bias, double* y) const;
  void AddConstraintTransposeTimes(int index, const double* gamma,
                                   double* generalized) const;
  // The same over constraints list[k] (k when list is null), k < count: the
  // contacts on rigid bodies through the contact-row kernels, in runs, the
  // others one by one, all in order.
  void MultiplyConstraints(const int* list, int count, const double* x, bool with_bias,
                           double* y) const;
  void AddConstraintsTransposeTimes(const int* list, int count, const double* gamma,
                                    double* generalized) const;
  // potentials_, constraint_sizes_ and contact_rows_ from the constraints
  // (Finalize, ResetToSubproblem).
  void ListConstraintRecords();
  void MultiplyClique(int clique, const double* x, double* y) const;
  void ValidateClique(int index) const;  // A alone
  void CheckSuppliedFactor(int clique) const;
  void ValidateCliqueTree(int index) const;
  void ValidateConstraint(int index) const;
  // ValidateConstraint but for the finiteness of the Jacobian's entries,
  // which PrepareConstraints reads off the Delassus estimate.
  void ValidateConstraintShape(int index) const;
  // True when constraint `index` passes ValidateConstraintShape's checks and
  // has at most two Jacobian blocks, none with body parts: the common
  // contact, checked in every step without building any message. False
  // says only that ValidateConstraintShape must look.
  bool HasPlainValidShape(int index) const;
  // Each constraint validated, given its row offset and prepared (its
  // potential's Prepare with its Delassus estimate, kept in delassus_).
  void PrepareConstraints();

  std::vector<ConstraintMatrix> delassus_;  // by constraint, PrepareConstraints
  double time_step_;
  bool finalized_ = false;
  std::uint64_t revision_ = 0;  // 0: never finalized
  // The first num_cliques_ / num_constraints_ entries are the problem's; the
  // rest is storage kept by Clear() for reuse.
  std::vector<Eigen::MatrixXd> cliques_;
  int num_cliques_ = 0;
  std::vector<int> clique_offsets_;
  std::vector<CliqueTree> trees_;  // per clique (storage), given where has_tree_
  std::vector<char> has_tree_;
  // Per clique, the factor of A_t its builder gave: none, L Lᵀ
  // (EmplaceCliqueFactor) or Lᵀ L (EmplaceCliqueTreeFactor).
  enum class GivenFactor : char { kNone, kDense, kTree };
  std::vector<GivenFactor> given_factor_;
  mutable std::vector<int> ancestor_mark_;  // CheckCliqueTree's workspace
  int num_dofs_ = 0;
  Eigen::VectorXd v_star_;
  std::vector<ProblemConstraint> constraints_;
  int num_constraints_ = 0;
  // Set by ResetToSubproblem: constraint i is source's source_constraint_[i].
  const ContactProblem* subproblem_source_ = nullptr;
  // The source's revision when its cliques were copied here.
  std::uint64_t subproblem_source_revision_ = 0;
  std::vector<int> source_constraint_;
  std::vector<int> constraint_offsets_;
  int num_constraint_equations_ = 0;
  // Per constraint, its rows as the contact-row kernels read them (null
  // blocks for a constraint that is not a contact on rigid bodies).
  std::vector<ContactRows> contact_rows_;
  std::vector<const ConvexConstraint*> potentials_;
  std::vector<int> constraint_sizes_;
  // Finalize's workspace: per clique, A_t⁻¹ for a free body (6 dofs: fixed
  // size, formed once) or else the Cholesky factor of A_t, and the A_t they
  // are of (if a_prepared_: validated); and A_t⁻¹ J_itᵀ.
  std::vector<Eigen::Matrix<double, 6, 6>> body_a_inverses_;
  // Per clique of 6 dofs, whether its A_t⁻¹ is diagonal (every entry off
  // the diagonal exactly zero: a free body in its principal axes), so that
  // a contact's Delassus term takes the diagonal congruence, and that
  // diagonal.
  std::vector<char> diagonal_body_a_inverse_;
  std::vector<Eigen::Matrix<double, 6, 1>> body_a_inverse_diagonals_;
  std::vector<Eigen::MatrixXd> a_factors_;  // L of A = L Lᵀ in the lower triangle
  std::vector<TreeCholesky> tree_factors_;  // given A = Lᵀ L (GivenFactor::kTree)
  std::vector<Eigen::MatrixXd> prepared_a_;
  std::vector<char> a_prepared_;
  std::vector<double> a_inverse_jt_;
  // Validates and factors every A_t that differs from the one prepared last
  // (throws if one is not positive definite); checks the clique trees.
  void PrepareCliques();
  void FactorCliqueMatrix(int clique);
  // W_ii's term J_it A_t⁻¹ J_itᵀ added to *delassus.
  void AddDelassusTerm(const JacobianBlock& block, ConstraintMatrix* delassus);
};

}  // namespace coulomb
