#pragma once

#include <cstddef>
#include <vector>

namespace coulomb {

// A list of lists, indexed like std::vector<std::vector<T>>, whose lists keep
// their storage when the number of lists shrinks and grows again. Rebuilt
// every time step with counts and lengths it has held before (a contact
// pattern seen earlier), it allocates nothing; std::vector::resize would free
// every list it drops and allocate them anew.
template <class T>
class ReusableLists {
 public:
  using List = std::vector<T>;

  // n empty lists.
  void Reset(std::size_t n) {
    resize(n);
    for (std::size_t i = 0; i < n; ++i) lists_[i].clear();
  }
  // n lists, the first min(n, size()) unchanged and the rest empty, as
  // std::vector::resize.
  void resize(std::size_t n) {
    if (lists_.size() < n) lists_.resize(n);
    for (std::size_t i = size_; i < n; ++i) lists_[i].clear();
    size_ = n;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  List& operator[](std::size_t i) { return lists_[i]; }
  const List& operator[](std::size_t i) const { return lists_[i]; }
  typename std::vector<List>::iterator begin() { return lists_.begin(); }
  typename std::vector<List>::iterator end() { return lists_.begin() + size_; }
  typename std::vector<List>::const_iterator begin() const { return lists_.begin(); }
  typename std::vector<List>::const_iterator end() const {
    return lists_.begin() + size_;
  }

 private:
  std::vector<List> lists_;  // lists_[size_, end) keep their storage for later
  std::size_t size_ = 0;
};

}  // namespace coulomb
