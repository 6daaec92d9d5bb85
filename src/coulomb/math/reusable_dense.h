#pragma once

#include <new>
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace coulomb {

// A dense Eigen vector or matrix of doubles (Plain: Eigen::VectorXd,
// Eigen::MatrixXd, Eigen::Matrix<double, 3, Eigen::Dynamic>, …) whose storage
// never shrinks: resized to a size it has held before, it allocates nothing,
// where Eigen's own types reallocate at every change of size. For the arrays
// sized by the constraints of a time step (v_c, γ, a contact's Jacobian on a
// tree), whose sizes change with the contacts. It is an Eigen::Map over its
// own storage (re-seated by resize, as Eigen's documentation of Map allows),
// so it reads and writes like Plain; passing it where a `const Plain&` is
// expected makes a copy (use Eigen::Ref).
template <class Plain>
class ReusableDense : public Eigen::Map<Plain> {
 public:
  using Map = Eigen::Map<Plain>;

  ReusableDense() : Map(nullptr, EmptyRows(), EmptyCols()) {}
  ReusableDense(const ReusableDense& other) : ReusableDense() { *this = other; }
  ReusableDense(ReusableDense&& other) noexcept : ReusableDense() {
    *this = std::move(other);
  }
  ReusableDense& operator=(const ReusableDense& other) {
    if (this != &other) *this = static_cast<const Map&>(other);
    return *this;
  }
  ReusableDense& operator=(ReusableDense&& other) noexcept {
    const Eigen::Index rows = other.rows(), cols = other.cols();
    storage_.swap(other.storage_);
    other.Remap(EmptyRows(), EmptyCols());
    Remap(rows, cols);
    return *this;
  }
  // The size and values of any Eigen expression.
  template <typename Derived>
  ReusableDense& operator=(const Eigen::DenseBase<Derived>& other) {
    resize(other.rows(), other.cols());
    Map::operator=(other);
    return *this;
  }

  // A vector of n entries: the first min(n, size()) kept, the rest
  // unspecified.
  void resize(Eigen::Index n) {
    static_assert(Plain::IsVectorAtCompileTime, "resize(n) is for vectors");
    if constexpr (Plain::ColsAtCompileTime == 1) {
      resize(n, 1);
    } else {
      resize(1, n);
    }
  }
  // rows × cols, the entries unspecified (a vector keeps its leading ones).
  void resize(Eigen::Index rows, Eigen::Index cols) {
    const auto size = static_cast<size_t>(rows * cols);
    if (size > storage_.size()) storage_.resize(size);
    Remap(rows, cols);
  }
  // n zeros (a vector).
  void setZero(Eigen::Index n) {
    resize(n);
    Map::setZero();
  }
  // rows × cols zeros.
  void setZero(Eigen::Index rows, Eigen::Index cols) {
    resize(rows, cols);
    Map::setZero();
  }
  using Map::setZero;

 private:
  static constexpr Eigen::Index EmptyRows() {
    return Plain::RowsAtCompileTime == Eigen::Dynamic ? 0 : Plain::RowsAtCompileTime;
  }
  static constexpr Eigen::Index EmptyCols() {
    return Plain::ColsAtCompileTime == Eigen::Dynamic ? 0 : Plain::ColsAtCompileTime;
  }
  void Remap(Eigen::Index rows, Eigen::Index cols) {
    new (static_cast<Map*>(this)) Map(storage_.data(), rows, cols);
  }

  std::vector<double> storage_;
};

using ReusableVector = ReusableDense<Eigen::VectorXd>;
using ReusableMatrix = ReusableDense<Eigen::MatrixXd>;

}  // namespace coulomb
