#include "coulomb/contact/contact_problem.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "coulomb/math/body_block_kernels.h"
#include "coulomb/math/dense_cholesky.h"
#include "coulomb/math/small_block_products.h"

namespace coulomb {
namespace {

// Whether every entry is finite: x · 0 is 0 for a finite x and NaN for ±∞
// or NaN, and a sum of zeros is zero. A contact's Jacobian block (3 × 6)
// and bias (3), checked for every contact in every step, are summed at
// fixed size, unrolled: Eigen's dynamic-size reduction costs more than the
// test itself on 18 entries.
template <int kSize>
bool AllFiniteFixed(const double* values) {
  return (Eigen::Map<const Eigen::Array<double, kSize, 1>>(values) * 0.0).sum() == 0.0;
}

template <typename Derived>
bool AllFinite(const Eigen::PlainObjectBase<Derived>& values) {
  if (values.size() == 18) return AllFiniteFixed<18>(values.data());
  if (values.size() == 3) return AllFiniteFixed<3>(values.data());
  return (values.array() * 0.0).sum() == 0.0;
}

// A contact's rows on a rigid body (a free body's six velocities).
bool IsContactOnBody(const Eigen::MatrixXd& block) {
  return block.rows() == 3 && block.cols() == 6;
}

// A number never handed out before (ContactProblem::revision).
std::uint64_t NewRevision() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// A⁻¹ = L⁻ᵀ L⁻¹ from the Cholesky factor L of a 6 × 6 A, L⁻¹ by forward
// substitution (fixed-size loops: Eigen's solve against the identity goes
// through its blocked triangular kernels, ten times the instructions here).
Eigen::Matrix<double, 6, 6> InverseFromCholesky(const Eigen::Matrix<double, 6, 6>& l) {
  Eigen::Matrix<double, 6, 6> l_inverse = Eigen::Matrix<double, 6, 6>::Zero();
  for (int j = 0; j < 6; ++j) {
    l_inverse(j, j) = 1.0 / l(j, j);
    for (int i = j + 1; i < 6; ++i) {
      double sum = 0.0;
      for (int k = j; k < i; ++k) sum += l(i, k) * l_inverse(k, j);
      l_inverse(i, j) = -sum / l(i, i);
    }
  }
  return l_inverse.transpose() * l_inverse;
}

constexpr const char* kJacobianNotFinite = "Jacobian is not finite";
// Finalize's check, through the Delassus estimate, cannot tell the two apart.
constexpr const char* kJacobianOrDelassusNotFinite =
    "Jacobian is not finite, or so large that its Delassus estimate J A⁻¹ Jᵀ overflows";

std::invalid_argument ConstraintError(int index, const std::string& what) {
  return std::invalid_argument("constraint " + std::to_string(index) + ": " + what);
}

}  // namespace

ContactProblem::ContactProblem(double time_step) : time_step_(time_step) {
  if (!(time_step > 0.0) || !std::isfinite(time_step)) {
    throw std::invalid_argument("time step must be positive and finite, got " +
                                std::to_string(time_step));
  }
}

int ContactProblem::AddClique(Eigen::MatrixXd a) {
  const int index = num_cliques();
  const int size = static_cast<int>(a.rows());
  EmplaceClique(size) = std::move(a);
  try {
    ValidateClique(index);
    if (cliques_[index].llt().info() != Eigen::Success) {
      throw std::invalid_argument("clique " + std::to_string(index) +
                                  ": A is not positive definite");
    }
  } catch (const std::invalid_argument&) {
    --num_cliques_;
    clique_offsets_.pop_back();
    has_tree_.pop_back();
    given_factor_.pop_back();
    num_dofs_ -= size;
    throw;
  }
  return index;
}

int ContactProblem::AddCliqueOf(const ContactProblem& source, int clique) {
  const int index = AddClique(source.clique_matrix(clique));
  if (const CliqueTree* tree = source.clique_tree(clique)) SetCliqueTree(index, *tree);
  return index;
}

void ContactProblem::ResetCliquesFrom(const ContactProblem& source) {
  Clear();
  for (int t = 0; t < source.num_cliques(); ++t) {
    EmplaceClique(source.clique_size(t)) = source.clique_matrix(t);
    if (const CliqueTree* tree = source.clique_tree(t)) EmplaceCliqueTree(t) = *tree;
  }
  v_star_ = source.v_star();
}

void ContactProblem::ResetToSubproblem(const ContactProblem& source,
                                       const std::vector<int>& constraints) {
  if (!source.finalized())
    throw std::logic_error("ResetToSubproblem: the source problem is not finalized");
  if (source.subproblem_source_ != nullptr)
    throw std::logic_error("ResetToSubproblem: the source is a sub-problem itself");
  if (finalized_ && subproblem_source_ == &source &&
      subproblem_source_revision_ == source.revision()) {
    // Another sub-problem of the same source (a working set's next round):
    // its cliques are here already.
    constraint_offsets_.clear();
    num_constraint_equations_ = 0;
    v_star_ = source.v_star();
  } else {
    ResetCliquesFrom(source);
    subproblem_source_revision_ = source.revision();
  }
  time_step_ = source.time_step();
  subproblem_source_ = &source;
  source_constraint_.assign(constraints.begin(), constraints.end());
  num_constraints_ = static_cast<int>(constraints.size());
  for (const int index : constraints) {
    constraint_offsets_.push_back(num_constraint_equations_);
    num_constraint_equations_ += source.constraint(index).potential->num_equations();
  }
  ListConstraintRecords();
  finalized_ = true;
  revision_ = NewRevision();
}

Eigen::MatrixXd& ContactProblem::EmplaceClique(int size) {
  const int index = num_cliques_++;
  if (index == static_cast<int>(cliques_.size())) {
    cliques_.emplace_back(size, size);
  } else {
    cliques_[index].resize(size, size);
  }
  clique_offsets_.push_back(num_dofs_);
  has_tree_.push_back(false);
  given_factor_.push_back(GivenFactor::kNone);
  num_dofs_ += size;
  finalized_ = false;
  return cliques_[index];
}

namespace {

// factors[clique] of a problem with num_cliques cliques, grown to hold it;
// throws std::invalid_argument naming `what` if there is no such clique.
template <typename Factor>
Factor& FactorSlot(std::vector<Factor>* factors, int clique, int num_cliques,
                   const char* what) {
  if (clique < 0 || clique >= num_cliques) {
    throw std::invalid_argument(std::string(what) + " of clique " +
                                std::to_string(clique) + ", which does not exist");
  }
  if (static_cast<int>(factors->size()) < num_cliques) factors->resize(num_cliques);
  return (*factors)[clique];
}

}  // namespace

Eigen::MatrixXd& ContactProblem::EmplaceCliqueFactor(int clique) {
  Eigen::MatrixXd& factor = FactorSlot(&a_factors_, clique, num_cliques(), "factor");
  given_factor_[clique] = GivenFactor::kDense;
  finalized_ = false;
  return factor;
}

TreeCholesky& ContactProblem::EmplaceCliqueTreeFactor(int clique) {
  TreeCholesky& factor = FactorSlot(&tree_factors_, clique, num_cliques(), "tree factor");
  given_factor_[clique] = GivenFactor::kTree;
  finalized_ = false;
  return factor;
}

CliqueTree& ContactProblem::EmplaceCliqueTree(int clique) {
  if (clique < 0 || clique >= num_cliques()) {
    throw std::invalid_argument("tree of clique " + std::to_string(clique) +
                                ", which does not exist");
  }
  if (trees_.size() < cliques_.size()) trees_.resize(cliques_.size());
  has_tree_[clique] = true;
  finalized_ = false;
  return trees_[clique];
}

void ContactProblem::ValidateClique(int index) const {
  const Eigen::MatrixXd& a = cliques_[index];
  const auto name = [index] { return "clique " + std::to_string(index); };
  if (a.rows() == 0 || a.rows() != a.cols()) {
    throw std::invalid_argument(name() + ": A must be square and non-empty, got " +
                                std::to_string(a.rows()) + "×" +
                                std::to_string(a.cols()));
  }
  // One pass over the pairs (i, j), (j, i): ‖A‖² and ‖A − Aᵀ‖², both
  // finite exactly when every entry is (short of an overflow of the squares,
  // which the entry check below then tells apart).
  const Eigen::Index n = a.rows();
  double norm_squared = 0.0, asymmetry_squared = 0.0;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double* column = a.data() + j * n;
    norm_squared += column[j] * column[j];
    for (Eigen::Index i = j + 1; i < n; ++i) {
      const double lower = column[i], upper = a.data()[i * n + j];
      norm_squared += lower * lower + upper * upper;
      asymmetry_squared += 2.0 * (lower - upper) * (lower - upper);
    }
  }
  if (!std::isfinite(norm_squared + asymmetry_squared) && !a.allFinite())
    throw std::invalid_argument(name() + ": A has non-finite entries");
  const double asymmetry = std::sqrt(asymmetry_squared);
  if (asymmetry > 1e-10 * std::sqrt(norm_squared)) {
    throw std::invalid_argument(
        name() + ": A is not symmetric (‖A − Aᵀ‖ = " + std::to_string(asymmetry) + ")");
  }
}

