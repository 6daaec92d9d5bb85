#include "coulomb/fclib/fclib_contact_problem.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "coulomb/fclib/delassus_factor.h"
#include "coulomb/math/block_sparsity_pattern.h"

namespace coulomb {
namespace {

// Row of FCLIB component c (0 = n, 1 = t1, 2 = t2) in our [t1, t2, n] order.
int OurRow(int fclib_component) { return (fclib_component + 2) % 3; }

// Some files carry a slightly asymmetric W (Capsules-i125-1213: 1.3e-3 of
// max |W|, from the simulator that wrote it). SAP needs W = J Jᵀ, so the
// symmetric part is used; beyond this relative asymmetry the file is refused.
constexpr double kMaxRelativeAsymmetry = 1e-2;

std::unique_ptr<SapFrictionCone> MakeCone(const SapContactParameters& defaults, double mu,
                                          const Eigen::Vector3d& v_hat) {
  SapContactParameters parameters = defaults;
  parameters.friction = mu;
  return std::make_unique<SapFrictionCone>(parameters, v_hat);
}

Eigen::Vector3d ContactSegment(const Eigen::VectorXd& fclib_vector, int contact) {
  const Eigen::Vector3d fclib = fclib_vector.segment<3>(3 * contact);
  return {fclib[1], fclib[2], fclib[0]};
}

void Finalize(const FclibProblem& fclib, ContactProblem* problem) {
  try {
    problem->Finalize();
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fclib.path + ": " + e.what());
  }
}

// W − J Jᵀ in FCLIB's order, what the contact problem leaves out of the
// stored W: its skew part, and what the factor misses.
Eigen::MatrixXd LaggedPartOfW(const Eigen::MatrixXd& w, const DelassusFactor& factor) {
  std::vector<int> clique_offset(factor.clique_sizes.size() + 1, 0);
  for (size_t c = 0; c < factor.clique_sizes.size(); ++c)
    clique_offset[c + 1] = clique_offset[c] + factor.clique_sizes[c];
  Eigen::MatrixXd j = Eigen::MatrixXd::Zero(w.rows(), clique_offset.back());
  for (size_t contact = 0; contact < factor.contact_jacobians.size(); ++contact) {
    for (const JacobianBlock& block : factor.contact_jacobians[contact]) {
      j.block(3 * static_cast<Eigen::Index>(contact), clique_offset[block.clique], 3,
              block.matrix.cols()) = block.matrix;
    }
  }
  Eigen::MatrixXd lagged = w;
  lagged.noalias() -= j * j.transpose();
  return lagged;
}

FclibContactProblem BuildLocal(const FclibProblem& fclib, const SapContactParameters& p) {
  const Eigen::MatrixXd w = Eigen::MatrixXd(fclib.w_matrix);
  const double scale = std::max(w.cwiseAbs().maxCoeff(), 1e-300);
  const double relative_asymmetry = (w - w.transpose()).cwiseAbs().maxCoeff() / scale;
  if (relative_asymmetry > kMaxRelativeAsymmetry) {
    throw std::runtime_error(fclib.path +
                             ": /fclib_local/W is not symmetric (max |W − Wᵀ| / " +
                             "max |W| = " + std::to_string(relative_asymmetry) + ")");
  }
  const DelassusFactor factor =
      ChooseDelassusFactor(0.5 * (w + w.transpose()), fclib.path);
  FclibContactProblem mapped{.problem = ContactProblem(1.0),
                             .w_relative_asymmetry = relative_asymmetry,
                             .sparse_factor = factor.sparse};
  mapped.lagged_w = LaggedPartOfW(w, factor);
  mapped.w_model_error = mapped.lagged_w.cwiseAbs().maxCoeff() / scale;
  int num_dofs = 0;
  for (int size : factor.clique_sizes) {
    mapped.problem.AddClique(Eigen::MatrixXd::Identity(size, size));
    num_dofs += size;
  }
  mapped.problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(num_dofs));
  for (int contact = 0; contact < fclib.num_contacts; ++contact) {
    std::vector<JacobianBlock> jacobian;
    for (const JacobianBlock& fclib_rows : factor.contact_jacobians[contact]) {
      JacobianBlock block{fclib_rows.clique,
                          Eigen::MatrixXd(3, fclib_rows.matrix.cols())};
      for (int c = 0; c < 3; ++c) block.matrix.row(OurRow(c)) = fclib_rows.matrix.row(c);
      jacobian.push_back(std::move(block));
    }
    mapped.problem.AddConstraint(
        std::move(jacobian),
        MakeCone(p, fclib.mu[contact], -ContactSegment(fclib.q, contact)));
  }
  Finalize(fclib, &mapped.problem);
  return mapped;
}

