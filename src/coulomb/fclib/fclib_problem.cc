#include "coulomb/fclib/fclib_problem.h"

#include <stdexcept>
#include <vector>

#include "coulomb/io/hdf5_file.h"

namespace coulomb {
namespace {

using Triplets = std::vector<Eigen::Triplet<double>>;

// Compressed storage (CSR if rows_compressed, else CSC): p has
// outer_size + 1 pointers into i (inner indices) and x.
void AppendCompressed(const Hdf5File& file, const std::string& group,
                      bool rows_compressed, long long rows, long long cols,
                      const std::vector<long long>& p, const std::vector<long long>& i,
                      const Eigen::VectorXd& x, Triplets* triplets) {
  const long long outer_size = rows_compressed ? rows : cols;
  const long long inner_size = rows_compressed ? cols : rows;
  if (static_cast<long long>(p.size()) < outer_size + 1) {
    file.Fail(group + "/p", "has " + std::to_string(p.size()) + " entries, expected " +
                                std::to_string(outer_size + 1));
  }
  const long long stored = static_cast<long long>(std::min(i.size(), size_t(x.size())));
  if (p[0] != 0) file.Fail(group + "/p", "pointers out of range");
  for (long long outer = 0; outer < outer_size; ++outer) {
    if (p[outer + 1] < p[outer]) file.Fail(group + "/p", "pointers decrease");
    if (p[outer + 1] > stored) file.Fail(group + "/p", "pointers out of range");
    for (long long k = p[outer]; k < p[outer + 1]; ++k) {
      if (i[k] < 0 || i[k] >= inner_size) file.Fail(group + "/i", "index out of range");
      const long long row = rows_compressed ? outer : i[k];
      const long long col = rows_compressed ? i[k] : outer;
      triplets->emplace_back(static_cast<int>(row), static_cast<int>(col), x[k]);
    }
  }
}

// Triplet storage: i = row index, p = column index (CSparse), first nz valid.
void AppendTriplets(const Hdf5File& file, const std::string& group, long long nz,
                    long long rows, long long cols, const std::vector<long long>& p,
                    const std::vector<long long>& i, const Eigen::VectorXd& x,
                    Triplets* triplets) {
  if (static_cast<long long>(std::min({p.size(), i.size(), size_t(x.size())})) < nz) {
    file.Fail(group, "holds fewer than nz = " + std::to_string(nz) + " entries");
  }
  for (long long k = 0; k < nz; ++k) {
    if (i[k] < 0 || i[k] >= rows || p[k] < 0 || p[k] >= cols) {
      file.Fail(group, "triplet " + std::to_string(k) + " is out of range");
    }
    triplets->emplace_back(static_cast<int>(i[k]), static_cast<int>(p[k]), x[k]);
  }
}

Eigen::SparseMatrix<double> ReadSparseMatrix(const Hdf5File& file,
                                             const std::string& group,
                                             long long expected_rows,
                                             long long expected_cols) {
  const long long rows = file.ReadInteger(group + "/m");
  const long long cols = file.ReadInteger(group + "/n");
  if (rows != expected_rows || cols != expected_cols) {
    file.Fail(group, "is " + std::to_string(rows) + "×" + std::to_string(cols) +
                         ", expected " + std::to_string(expected_rows) + "×" +
                         std::to_string(expected_cols));
  }
  const long long nz = file.ReadInteger(group + "/nz");
  const std::vector<long long> p = file.ReadIntegers(group + "/p");
  const std::vector<long long> i = file.ReadIntegers(group + "/i");
  const Eigen::VectorXd x = file.ReadDoubles(group + "/x");
  if (!x.allFinite()) file.Fail(group + "/x", "has non-finite values");
  Triplets triplets;
  if (nz == -2 || nz == -1) {
    AppendCompressed(file, group, nz == -2, rows, cols, p, i, x, &triplets);
  } else if (nz >= 0) {
    AppendTriplets(file, group, nz, rows, cols, p, i, x, &triplets);
  } else {
    file.Fail(group + "/nz", "unknown storage code " + std::to_string(nz));
  }
  Eigen::SparseMatrix<double> matrix(static_cast<int>(rows), static_cast<int>(cols));
  matrix.setFromTriplets(triplets.begin(), triplets.end());  // sums duplicates
  return matrix;
}

Eigen::VectorXd ReadVector(const Hdf5File& file, const std::string& dataset,
                           long long expected_size) {
  Eigen::VectorXd values = file.ReadDoubles(dataset);
  if (values.size() != expected_size) {
    file.Fail(dataset, "has " + std::to_string(values.size()) + " entries, expected " +
                           std::to_string(expected_size));
  }
  if (!values.allFinite()) file.Fail(dataset, "has non-finite values");
  return values;
}

void ReadFrictionCoefficients(const Hdf5File& file, const std::string& root,
                              FclibProblem* problem) {
  problem->mu = file.ReadDoubles(root + "/vectors/mu");
  problem->num_contacts = static_cast<int>(problem->mu.size());
  if (problem->num_contacts == 0)
    file.Fail(root + "/vectors/mu", "is empty: no contacts");
  for (int contact = 0; contact < problem->num_contacts; ++contact) {
    const double mu = problem->mu[contact];
    if (!(mu >= 0.0) || !std::isfinite(mu)) {
      file.Fail(root + "/vectors/mu", "contact " + std::to_string(contact) +
                                          ": friction must be finite and ≥ 0, got " +
                                          std::to_string(mu));
    }
  }
}

void ReadLocal(const Hdf5File& file, FclibProblem* problem) {
  const std::string root = "/fclib_local";
  ReadFrictionCoefficients(file, root, problem);
  const long long size = 3LL * problem->num_contacts;
  problem->w_matrix = ReadSparseMatrix(file, root + "/W", size, size);
  problem->q = ReadVector(file, root + "/vectors/q", size);
}

void ReadGlobal(const Hdf5File& file, FclibProblem* problem) {
  const std::string root = "/fclib_global";
  ReadFrictionCoefficients(file, root, problem);
  if (file.Exists(root + "/G"))
    file.Fail(root + "/G", "equality constraints are not supported");
  const long long size = 3LL * problem->num_contacts;
  problem->f = file.ReadDoubles(root + "/vectors/f");
  const long long num_dofs = problem->f.size();
  if (num_dofs == 0) file.Fail(root + "/vectors/f", "is empty");
  if (!problem->f.allFinite()) file.Fail(root + "/vectors/f", "has non-finite values");
  problem->m_matrix = ReadSparseMatrix(file, root + "/M", num_dofs, num_dofs);
  problem->h_matrix = ReadSparseMatrix(file, root + "/H", num_dofs, size);
  problem->w = ReadVector(file, root + "/vectors/w", size);
}

}  // namespace

FclibProblem ReadFclibProblem(const std::string& path) {
  const Hdf5File file(path, Hdf5File::Mode::kRead);
  FclibProblem problem;
  problem.path = path;
  const bool local = file.Exists("/fclib_local");
  const bool global = file.Exists("/fclib_global");
  if (!local && !global) {
    throw std::runtime_error(path +
                             ": not an FCLIB file (no /fclib_local or /fclib_global)");
  }
  const std::string root = global ? "/fclib_global" : "/fclib_local";
  if (file.Exists(root + "/spacedim") && file.ReadInteger(root + "/spacedim") != 3) {
    file.Fail(root + "/spacedim", "only 3-D problems are supported");
  }
  if (file.Exists(root + "/info/title"))
    problem.title = file.ReadString(root + "/info/title");
  if (file.Exists(root + "/info/description"))
    problem.description = file.ReadString(root + "/info/description");
  if (global) {
    problem.kind = FclibProblem::Kind::kGlobal;
    ReadGlobal(file, &problem);
  } else {
    problem.kind = FclibProblem::Kind::kLocal;
    ReadLocal(file, &problem);
  }
  return problem;
}

}  // namespace coulomb
