#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/contact/convex_constraint.h"

namespace coulomb {

// The kinematic structure of a clique that is a tree of rigid bodies:
// optional data of a contact problem, for SubADMM's per-body split (AL §VI-C,
// eqs. 30–31, 40–41; docs/math.md §4.3). Pure data, no multibody types.
//
// parent[k]: the dof that dof k hangs from, −1 at the root, parent[k] < k (a
// joint with several dofs chains them). chain(k) = k and its ancestors.
// motion: S, 6 × n; column k is the spatial velocity V = [v_O; ω] in the
// world frame (v_O: the velocity of the body-fixed point at the world
// origin) that a unit v_k gives every body below dof k. The body whose joint
// ends with dof k moves with V_b = Σ_{j ∈ chain(k)} S_j v_j = J_b v, and a
// point p of it with v_p = v_O + ω × p.
// The clique's A must have branch-induced sparsity: A_kl = 0 unless one of
// k, l is in the other's chain (true of mass matrices, with diagonal joint
// terms such as armature, springs and dampers).
struct CliqueTree {
  std::vector<int> parent;
  Eigen::Matrix<double, 6, Eigen::Dynamic> motion;
};

// One body's part of a constraint's Jacobian block (AL eq. 30): the block's
// rows acting through the body moving with dof `dof` are map · J_b, map
// (rows × 6, e.g. R_CWᵀ [I, −[p]×] for a contact point p) = J_i,b of the paper.
struct BodyJacobian {
  int dof = -1;
  Eigen::Matrix<double, Eigen::Dynamic, 6, 0, kMaxConstraintEquations, 6> map;
};

// [I, −[p]×]: the velocity v_O + ω × p of the body-fixed point at p (world
// frame) from the body's twist V = [v_O; ω], the map of a contact point
// before its rotation into the contact frame.
Eigen::Matrix<double, 3, 6> PointVelocityMap(const Eigen::Vector3d& p);

// out += map · J_b, the body part's dense Jacobian (out: rows × n).
void AddBodyJacobian(const CliqueTree& tree, const BodyJacobian& body,
                     Eigen::Ref<Eigen::MatrixXd> out);

// Empty if the tree is well formed for an n × n clique matrix A, else what
// is wrong. ancestor_mark: a workspace (no allocation once it has n entries).
std::string CheckCliqueTree(const CliqueTree& tree, const Eigen::MatrixXd& a,
                            std::vector<int>* ancestor_mark);

// Empty if the body parts of a Jacobian block agree with it (matrix =
// Σ map · J_b up to rounding), else what is wrong.
std::string CheckBodyJacobians(const CliqueTree& tree,
                               const std::vector<BodyJacobian>& bodies,
                               const Eigen::MatrixXd& matrix);

}  // namespace coulomb
