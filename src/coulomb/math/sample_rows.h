#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Core>

namespace coulomb {

// A recorded quantity's samples: one row of `width()` numbers per sample,
// the rows end to end in one buffer, row s at data() + s · width(). Appending
// a row allocates only when the buffer grows (geometrically), where a vector
// of Eigen::VectorXd would allocate once per sample; the rows read out as a
// samples × width row-major array without a copy.
class SampleRows {
 public:
  // A new row of `width` numbers, zero, to be filled at once (the next
  // Append may move it). The first row sets the width; a row of
  // another width after it is an error (std::invalid_argument).
  Eigen::Map<Eigen::VectorXd> Append(Eigen::Index width);

  size_t size() const { return rows_; }
  bool empty() const { return rows_ == 0; }
  // The numbers per row (0 before the first row).
  Eigen::Index width() const { return width_; }

  Eigen::Map<const Eigen::VectorXd> operator[](size_t s) const {
    return Eigen::Map<const Eigen::VectorXd>(data() + s * width_, width_);
  }
  // Row s, checked (std::out_of_range past the last row).
  Eigen::Map<const Eigen::VectorXd> at(size_t s) const;
  Eigen::Map<const Eigen::VectorXd> back() const { return (*this)[rows_ - 1]; }
  const double* data() const { return values_.data(); }

  // The rows from `first` on (none if first ≥ size()), of the same width.
  SampleRows From(size_t first) const;
  // No rows, and no width; the buffer's capacity is kept.
  void clear();

 private:
  size_t rows_ = 0;
  Eigen::Index width_ = 0;
  std::vector<double> values_;
};

}  // namespace coulomb
