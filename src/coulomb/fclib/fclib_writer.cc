#include "coulomb/fclib/fclib_writer.h"

#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

#include "coulomb/fclib/fclib_contact_problem.h"
#include "coulomb/io/hdf5_file.h"

namespace coulomb {
namespace {

using Triplets = std::vector<Eigen::Triplet<double>>;

// A sparse matrix in FCLIB's triplet form (CSparse's: i = row, p = column).
void WriteTriplets(Hdf5File* file, const std::string& group,
                   const Eigen::SparseMatrix<double>& matrix) {
  std::vector<long long> rows, cols;
  std::vector<double> values;
  for (int col = 0; col < matrix.outerSize(); ++col) {
    for (Eigen::SparseMatrix<double>::InnerIterator entry(matrix, col); entry; ++entry) {
      rows.push_back(entry.row());
      cols.push_back(entry.col());
      values.push_back(entry.value());
    }
  }
  const auto nz = static_cast<long long>(values.size());
  file->WriteInt32s(group + "/m", {matrix.rows()});
  file->WriteInt32s(group + "/n", {matrix.cols()});
  file->WriteInt32s(group + "/nz", {nz});
  file->WriteInt32s(group + "/nzmax", {nz});
  file->WriteInt32s(group + "/i", rows);
  file->WriteInt32s(group + "/p", cols);
  file->WriteDoubles(group + "/x", Eigen::Map<const Eigen::VectorXd>(values.data(), nz));
}

void WriteContents(const FclibProblem& problem, Hdf5File* file) {
  const bool global = problem.kind == FclibProblem::Kind::kGlobal;
  const std::string root = global ? "/fclib_global" : "/fclib_local";
  file->WriteInt32s(root + "/spacedim", {3});
  file->WriteString(root + "/info/title", problem.title);
  file->WriteString(root + "/info/description", problem.description);
  file->WriteString(root + "/info/math_info", "");
  file->WriteDoubles(root + "/vectors/mu", problem.mu);
  if (global) {
    WriteTriplets(file, root + "/M", problem.m_matrix);
    WriteTriplets(file, root + "/H", problem.h_matrix);
    file->WriteDoubles(root + "/vectors/f", problem.f);
    file->WriteDoubles(root + "/vectors/w", problem.w);
  } else {
    WriteTriplets(file, root + "/W", problem.w_matrix);
    file->WriteDoubles(root + "/vectors/q", problem.q);
  }
}

// Row k of a contact in our order [t1, t2, n] is row kFclibRow[k] of FCLIB's
// [n, t1, t2] (ToFclibContactOrder, for H's columns).
constexpr int kFclibRow[3] = {1, 2, 0};

void AppendCliqueMatrices(const ContactProblem& problem, Triplets* m) {
  for (int clique = 0; clique < problem.num_cliques(); ++clique) {
    const Eigen::MatrixXd& a = problem.clique_matrix(clique);
    const int offset = problem.clique_offset(clique);
    for (int col = 0; col < a.cols(); ++col) {
      for (int row = 0; row < a.rows(); ++row) {
        if (a(row, col) != 0.0) m->emplace_back(offset + row, offset + col, a(row, col));
      }
    }
  }
}

// H = Jᵀ, contact i's three columns in FCLIB's order.
void AppendJacobianTranspose(const ContactProblem& problem, Triplets* h) {
  for (int i = 0; i < problem.num_constraints(); ++i) {
    for (const JacobianBlock& block : problem.constraint(i).jacobian) {
      const int offset = problem.clique_offset(block.clique);
      for (int row = 0; row < 3; ++row) {
        for (int dof = 0; dof < block.matrix.cols(); ++dof) {
          const double value = block.matrix(row, dof);
          if (value != 0.0) h->emplace_back(offset + dof, 3 * i + kFclibRow[row], value);
        }
      }
    }
  }
}

}  // namespace

void WriteFclibProblem(const FclibProblem& problem, const std::string& path) {
  const std::string temporary = path + ".partial";
  try {
    Hdf5File file(temporary, Hdf5File::Mode::kCreate);
    WriteContents(problem, &file);
    file.Flush();
    file.Rename(path);
  } catch (const std::exception& error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    // Hdf5File names the temporary ("TEMPORARY: what"): name `path` instead.
    const std::string reason = error.what();
    throw std::runtime_error(path + (reason.starts_with(temporary + ": ")
                                         ? reason.substr(temporary.size())
                                         : ": " + reason));
  }
}

FclibProblem FclibGlobalProblemOf(const ContactNcp& ncp, std::string title,
                                  std::string description) {
  const ContactProblem& problem = ncp.problem();
  const int nc = ncp.num_contacts();
  if (nc == 0) throw std::invalid_argument("no contacts: FCLIB has no empty problem");
  FclibProblem fclib;
  fclib.kind = FclibProblem::Kind::kGlobal;
  fclib.title = std::move(title);
  fclib.description = std::move(description);
  fclib.num_contacts = nc;
  fclib.mu.resize(nc);
  Eigen::VectorXd offset_and_bias(3 * nc);  // b + e, our order
  for (int i = 0; i < nc; ++i) {
    if (ncp.soft_law(i) != nullptr) {
      throw std::invalid_argument(
          "constraint " + std::to_string(i) +
          " is a PD controller's soft law: FCLIB has no such constraint");
    }
    fclib.mu[i] = ncp.friction(i);
    offset_and_bias.segment<3>(3 * i) =
        problem.constraint(i).bias + ncp.offsets().segment<3>(3 * i);
  }
  const int n = problem.num_dofs();
  Triplets m, h;
  AppendCliqueMatrices(problem, &m);
  AppendJacobianTranspose(problem, &h);
  fclib.m_matrix.resize(n, n);
  fclib.m_matrix.setFromTriplets(m.begin(), m.end());
  fclib.h_matrix.resize(n, 3 * nc);
  fclib.h_matrix.setFromTriplets(h.begin(), h.end());
  fclib.f = fclib.m_matrix * problem.v_star();
  fclib.w = ToFclibContactOrder(offset_and_bias);
  return fclib;
}

}  // namespace coulomb