// Connected components of the sparsity graph of M, each a sorted dof list.
std::vector<std::vector<int>> MassMatrixComponents(const Eigen::SparseMatrix<double>& m) {
  BlockSparsityPattern graph;
  graph.block_sizes.assign(m.rows(), 1);
  graph.neighbors.resize(m.rows());
  for (int col = 0; col < m.outerSize(); ++col) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(m, col); it; ++it) {
      if (it.value() != 0.0) graph.AddCoupling(static_cast<int>(it.row()), col);
    }
  }
  std::vector<int> component_of_dof, stack;
  const int num_components = graph.ConnectedComponents(&component_of_dof, &stack);
  std::vector<std::vector<int>> components(num_components);
  for (int dof = 0; dof < static_cast<int>(m.rows()); ++dof) {
    components[component_of_dof[dof]].push_back(dof);
  }
  return components;
}

// The contacts acting on each component (sorted, from H's columns).
std::vector<std::vector<int>> ContactsOfComponents(
    const FclibProblem& fclib, const std::vector<int>& component_of_dof,
    int num_components) {
  std::vector<std::vector<int>> contacts(num_components);
  const Eigen::SparseMatrix<double>& h = fclib.h_matrix;
  for (int column = 0; column < h.outerSize(); ++column) {  // one per contact row
    const int contact = column / 3;
    for (Eigen::SparseMatrix<double>::InnerIterator it(h, column); it; ++it) {
      std::vector<int>& list = contacts[component_of_dof[it.row()]];
      if (list.empty() || list.back() != contact) list.push_back(contact);
    }
  }
  return contacts;
}

// The cliques: components of M acted on by the same set of contacts are
// merged into one clique (A stays block diagonal, no coupling is added), so a
// diagonal M (Box_Stacks, Spheres: one component per dof) gives one clique
// per body and 3 × 6 Jacobian blocks instead of six 3 × 1 ones. Components no
// contact touches stay apart. Each clique is a sorted dof list.
std::vector<std::vector<int>> CliqueDofs(const FclibProblem& fclib) {
  const std::vector<std::vector<int>> components = MassMatrixComponents(fclib.m_matrix);
  std::vector<int> component_of_dof(fclib.num_dofs());
  for (int c = 0; c < static_cast<int>(components.size()); ++c) {
    for (int dof : components[c]) component_of_dof[dof] = c;
  }
  const std::vector<std::vector<int>> contacts =
      ContactsOfComponents(fclib, component_of_dof, static_cast<int>(components.size()));
  std::vector<std::vector<int>> cliques;
  std::map<std::vector<int>, int> clique_of_contacts;
  for (int c = 0; c < static_cast<int>(components.size()); ++c) {
    int clique = static_cast<int>(cliques.size());
    if (!contacts[c].empty()) {
      clique = clique_of_contacts.try_emplace(contacts[c], clique).first->second;
    }
    if (clique == static_cast<int>(cliques.size())) cliques.emplace_back();
    cliques[clique].insert(cliques[clique].end(), components[c].begin(),
                           components[c].end());
  }
  for (std::vector<int>& dofs : cliques) std::sort(dofs.begin(), dofs.end());
  return cliques;
}

// M restricted to `dofs` (dense), read from its sparse columns.
Eigen::MatrixXd MassMatrixBlock(const Eigen::SparseMatrix<double>& m,
                                const std::vector<int>& dofs,
                                std::vector<int>* local_index) {
  const int size = static_cast<int>(dofs.size());
  for (int r = 0; r < size; ++r) (*local_index)[dofs[r]] = r;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(size, size);
  for (int c = 0; c < size; ++c) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(m, dofs[c]); it; ++it) {
      const int r = (*local_index)[it.row()];
      if (r >= 0 && r < size && dofs[r] == it.row()) a(r, c) += it.value();
    }
  }
  return a;
}

void AddGlobalCliques(const FclibProblem& fclib, FclibContactProblem* mapped,
                      std::vector<int>* clique_of_dof, std::vector<int>* local_index) {
  const int num_dofs = fclib.num_dofs();
  clique_of_dof->assign(num_dofs, -1);
  local_index->assign(num_dofs, -1);
  Eigen::VectorXd v_star(num_dofs);
  for (const std::vector<int>& dofs : CliqueDofs(fclib)) {
    const int size = static_cast<int>(dofs.size());
    const Eigen::MatrixXd a = MassMatrixBlock(fclib.m_matrix, dofs, local_index);
    Eigen::VectorXd f(size);
    for (int r = 0; r < size; ++r) f[r] = fclib.f[dofs[r]];
    int clique = 0;
    try {
      clique = mapped->problem.AddClique(a);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(
          fclib.path + ": /fclib_global/M is not symmetric positive " +
          "definite (dofs " + std::to_string(dofs.front()) + "…): " + e.what());
    }
    v_star.segment(mapped->problem.clique_offset(clique), size) = a.llt().solve(f);
    for (int r = 0; r < size; ++r) {
      (*clique_of_dof)[dofs[r]] = clique;
      mapped->fclib_dof.push_back(dofs[r]);
    }
  }
  mapped->problem.SetFreeMotionVelocities(v_star);
}