void ContactProblem::ValidateCliqueTree(int index) const {
  if (!has_tree_[index]) return;
  const std::string error =
      CheckCliqueTree(trees_[index], cliques_[index], &ancestor_mark_);
  if (!error.empty())
    throw std::invalid_argument("clique " + std::to_string(index) + ": " + error);
}

void ContactProblem::SetFreeMotionVelocities(Eigen::VectorXd v_star) {
  if (!v_star.allFinite()) throw std::invalid_argument("v* has non-finite entries");
  v_star_ = std::move(v_star);
  finalized_ = false;
}

void ContactProblem::Clear() {
  num_cliques_ = 0;
  num_constraints_ = 0;
  clique_offsets_.clear();
  has_tree_.clear();
  given_factor_.clear();
  constraint_offsets_.clear();
  num_dofs_ = 0;
  num_constraint_equations_ = 0;
  subproblem_source_ = nullptr;
  finalized_ = false;
}

ProblemConstraint& ContactProblem::EmplaceConstraint(int kind) {
  if (subproblem_source_ != nullptr)
    throw std::logic_error("EmplaceConstraint: a sub-problem reads its source's");
  const int index = num_constraints_++;
  if (index == static_cast<int>(constraints_.size()) ||
      constraints_[index].kind != kind) {
    // A spare slot of this kind (past index), or a new one: the slot at
    // index stays a spare of its own kind. Swapping moves pointers only, so
    // each kind ends with as many slots as it ever had constraints at once.
    size_t spare = index;
    while (spare < constraints_.size() && constraints_[spare].kind != kind) ++spare;
    if (spare == constraints_.size()) constraints_.emplace_back().kind = kind;
    if (spare != static_cast<size_t>(index))
      std::swap(constraints_[index], constraints_[spare]);
  }
  finalized_ = false;
  return constraints_[index];
}

