#include "fclib_writer.h"

#include <vector>

#include "coulomb/io/hdf5_file.h"

namespace coulomb {
namespace {

// A sparse matrix in FCLIB triplet form (i = row, p = column).
void WriteTriplets(Hdf5File* file, const std::string& group,
                   const Eigen::MatrixXd& matrix) {
  std::vector<long long> rows, cols;
  std::vector<double> values;
  for (int c = 0; c < matrix.cols(); ++c) {
    for (int r = 0; r < matrix.rows(); ++r) {
      if (matrix(r, c) == 0.0) continue;
      rows.push_back(r);
      cols.push_back(c);
      values.push_back(matrix(r, c));
    }
  }
  const long long nz = static_cast<long long>(values.size());
  file->WriteIntegers(group + "/m", {matrix.rows()});
  file->WriteIntegers(group + "/n", {matrix.cols()});
  file->WriteIntegers(group + "/nz", {nz});
  file->WriteIntegers(group + "/nzmax", {nz});
  file->WriteIntegers(group + "/i", rows);
  file->WriteIntegers(group + "/p", cols);
  file->WriteDoubles(group + "/x", Eigen::Map<const Eigen::VectorXd>(values.data(), nz));
}

}  // namespace

void WriteFclibLocalProblem(const std::string& path, const Eigen::MatrixXd& w,
                            const Eigen::VectorXd& q, const Eigen::VectorXd& mu) {
  Hdf5File file(path, Hdf5File::Mode::kCreate);
  WriteTriplets(&file, "/fclib_local/W", w);
  file.WriteDoubles("/fclib_local/vectors/q", q);
  file.WriteDoubles("/fclib_local/vectors/mu", mu);
}

void WriteFclibGlobalProblem(const std::string& path, const Eigen::MatrixXd& m,
                             const Eigen::MatrixXd& h, const Eigen::VectorXd& f,
                             const Eigen::VectorXd& w, const Eigen::VectorXd& mu) {
  Hdf5File file(path, Hdf5File::Mode::kCreate);
  WriteTriplets(&file, "/fclib_global/M", m);
  WriteTriplets(&file, "/fclib_global/H", h);
  file.WriteDoubles("/fclib_global/vectors/f", f);
  file.WriteDoubles("/fclib_global/vectors/w", w);
  file.WriteDoubles("/fclib_global/vectors/mu", mu);
}

}  // namespace coulomb
