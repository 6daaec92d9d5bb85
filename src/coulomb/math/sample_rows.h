#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

#include <Eigen/Core>

namespace coulomb {

// A recorded quantity's samples: one row of `width()` numbers per sample,
// the rows end to end in one buffer, row s at data() + s · width(). Appending
// a row allocates only when the buffer grows (geometrically), where a vector
// of Eigen::VectorXd would allocate once per sample; the rows read out as a
// samples × width row-major array without a copy.
//
// The buffer grows by realloc, not as a std::vector does (a new buffer, the
// old one copied into it and freed). A long recording is most of a run's
// fresh memory, and a fresh page costs its first touch (a page fault, about
// 1.5 µs here): where the C library maps large blocks (glibc: above its mmap
// threshold, growing them by mremap), growth moves the pages instead of
// copying them, so each page of the recording is touched once, not about
// twice.
class SampleRows {
 public:
  SampleRows() = default;
  SampleRows(const SampleRows& other);
  SampleRows(SampleRows&& other) noexcept;
  SampleRows& operator=(SampleRows other) noexcept;
  ~SampleRows() = default;

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
  const double* data() const { return values_.get(); }

  // The rows from `first` on (none if first ≥ size()), of the same width.
  SampleRows From(size_t first) const;
  // No rows, and no width; the buffer's capacity is kept.
  void clear();

 private:
  struct Free {
    void operator()(double* values) const { std::free(values); }
  };
  // Room for at least `values` numbers, the rows kept (std::bad_alloc if not).
  void Reserve(size_t values);
  size_t num_values() const { return rows_ * static_cast<size_t>(width_); }

  size_t rows_ = 0;
  Eigen::Index width_ = 0;
  size_t capacity_ = 0;  // numbers the buffer holds room for
  std::unique_ptr<double[], Free> values_;
};

}  // namespace coulomb