int ContactProblem::AddConstraint(std::vector<JacobianBlock> jacobian,
                                  std::unique_ptr<ConvexConstraint> potential) {
  const int num_equations = potential ? potential->num_equations() : 0;
  return AddConstraint(std::move(jacobian), ConstraintVector::Zero(num_equations),
                       std::move(potential));
}

int ContactProblem::AddConstraint(std::vector<JacobianBlock> jacobian,
                                  ConstraintVector bias,
                                  std::unique_ptr<ConvexConstraint> potential) {
  const int index = num_constraints();
  ProblemConstraint& slot = EmplaceConstraint();
  slot.jacobian = std::move(jacobian);
  slot.bias = std::move(bias);
  slot.potential = std::move(potential);
  try {
    ValidateConstraint(index);
  } catch (const std::invalid_argument&) {
    --num_constraints_;
    throw;
  }
  return index;
}

void ContactProblem::ValidateConstraint(int index) const {
  ValidateConstraintShape(index);
  for (const JacobianBlock& block : constraints_[index].jacobian) {
    if (!AllFinite(block.matrix)) throw ConstraintError(index, kJacobianNotFinite);
  }
}

bool ContactProblem::HasPlainValidShape(int index) const {
  const ProblemConstraint& c = constraints_[index];
  const size_t num_blocks = c.jacobian.size();
  if (!c.potential || num_blocks == 0 || num_blocks > 2) return false;
  const Eigen::Index rows = c.potential->num_equations();
  if (rows < 1 || rows > kMaxConstraintEquations || c.bias.size() != rows ||
      !AllFinite(c.bias)) {
    return false;
  }
  for (const JacobianBlock& block : c.jacobian) {
    if (block.clique < 0 || block.clique >= num_cliques() || !block.bodies.empty() ||
        block.matrix.rows() != rows || block.matrix.cols() != clique_size(block.clique)) {
      return false;
    }
  }
  return num_blocks == 1 || c.jacobian[0].clique != c.jacobian[1].clique;
}

