#pragma once

#include <string>

#include <Eigen/Dense>
#include <Eigen/Sparse>

namespace coulomb {

// A one-step frictional contact problem in FCLIB's form (Acary, Brémond,
// Huber), as stored in its HDF5 files. Contact-local frames are ordered
// normal first, [n, t1, t2], three rows per contact.
//   local:  u = W r + q
//   global: M v = H r + f,  u = Hᵀ v + w
// Find r ∈ K_μ = {‖r_T‖ ≤ μ r_N} with û = u + [μ‖u_T‖, 0, 0] ∈ K_μ* and r ⊥ û.
struct FclibProblem {
  enum class Kind { kLocal, kGlobal };

  std::string path;
  std::string title;        // info/title, if the file has one
  std::string description;  // info/description, if the file has one
  Kind kind = Kind::kLocal;
  int num_contacts = 0;
  Eigen::VectorXd mu;  // one per contact, ≥ 0

  // local
  Eigen::SparseMatrix<double> w_matrix;  // W, 3nc × 3nc
  Eigen::VectorXd q;

  // global
  Eigen::SparseMatrix<double> m_matrix;  // M, n × n, SPD
  Eigen::SparseMatrix<double> h_matrix;  // H, n × 3nc
  Eigen::VectorXd f;
  Eigen::VectorXd w;

  int num_dofs() const { return kind == Kind::kGlobal ? static_cast<int>(f.size()) : 0; }
};

// Reads and validates an FCLIB file. Throws std::runtime_error with a one-line
// message naming the file and what is wrong: missing file, not FCLIB,
// inconsistent sizes, bad indices, non-finite numbers, negative μ. (Positive
// definiteness of M is checked when building the contact problem.)
FclibProblem ReadFclibProblem(const std::string& path);

}  // namespace coulomb
