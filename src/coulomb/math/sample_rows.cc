#include "coulomb/math/sample_rows.h"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace coulomb {

SampleRows::SampleRows(const SampleRows& other)
    : rows_(other.rows_), width_(other.width_) {
  Reserve(other.num_values());
  std::copy_n(other.data(), other.num_values(), values_.get());
}

SampleRows::SampleRows(SampleRows&& other) noexcept
    : rows_(std::exchange(other.rows_, 0)),
      width_(std::exchange(other.width_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      values_(std::move(other.values_)) {}

SampleRows& SampleRows::operator=(SampleRows other) noexcept {
  std::swap(rows_, other.rows_);
  std::swap(width_, other.width_);
  std::swap(capacity_, other.capacity_);
  std::swap(values_, other.values_);
  return *this;
}

void SampleRows::Reserve(size_t values) {
  if (values <= capacity_) return;
  void* grown = std::realloc(values_.get(), values * sizeof(double));
  if (grown == nullptr) throw std::bad_alloc();
  values_.release();  // realloc has freed or kept it; `grown` owns the rows now
  values_.reset(static_cast<double*>(grown));
  capacity_ = values;
}

Eigen::Map<Eigen::VectorXd> SampleRows::Append(Eigen::Index width) {
  if (rows_ == 0) {
    width_ = width;
  } else if (width != width_) {
    throw std::invalid_argument("a recorded sample of " + std::to_string(width) +
                                " numbers where the earlier ones have " +
                                std::to_string(width_));
  }
  const size_t used = num_values();
  const size_t needed = used + static_cast<size_t>(width);
  if (needed > capacity_) Reserve(std::max({needed, 2 * capacity_, size_t{64}}));
  double* row = values_.get() + used;
  std::fill_n(row, width, 0.0);
  ++rows_;
  return Eigen::Map<Eigen::VectorXd>(row, width_);
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
  part.Reserve(part.num_values());
  std::copy_n(data() + first * static_cast<size_t>(width_), part.num_values(),
              part.values_.get());
  return part;
}

void SampleRows::clear() {
  rows_ = 0;
  width_ = 0;
}

}  // namespace coulomb