void ContactProblem::ValidateConstraintShape(int index) const {
  const ProblemConstraint& c = constraints_[index];
  if (!c.potential) throw ConstraintError(index, "has no potential");
  const int rows = c.potential->num_equations();
  if (rows < 1 || rows > kMaxConstraintEquations) {
    throw ConstraintError(index, "has " + std::to_string(rows) + " equations");
  }
  if (c.jacobian.empty()) throw ConstraintError(index, "touches no clique");
  if (c.bias.size() != rows || !AllFinite(c.bias)) {
    throw ConstraintError(index,
                          "bias must be finite with " + std::to_string(rows) + " rows");
  }
  for (size_t b = 0; b < c.jacobian.size(); ++b) {
    const JacobianBlock& block = c.jacobian[b];
    if (block.clique < 0 || block.clique >= num_cliques()) {
      throw ConstraintError(index,
                            "Jacobian block " + std::to_string(b) + " refers to clique " +
                                std::to_string(block.clique) + ", which does not exist");
    }
    for (size_t other = 0; other < b; ++other) {
      if (c.jacobian[other].clique == block.clique) {
        throw ConstraintError(
            index, "has two Jacobian blocks for clique " + std::to_string(block.clique));
      }
    }
    if (block.matrix.rows() != rows || block.matrix.cols() != clique_size(block.clique)) {
      throw ConstraintError(index, "Jacobian block for clique " +
                                       std::to_string(block.clique) + " is " +
                                       std::to_string(block.matrix.rows()) + "×" +
                                       std::to_string(block.matrix.cols()) +
                                       ", expected " + std::to_string(rows) + "×" +
                                       std::to_string(clique_size(block.clique)));
    }
    if (block.bodies.empty()) continue;
    const CliqueTree* tree = clique_tree(block.clique);
    const std::string error = tree ? CheckBodyJacobians(*tree, block.bodies, block.matrix)
                                   : "has body parts on clique " +
                                         std::to_string(block.clique) +
                                         ", which has no tree";
    if (!error.empty()) throw ConstraintError(index, error);
  }
}

void ContactProblem::Finalize() {
  if (subproblem_source_ != nullptr)
    throw std::logic_error("Finalize: a sub-problem is finalized by ResetToSubproblem");
  if (v_star_.size() != num_dofs_) {
    throw std::invalid_argument("v* has " + std::to_string(v_star_.size()) +
                                " entries, expected " + std::to_string(num_dofs_));
  }
  if (!v_star_.allFinite()) throw std::invalid_argument("v* has non-finite entries");
  PrepareCliques();
  PrepareConstraints();
  ListConstraintRecords();
  finalized_ = true;
  revision_ = NewRevision();
}