FclibContactProblem BuildGlobal(const FclibProblem& fclib,
                                const SapContactParameters& p) {
  FclibContactProblem mapped{.problem = ContactProblem(1.0)};
  std::vector<int> clique_of_dof, local_index;
  AddGlobalCliques(fclib, &mapped, &clique_of_dof, &local_index);
  const Eigen::SparseMatrix<double, Eigen::ColMajor> h = fclib.h_matrix;
  for (int contact = 0; contact < fclib.num_contacts; ++contact) {
    std::map<int, Eigen::MatrixXd> blocks;  // by clique
    for (int c = 0; c < 3; ++c) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(h, 3 * contact + c); it; ++it) {
        const int dof = static_cast<int>(it.row());
        const int clique = clique_of_dof[dof];
        auto [entry, inserted] = blocks.try_emplace(clique);
        if (inserted) entry->second.setZero(3, mapped.problem.clique_size(clique));
        entry->second(OurRow(c), local_index[dof]) += it.value();
      }
    }
    if (blocks.empty()) {
      throw std::runtime_error(fclib.path + ": /fclib_global/H: contact " +
                               std::to_string(contact) + " has an empty Jacobian");
    }
    std::vector<JacobianBlock> jacobian;
    for (auto& [clique, matrix] : blocks) jacobian.push_back({clique, std::move(matrix)});
    mapped.problem.AddConstraint(
        std::move(jacobian),
        MakeCone(p, fclib.mu[contact], -ContactSegment(fclib.w, contact)));
  }
  Finalize(fclib, &mapped.problem);
  return mapped;
}

}  // namespace

FclibContactProblem WithLocalFreeVelocity(const FclibContactProblem& mapped,
                                          const FclibProblem& fclib,
                                          const Eigen::VectorXd& q,
                                          const SapContactParameters& parameters) {
  FclibContactProblem shifted{.problem = ContactProblem(mapped.problem.time_step()),
                              .w_relative_asymmetry = mapped.w_relative_asymmetry,
                              .sparse_factor = mapped.sparse_factor,
                              .w_model_error = mapped.w_model_error};
  shifted.problem.ResetCliquesFrom(mapped.problem);
  for (int contact = 0; contact < fclib.num_contacts; ++contact) {
    ProblemConstraint& slot = shifted.problem.EmplaceConstraint();
    slot.jacobian = mapped.problem.constraint(contact).jacobian;
    slot.bias = mapped.problem.constraint(contact).bias;
    slot.potential = MakeCone(parameters, fclib.mu[contact], -ContactSegment(q, contact));
  }
  Finalize(fclib, &shifted.problem);
  return shifted;
}

FclibContactProblem BuildFclibContactProblem(const FclibProblem& fclib,
                                             const SapContactParameters& parameters) {
  SapContactParameters near_rigid = parameters;
  near_rigid.stiffness = std::numeric_limits<double>::infinity();
  try {
    return fclib.kind == FclibProblem::Kind::kLocal ? BuildLocal(fclib, near_rigid)
                                                    : BuildGlobal(fclib, near_rigid);
  } catch (const std::invalid_argument& error) {
    // Finite entries whose products overflow (e.g. M⁻¹ f with M ~ 1e-300).
    throw std::runtime_error(fclib.path + ": " + error.what() +
                             " (numbers too large or too small for double precision)");
  }
}

Eigen::VectorXd ToFclibContactOrder(const Eigen::VectorXd& ours) {
  Eigen::VectorXd fclib(ours.size());
  for (Eigen::Index contact = 0; contact < ours.size() / 3; ++contact) {
    fclib.segment<3>(3 * contact) << ours[3 * contact + 2], ours[3 * contact],
        ours[3 * contact + 1];
  }
  return fclib;
}

Eigen::VectorXd FromFclibContactOrder(const Eigen::VectorXd& fclib) {
  Eigen::VectorXd ours(fclib.size());
  for (Eigen::Index contact = 0; contact < fclib.size() / 3; ++contact) {
    ours.segment<3>(3 * contact) = ContactSegment(fclib, static_cast<int>(contact));
  }
  return ours;
}

Eigen::VectorXd ToFclibDofOrder(const FclibContactProblem& mapped,
                                const Eigen::VectorXd& v) {
  Eigen::VectorXd fclib_v(v.size());
  for (Eigen::Index k = 0; k < v.size(); ++k) fclib_v[mapped.fclib_dof[k]] = v[k];
  return fclib_v;
}

}  // namespace coulomb
