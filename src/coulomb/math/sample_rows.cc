#include "coulomb/math/sample_rows.h"

#include <stdexcept>
#include <string>

namespace coulomb {

Eigen::Map<Eigen::VectorXd> SampleRows::Append(Eigen::Index width) {
  if (rows_ == 0) {
    width_ = width;
  } else if (width != width_) {
    throw std::invalid_argument("a recorded sample of " + std::to_string(width) +
                                " numbers where the earlier ones have " +
                                std::to_string(width_));
  }
  values_.resize(values_.size() + static_cast<size_t>(width));
  ++rows_;
  return Eigen::Map<Eigen::VectorXd>(values_.data() + (rows_ - 1) * width_, width_);
}

Eigen::Map<const Eigen::VectorXd> SampleRows::at(size_t s) const {
  if (s >= rows_) {
    throw std::out_of_range("sample " + std::to_string(s) + " of " +
                            std::to_string(rows_));
  }
  return (*this)[s];
}

SampleRows SampleRows::From(size_t first) const {
  SampleRows part;
  part.width_ = width_;
  if (first >= rows_) return part;
  part.rows_ = rows_ - first;
  part.values_.assign(values_.begin() + static_cast<std::ptrdiff_t>(first * width_),
                      values_.end());
  return part;
}

void SampleRows::clear() {
  rows_ = 0;
  width_ = 0;
  values_.clear();
}

}  // namespace coulomb