void ContactProblem::ListConstraintRecords() {
  contact_rows_.resize(num_constraints());
  potentials_.resize(num_constraints());
  constraint_sizes_.resize(num_constraints());
  for (int index = 0; index < num_constraints(); ++index) {
    const ProblemConstraint& c = constraint(index);
    potentials_[index] = c.potential.get();
    constraint_sizes_[index] = static_cast<int>(c.bias.size());
    ContactRows& rows = contact_rows_[index];
    rows = ContactRows{};
    const bool on_bodies =
        c.bias.size() == 3 && !c.jacobian.empty() && c.jacobian.size() <= 2 &&
        std::all_of(c.jacobian.begin(), c.jacobian.end(), [](const JacobianBlock& block) {
          return IsContactOnBody(block.matrix);
        });
    if (!on_bodies) continue;
    for (size_t b = 0; b < c.jacobian.size(); ++b) {
      rows.jacobian[b] = c.jacobian[b].matrix.data();
      rows.velocity_offset[b] = clique_offsets_[c.jacobian[b].clique];
    }
    rows.bias = c.bias.data();
    rows.row_offset = constraint_offsets_[index];
  }
}

void ContactProblem::PrepareCliques() {
  if (static_cast<int>(a_prepared_.size()) < num_cliques()) {
    if (static_cast<int>(a_factors_.size()) < num_cliques())
      a_factors_.resize(num_cliques());
    body_a_inverses_.resize(num_cliques());
    diagonal_body_a_inverse_.resize(num_cliques(), 0);
    body_a_inverse_diagonals_.resize(num_cliques());
    prepared_a_.resize(num_cliques());
    a_prepared_.resize(num_cliques(), 0);
  }
  for (int clique = 0; clique < num_cliques(); ++clique) {
    const bool given = given_factor_[clique] != GivenFactor::kNone;
    if (given) CheckSuppliedFactor(clique);
    // A free body's A = M is constant in its body frame: most steps find
    // the matrix they validated and factored last time, bit for bit. A
    // factor given by the builder is validated with A each time and is not
    // kept for the next build, which may give none.
    const Eigen::MatrixXd& a = cliques_[clique];
    Eigen::MatrixXd& prepared = prepared_a_[clique];
    if (given || !a_prepared_[clique] || prepared.rows() != a.rows() ||
        prepared.cols() != a.cols() ||
        std::memcmp(prepared.data(), a.data(), sizeof(double) * a.size()) != 0) {
      a_prepared_[clique] = 0;  // until A passes
      ValidateClique(clique);
      FactorCliqueMatrix(clique);
      if (!given) {
        prepared = a;
        a_prepared_[clique] = 1;
      }
    }
    ValidateCliqueTree(clique);
  }
}

void ContactProblem::FactorCliqueMatrix(int clique) {
  bool positive_definite = false;
  if (clique_size(clique) == 6) {
    const Eigen::LLT<Eigen::Matrix<double, 6, 6>> factor(cliques_[clique]);
    positive_definite = factor.info() == Eigen::Success;
    if (positive_definite) {
      Eigen::Matrix<double, 6, 6>& inverse = body_a_inverses_[clique];
      inverse = InverseFromCholesky(factor.matrixL().toDenseMatrix());
      diagonal_body_a_inverse_[clique] =
          inverse == Eigen::Matrix<double, 6, 6>(inverse.diagonal().asDiagonal());
      body_a_inverse_diagonals_[clique] = inverse.diagonal();
    }
  } else if (given_factor_[clique] != GivenFactor::kNone) {
    positive_definite = true;  // (CheckSuppliedFactor)
  } else {
    a_factors_[clique] = cliques_[clique];
    positive_definite = CholeskyInPlace(&a_factors_[clique]);
  }
  if (!positive_definite) {
    throw std::invalid_argument("clique " + std::to_string(clique) +
                                ": A is not positive definite");
  }
}

