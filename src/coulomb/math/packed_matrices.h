#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// Dense column-major matrices of varying sizes, stored one after another in
// one buffer that never shrinks: laid out again with sizes whose total it has
// held before (a contact pattern seen earlier), it allocates nothing, where a
// std::vector<Eigen::MatrixXd> reallocates every matrix whose size changes.
// Matrix k is seen through an Eigen::Map (outer stride = its rows).
class PackedMatrices {
 public:
  // Matrix k becomes rows[k] × cols[k] (values left unspecified).
  void LayOut(const std::vector<int>& rows, const std::vector<int>& cols) {
    const std::size_t count = rows.size();
    rows_.assign(rows.begin(), rows.end());
    cols_.assign(cols.begin(), cols.begin() + static_cast<std::ptrdiff_t>(count));
    offsets_.resize(count + 1);
    offsets_[0] = 0;
    for (std::size_t k = 0; k < count; ++k) {
      offsets_[k + 1] = offsets_[k] + static_cast<std::size_t>(rows_[k]) * cols_[k];
    }
    values_.resize(offsets_[count]);
  }

  int size() const { return static_cast<int>(rows_.size()); }
  Eigen::Map<Eigen::MatrixXd> operator[](int k) {
    return {values_.data() + offsets_[k], rows_[k], cols_[k]};
  }
  Eigen::Map<const Eigen::MatrixXd> operator[](int k) const {
    return {values_.data() + offsets_[k], rows_[k], cols_[k]};
  }

 private:
  std::vector<int> rows_, cols_;
  std::vector<std::size_t> offsets_;  // matrix k at values_[offsets_[k], offsets_[k + 1])
  std::vector<double> values_;
};

}  // namespace coulomb
