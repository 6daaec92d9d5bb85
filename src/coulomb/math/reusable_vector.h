#pragma once

#include <new>
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// A vector of doubles whose storage never shrinks: resized to a size it has
// held before, it allocates nothing, where Eigen::VectorXd reallocates at
// every change of size. For the vectors sized by the constraints of a time
// step (v_c, γ), whose number changes with the contacts. It is an Eigen::Map
// over its own storage (re-seated by resize, as Eigen's documentation of Map
// allows), so it reads and writes like a VectorXd; passing it where a
// `const Eigen::VectorXd&` is expected makes a copy (use Eigen::Ref).
class ReusableVector : public Eigen::Map<Eigen::VectorXd> {
 public:
  using Map = Eigen::Map<Eigen::VectorXd>;

  ReusableVector() : Map(nullptr, 0) {}
  ReusableVector(const ReusableVector& other) : ReusableVector() { *this = other; }
  ReusableVector(ReusableVector&& other) noexcept : ReusableVector() {
    *this = std::move(other);
  }
  ReusableVector& operator=(const ReusableVector& other) {
    if (this != &other) *this = static_cast<const Map&>(other);
    return *this;
  }
  ReusableVector& operator=(ReusableVector&& other) noexcept {
    const Eigen::Index size = other.size();
    storage_.swap(other.storage_);
    other.Remap(0);
    Remap(size);
    return *this;
  }
  // The size and values of any Eigen vector expression.
  template <typename Derived>
  ReusableVector& operator=(const Eigen::DenseBase<Derived>& other) {
    resize(other.size());
    Map::operator=(other);
    return *this;
  }

  // n entries: the first min(n, size()) kept, the rest unspecified.
  void resize(Eigen::Index n) {
    if (static_cast<size_t>(n) > storage_.size()) storage_.resize(n);
    Remap(n);
  }
  // n zeros.
  void setZero(Eigen::Index n) {
    resize(n);
    Map::setZero();
  }
  using Map::setZero;

 private:
  void Remap(Eigen::Index n) { new (static_cast<Map*>(this)) Map(storage_.data(), n); }

  std::vector<double> storage_;
};

}  // namespace coulomb