void ContactProblem::CheckSuppliedFactor(int clique) const {
  const Eigen::MatrixXd& l = given_factor_[clique] == GivenFactor::kTree
                                 ? tree_factors_[clique].factor()
                                 : a_factors_[clique];
  const int size = clique_size(clique);
  // (The message is formed only when it is thrown: this runs every step.)
  const auto name = [clique] { return "clique " + std::to_string(clique); };
  if (given_factor_[clique] == GivenFactor::kTree &&
      tree_factors_[clique].size() != size) {
    throw std::invalid_argument(name() + ": the tree factor of A given has " +
                                std::to_string(tree_factors_[clique].size()) +
                                " parents, expected " + std::to_string(size));
  }
  if (l.rows() != size || l.cols() != size) {
    throw std::invalid_argument(name() + ": the factor of A given is " +
                                std::to_string(l.rows()) + "×" +
                                std::to_string(l.cols()) + ", expected " +
                                std::to_string(size) + "×" + std::to_string(size));
  }
  if (!(l.diagonal().array() > 0.0).all() || !l.diagonal().allFinite()) {
    throw std::invalid_argument(name() +
                                ": A is not positive definite (the factor of A "
                                "given has a pivot that is not positive)");
  }
}

void ContactProblem::AddDelassusTerm(const JacobianBlock& block,
                                     ConstraintMatrix* delassus) {
  const Eigen::Index rows = block.matrix.rows(), size = block.matrix.cols();
  if (rows == 3 && size == 6) {  // a contact on a free body: a 3 × 6 kernel
    if (diagonal_body_a_inverse_[block.clique]) {
      static const DiagonalCongruence3x6Kernel add_diagonal_congruence =
          AddDiagonalCongruence3x6Kernel();
      return add_diagonal_congruence(delassus->data(), block.matrix.data(),
                                     body_a_inverse_diagonals_[block.clique].data());
    }
    const Eigen::Matrix<double, 6, 6>& a_inverse = body_a_inverses_[block.clique];
    static const Congruence3x6Kernel add_congruence = AddCongruence3x6Kernel();
    add_congruence(delassus->data(), block.matrix.data(), a_inverse.data());
    return;
  }
  if (a_inverse_jt_.size() < static_cast<size_t>(size * rows))
    a_inverse_jt_.resize(size * rows);
  Eigen::Map<Eigen::MatrixXd> a_inverse_jt(a_inverse_jt_.data(), size, rows);
  if (size == 6) {
    a_inverse_jt.noalias() = body_a_inverses_[block.clique] * block.matrix.transpose();
    delassus->noalias() += block.matrix * a_inverse_jt;
    return;
  }
  // J A⁻¹ Jᵀ = XᵀX with X = L⁻¹Jᵀ (A = L Lᵀ) or L⁻ᵀJᵀ (A = Lᵀ L): one
  // triangular solve, not two.
  a_inverse_jt = block.matrix.transpose();  // becomes X
  if (given_factor_[block.clique] == GivenFactor::kTree) {
    tree_factors_[block.clique].SolveFactorTransposeInPlace(a_inverse_jt.data(),
                                                            static_cast<int>(rows));
  } else {
    SolveLowerInPlace(a_factors_[block.clique], a_inverse_jt.data(),
                      static_cast<int>(rows));
  }
  AddLowerTransposeProduct(a_inverse_jt.data(), a_inverse_jt.data(),
                           static_cast<int>(size), static_cast<int>(rows),
                           delassus->data());
  for (Eigen::Index a = 1; a < rows; ++a) {  // the upper triangle mirrors the lower
    for (Eigen::Index b = 0; b < a; ++b) (*delassus)(b, a) = (*delassus)(a, b);
  }
}

