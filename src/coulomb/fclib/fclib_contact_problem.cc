#include "coulomb/fclib/fclib_contact_problem.h"

#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

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

FclibContactProblem BuildLocal(const FclibProblem& fclib, const SapContactParameters& p) {
  const int size = 3 * fclib.num_contacts;
  const Eigen::MatrixXd w = Eigen::MatrixXd(fclib.w_matrix);
  const double scale = std::max(w.cwiseAbs().maxCoeff(), 1e-300);
  const double relative_asymmetry = (w - w.transpose()).cwiseAbs().maxCoeff() / scale;
  if (relative_asymmetry > kMaxRelativeAsymmetry) {
    throw std::runtime_error(fclib.path +
                             ": /fclib_local/W is not symmetric (max |W − Wᵀ| / " +
                             "max |W| = " + std::to_string(relative_asymmetry) + ")");
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(0.5 * (w + w.transpose()));
  if (eigen.eigenvalues().minCoeff() < -1e-9 * scale) {
    throw std::runtime_error(fclib.path +
                             ": /fclib_local/W is not positive semidefinite");
  }
  // Eigenvalues come sorted ascending; those at round-off level (W is often
  // singular: more contact rows than body dofs) are dropped, so J is
  // 3nc × rank and the clique has `rank` dofs: the same J Jᵀ = W, a smaller H.
  const Eigen::VectorXd& eigenvalues = eigen.eigenvalues();
  const double cutoff =
      size * std::numeric_limits<double>::epsilon() * eigenvalues.maxCoeff();
  const int rank = static_cast<int>((eigenvalues.array() > cutoff).count());
  if (rank == 0) throw std::runtime_error(fclib.path + ": /fclib_local/W is zero");
  const Eigen::MatrixXd factor = eigen.eigenvectors().rightCols(rank) *
                                 eigenvalues.tail(rank).cwiseSqrt().asDiagonal();

  FclibContactProblem mapped{ContactProblem(1.0), {}, relative_asymmetry};
  mapped.problem.AddClique(Eigen::MatrixXd::Identity(rank, rank));
  mapped.problem.SetFreeMotionVelocities(Eigen::VectorXd::Zero(rank));
  for (int contact = 0; contact < fclib.num_contacts; ++contact) {
    JacobianBlock block{0, Eigen::MatrixXd(3, rank)};
    for (int c = 0; c < 3; ++c) block.matrix.row(OurRow(c)) = factor.row(3 * contact + c);
    std::vector<JacobianBlock> jacobian;
    jacobian.push_back(std::move(block));
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
  std::vector<int> component_of_dof;
  const int num_components = graph.ConnectedComponents(&component_of_dof);
  std::vector<std::vector<int>> components(num_components);
  for (int dof = 0; dof < static_cast<int>(m.rows()); ++dof) {
    components[component_of_dof[dof]].push_back(dof);
  }
  return components;
}

void AddGlobalCliques(const FclibProblem& fclib, FclibContactProblem* mapped,
                      std::vector<int>* clique_of_dof, std::vector<int>* local_index) {
  const Eigen::MatrixXd m_dense = Eigen::MatrixXd(fclib.m_matrix);
  const int num_dofs = fclib.num_dofs();
  clique_of_dof->assign(num_dofs, -1);
  local_index->assign(num_dofs, -1);
  Eigen::VectorXd v_star(num_dofs);
  for (const std::vector<int>& dofs : MassMatrixComponents(fclib.m_matrix)) {
    const int size = static_cast<int>(dofs.size());
    Eigen::MatrixXd a(size, size);
    Eigen::VectorXd f(size);
    for (int r = 0; r < size; ++r) {
      f[r] = fclib.f[dofs[r]];
      for (int c = 0; c < size; ++c) a(r, c) = m_dense(dofs[r], dofs[c]);
    }
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
      (*local_index)[dofs[r]] = r;
      mapped->fclib_dof.push_back(dofs[r]);
    }
  }
  mapped->problem.SetFreeMotionVelocities(v_star);
}

FclibContactProblem BuildGlobal(const FclibProblem& fclib,
                                const SapContactParameters& p) {
  FclibContactProblem mapped{ContactProblem(1.0), {}, 0.0};
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
  FclibContactProblem shifted{
      ContactProblem(mapped.problem.time_step()), {}, mapped.w_relative_asymmetry};
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
