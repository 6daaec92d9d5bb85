#include "coulomb/contact/clique_tree.h"

#include <algorithm>
#include <cmath>

namespace coulomb {
namespace {

bool InChain(const CliqueTree& tree, int dof, int k) {
  for (int j = k; j >= 0; j = tree.parent[j]) {
    if (j == dof) return true;
  }
  return false;
}

}  // namespace

Eigen::Matrix<double, 3, 6> PointVelocityMap(const Eigen::Vector3d& p) {
  Eigen::Matrix<double, 3, 6> map;
  map.leftCols<3>().setIdentity();
  map.rightCols<3>() << 0, p.z(), -p.y(), -p.z(), 0, p.x(), p.y(), -p.x(), 0;
  return map;
}

void AddBodyJacobian(const CliqueTree& tree, const BodyJacobian& body,
                     Eigen::Ref<Eigen::MatrixXd> out) {
  for (int j = body.dof; j >= 0; j = tree.parent[j]) {
    out.col(j).noalias() += body.map * tree.motion.col(j);
  }
}

std::string CheckCliqueTree(const CliqueTree& tree, const Eigen::MatrixXd& a,
                            std::vector<int>* ancestor_mark) {
  const int n = static_cast<int>(a.rows());
  if (static_cast<int>(tree.parent.size()) != n || tree.motion.cols() != n) {
    return "tree has " + std::to_string(tree.parent.size()) + " parents and " +
           std::to_string(tree.motion.cols()) + " motion columns, expected " +
           std::to_string(n);
  }
  for (int k = 0; k < n; ++k) {
    if (tree.parent[k] < -1 || tree.parent[k] >= k) {
      return "tree: parent of dof " + std::to_string(k) + " is " +
             std::to_string(tree.parent[k]) + ", must be in [-1, " + std::to_string(k) +
             ")";
    }
  }
  if (!tree.motion.allFinite()) return "tree: motion subspaces are not finite";
  if (static_cast<int>(ancestor_mark->size()) < n) ancestor_mark->resize(n);
  std::fill(ancestor_mark->begin(), ancestor_mark->begin() + n, -1);
  for (int k = 0; k < n; ++k) {
    for (int j = k; j >= 0; j = tree.parent[j]) (*ancestor_mark)[j] = k;
    for (int l = 0; l < k; ++l) {
      if ((*ancestor_mark)[l] == k) continue;
      if (std::abs(a(k, l)) > 1e-10 * std::sqrt(a(k, k) * a(l, l))) {
        return "A(" + std::to_string(k) + ", " + std::to_string(l) +
               ") is not zero although neither dof is an ancestor of the other";
      }
    }
  }
  return "";
}

std::string CheckBodyJacobians(const CliqueTree& tree,
                               const std::vector<BodyJacobian>& bodies,
                               const Eigen::MatrixXd& matrix) {
  const int n = static_cast<int>(matrix.cols());
  for (const BodyJacobian& body : bodies) {
    if (body.dof < 0 || body.dof >= n) {
      return "body part on dof " + std::to_string(body.dof) + " of a clique with " +
             std::to_string(n) + " dofs";
    }
    if (body.map.rows() != matrix.rows() || !body.map.allFinite()) {
      return "body part map must be finite with " + std::to_string(matrix.rows()) +
             " rows";
    }
  }
  using Column = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxConstraintEquations, 1>;
  for (int k = 0; k < n; ++k) {
    Column expected = Column::Zero(matrix.rows());
    double scale = 0.0;
    for (const BodyJacobian& body : bodies) {
      if (!InChain(tree, k, body.dof)) continue;
      expected.noalias() += body.map * tree.motion.col(k);
      scale += body.map.norm() * tree.motion.col(k).norm();
    }
    const double mismatch = (matrix.col(k) - expected).norm();
    if (mismatch > 1e-9 * scale) {
      return "body parts disagree with the Jacobian in column " + std::to_string(k) +
             " by " + std::to_string(mismatch);
    }
  }
  return "";
}

}  // namespace coulomb