void ContactProblem::PrepareConstraints() {
  constraint_offsets_.clear();
  num_constraint_equations_ = 0;
  // Each constraint checked and its Delassus estimate formed, then the
  // potentials prepared in a second pass: a contact's Prepare is a chain of
  // a square root and divisions, which the processor overlaps from one
  // contact to the next only when nothing else comes between them.
  if (static_cast<int>(delassus_.size()) < num_constraints())
    delassus_.resize(num_constraints());
  for (int index = 0; index < num_constraints(); ++index) {
    if (!HasPlainValidShape(index)) ValidateConstraintShape(index);
    ProblemConstraint& c = constraints_[index];
    const int rows = c.potential->num_equations();
    constraint_offsets_.push_back(num_constraint_equations_);
    num_constraint_equations_ += rows;
    ConstraintMatrix& delassus = delassus_[index];
    delassus.resize(rows, rows);
    if (rows == 3) {  // a contact's, zeroed inline rather than by a memset call
      Eigen::Map<Eigen::Matrix3d>(delassus.data()).setZero();
    } else {
      delassus.setZero();
    }
    for (const JacobianBlock& block : c.jacobian) AddDelassusTerm(block, &delassus);
    // The Jacobian's finiteness, read off W = J A⁻¹ Jᵀ: with A⁻¹ symmetric
    // positive definite and finite, a non-finite entry in row i of J makes
    // W_ii infinite or NaN, and a finite J a finite W (short of overflow).
    if (!delassus.diagonal().allFinite())
      throw ConstraintError(index, kJacobianOrDelassusNotFinite);
  }
  for (int index = 0; index < num_constraints(); ++index) {
    try {
      constraints_[index].potential->Prepare(delassus_[index], time_step_);
    } catch (const std::invalid_argument& e) {
      throw ConstraintError(index, e.what());
    }
  }
}

namespace {

// y += J_b x for one Jacobian block: a contact's rows on a rigid body
// through the 3 × 6 kernel, any other block through the generic product
// (inlined in the per-constraint loops, as their other products are).
__attribute__((always_inline)) inline void AddJacobianBlockTimes(
    const Eigen::MatrixXd& block, const double* x, double* y) {
  static const Times3x6Kernel add_contact_rows_times = AddTimes3x6Kernel();
  if (IsContactOnBody(block)) return add_contact_rows_times(block.data(), x, y);
  AddBlockTimes(block, x, y);
}

}  // namespace

ConstraintVector ContactProblem::ConstraintVelocity(int index,
                                                    const Eigen::VectorXd& v) const {
  const ContactRows& rows = contact_rows_[index];
  if (rows.jacobian[0] != nullptr) {  // a contact on rigid bodies: its record
    static const Times3x6Kernel add_contact_rows_times = AddTimes3x6Kernel();
    ConstraintVector v_c = Eigen::Map<const Eigen::Vector3d>(rows.bias);
    add_contact_rows_times(rows.jacobian[0], v.data() + rows.velocity_offset[0],
                           v_c.data());
    if (rows.jacobian[1] != nullptr) {
      add_contact_rows_times(rows.jacobian[1], v.data() + rows.velocity_offset[1],
                             v_c.data());
    }
    return v_c;
  }
  const ProblemConstraint& c = constraint(index);
  ConstraintVector v_c = c.bias;
  for (const JacobianBlock& block : c.jacobian) {
    AddJacobianBlockTimes(block.matrix, v.data() + clique_offsets_[block.clique],
                          v_c.data());
  }
  return v_c;
}

void ContactProblem::MultiplyConstraint(int index, const double* x, bool with_bias,
                                        double* y) const {
  const ProblemConstraint& c = constraint(index);
  double* y_i = y + constraint_offsets_[index];
  const Eigen::Index rows = c.bias.size();
  if (rows == 3) {  // a contact: three entries without a call to memmove
    for (int r = 0; r < 3; ++r) y_i[r] = with_bias ? c.bias[r] : 0.0;
  } else if (with_bias) {
    std::copy(c.bias.data(), c.bias.data() + rows, y_i);
  } else {
    std::fill(y_i, y_i + rows, 0.0);
  }
  for (const JacobianBlock& block : c.jacobian) {
    AddJacobianBlockTimes(block.matrix, x + clique_offsets_[block.clique], y_i);
  }
}

