#pragma once

#include <bit>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace coulomb {

// An array that only grows at its end, its elements in segments of doubling
// size: segment k holds kFirstSegment · 2^k elements, element i lies in
// segment k = ⌊log2(i / kFirstSegment + 1)⌋ at i − kFirstSegment (2^k − 1).
// Appending never moves an element: the segments already filled stay where
// they are, and a new one is allocated (not constructed) when the last is
// full. A recording that grows through a long run thus touches each page of
// its memory once, when an element is written into it, where a std::vector
// copies all of it into a new buffer, twice as large, at every growth (and
// each fresh page costs a page fault). clear() keeps the segments.
template <class T>
class SegmentedArray {
 public:
  static constexpr size_t kFirstSegment = 64;

  SegmentedArray() = default;
  SegmentedArray(const SegmentedArray& other) {
    for (size_t i = 0; i < other.size(); ++i) push_back(other[i]);
  }
  SegmentedArray(SegmentedArray&& other) noexcept
      : segments_(std::move(other.segments_)), size_(std::exchange(other.size_, 0)) {}
  SegmentedArray& operator=(SegmentedArray other) noexcept {
    std::swap(segments_, other.segments_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~SegmentedArray() { clear(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t i) { return *At(i); }
  const T& operator[](size_t i) const { return *At(i); }

  void push_back(const T& value) {
    const size_t segment = Segment(size_);
    if (segment == segments_.size()) {
      const size_t bytes = (kFirstSegment << segment) * sizeof(T);
      segments_.emplace_back(
          static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)})));
    }
    new (At(size_)) T(value);
    ++size_;
  }

  // No elements; the segments are kept for the next ones.
  void clear() {
    for (size_t i = 0; i < size_; ++i) (*this)[i].~T();
    size_ = 0;
  }

 private:
  struct Release {
    void operator()(T* storage) const {
      ::operator delete (storage, std::align_val_t{alignof(T)});
    }
  };

  static size_t Segment(size_t i) { return std::bit_width(i / kFirstSegment + 1) - 1; }
  // Where element i lies (its segment allocated).
  T* At(size_t i) const {
    const size_t segment = Segment(i);
    return segments_[segment].get() + (i - kFirstSegment * ((size_t{1} << segment) - 1));
  }

  std::vector<std::unique_ptr<T, Release>> segments_;
  size_t size_ = 0;
};

}  // namespace coulomb