void ContactProblem::AddConstraintTransposeTimes(int index, const double* gamma,
                                                 double* generalized) const {
  static const Times3x6Kernel add_contact_rows_transpose_times =
      AddTransposeTimes3x6Kernel();
  const double* gamma_i = gamma + constraint_offsets_[index];
  for (const JacobianBlock& block : constraint(index).jacobian) {
    double* generalized_b = generalized + clique_offsets_[block.clique];
    if (IsContactOnBody(block.matrix)) {
      add_contact_rows_transpose_times(block.matrix.data(), gamma_i, generalized_b);
    } else {
      AddBlockTransposeTimes(block.matrix, gamma_i, generalized_b);
    }
  }
}

void ContactProblem::MultiplyClique(int clique, const double* x, double* y) const {
  static const BlockTimes6Kernel body_times = Times6Kernel();
  const Eigen::MatrixXd& a = cliques_[clique];
  double* y_t = y + clique_offsets_[clique];
  if (a.rows() == 6) return body_times(a.data(), x + clique_offsets_[clique], y_t);
  std::fill(y_t, y_t + a.rows(), 0.0);
  AddBlockTimes(a, x + clique_offsets_[clique], y_t);
}

void ContactProblem::MultiplyConstraints(const int* list, int count, const double* x,
                                         bool with_bias, double* y) const {
  static const ContactRowsProductKernel multiply_contact_rows = ContactRowsTimesKernel();
  for (size_t k = 0; k < static_cast<size_t>(count); ++k) {
    k = multiply_contact_rows(contact_rows_.data(), list, k, count, x, with_bias, y);
    if (k == static_cast<size_t>(count)) break;
    MultiplyConstraint(list != nullptr ? list[k] : static_cast<int>(k), x, with_bias, y);
  }
}

void ContactProblem::AddConstraintsTransposeTimes(const int* list, int count,
                                                  const double* gamma,
                                                  double* generalized) const {
  static const ContactRowsTransposeProductKernel add_contact_rows_transpose_times =
      ContactRowsTransposeTimesKernel();
  for (size_t k = 0; k < static_cast<size_t>(count); ++k) {
    k = add_contact_rows_transpose_times(contact_rows_.data(), list, k, count, gamma,
                                         generalized);
    if (k == static_cast<size_t>(count)) break;
    AddConstraintTransposeTimes(list != nullptr ? list[k] : static_cast<int>(k), gamma,
                                generalized);
  }
}

void ContactProblem::MultiplyByJacobianInto(Eigen::Ref<const Eigen::VectorXd> x,
                                            bool with_bias, double* y) const {
  MultiplyConstraints(nullptr, num_constraints(), x.data(), with_bias, y);
}

void ContactProblem::AddJacobianTransposeTimesInto(
    Eigen::Ref<const Eigen::VectorXd> gamma, double* generalized) const {
  AddConstraintsTransposeTimes(nullptr, num_constraints(), gamma.data(), generalized);
}

void ContactProblem::MultiplyByA(Eigen::Ref<const Eigen::VectorXd> x,
                                 Eigen::VectorXd* y) const {
  y->resize(num_dofs_);
  for (int clique = 0; clique < num_cliques(); ++clique) {
    MultiplyClique(clique, x.data(), y->data());
  }
}

void ContactProblem::MultiplyByJacobian(Eigen::Ref<const Eigen::VectorXd> x,
                                        std::span<const int> constraints,
                                        Eigen::Ref<Eigen::VectorXd> y) const {
  MultiplyConstraints(constraints.data(), static_cast<int>(constraints.size()), x.data(),
                      false, y.data());
}

void ContactProblem::AddJacobianTransposeTimes(
    Eigen::Ref<const Eigen::VectorXd> gamma, std::span<const int> constraints,
    Eigen::Ref<Eigen::VectorXd> generalized) const {
  AddConstraintsTransposeTimes(constraints.data(), static_cast<int>(constraints.size()),
                               gamma.data(), generalized.data());
}

void ContactProblem::MultiplyByA(Eigen::Ref<const Eigen::VectorXd> x,
                                 std::span<const int> cliques,
                                 Eigen::Ref<Eigen::VectorXd> y) const {
  for (int clique : cliques) MultiplyClique(clique, x.data(), y.data());
}

}  // namespace coulomb
