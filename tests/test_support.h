#pragma once

#include <functional>
#include <random>
#include <string>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/contact/contact_problem.h"
#include "coulomb/contact/sap_friction_cone.h"

namespace coulomb::testing {

// A rows × cols matrix of standard normal entries from `random`.
Eigen::MatrixXd NormalMatrix(int rows, int cols, std::mt19937* random);

// A pose whose rotation is a random unit quaternion's and whose translation
// has coordinates uniform in [−max_offset, max_offset] [m].
Eigen::Isometry3d RandomPose(double max_offset, std::mt19937* random);

// Central differences (error O(h²)) of a scalar / vector function of x.
Eigen::VectorXd NumericalGradient(const std::function<double(const Eigen::VectorXd&)>& f,
                                  const Eigen::VectorXd& x, double h);
Eigen::MatrixXd NumericalJacobian(
    const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
    const Eigen::VectorXd& x, double h);

// The problem's A, J (dense, stacked) and per-contact R, v̂, μ for problems
// whose constraints are all SapFrictionCone.
struct DenseSapProblem {
  Eigen::MatrixXd a;
  Eigen::MatrixXd j;
  Eigen::VectorXd bias;
  Eigen::VectorXd v_star;
  Eigen::VectorXd r_diagonal;  // [Rt, Rt, Rn] per contact
  Eigen::VectorXd v_hat;
  Eigen::VectorXd mu;
};
DenseSapProblem MakeDenseSapProblem(const ContactProblem& problem);

// A 2 kg slider (clique 0, one dof) pushed into its joint limit (v* = −1
// m/s, gap 0) next to a unit point mass (clique 1) on a frictional contact
// (μ = 0.5, v* = (0.3, 0, −0.5) in the contact frame): a finalized problem
// with one hard unilateral limit and one SAP cone.
ContactProblem MakeSliderAtLimitBesideContact();

// Euclidean projection onto {‖x_t‖ ≤ μ x_n}, our order [t1, t2, n].
Eigen::Vector3d ProjectOntoCone(const Eigen::Vector3d& x, double mu);

// The SAP dual (SAP-22): min_{γ∈F} ½ γᵀ(W + R)γ + rᵀγ, W = J A⁻¹ Jᵀ,
// r = J v* + b − v̂, solved by accelerated projected gradient with restarts
// (FISTA): an independent method, sharing no code with the SAP solver.
Eigen::VectorXd SolveSapDualByProjectedGradient(const DenseSapProblem& problem,
                                                int max_iterations, double tolerance);

// A random kinematic tree as a contact-problem clique: dofs with random
// parents, random motion subspaces S, a body at every dof with a random SPD
// spatial inertia M_b, and A = Σ_b J_bᵀ M_b J_b (J_b: S on chain(b)), which
// has the tree's branch-induced sparsity exactly.
struct RandomTree {
  CliqueTree tree;
  Eigen::MatrixXd a;
};
RandomTree MakeRandomTree(int num_dofs, unsigned seed);
// A contact point on the body of `dof`: map = R_CWᵀ-like random rotation
// times [I, −[p]×] for a random point p, times sign.
BodyJacobian RandomPointOnBody(int dof, double sign, unsigned seed);
// The dense Jacobian block Σ map · J_b of body parts.
Eigen::MatrixXd DenseBlock(const CliqueTree& tree,
                           const std::vector<BodyJacobian>& bodies);

// The pose with identity rotation at (x, y, z).
Eigen::Isometry3d At(double x, double y, double z);

// Writes a one-link pendulum URDF: revolute joint "hinge" about y, link
// "bob" of mass 2 kg centred 0.5 m below it (I = 0.1 kg·m²), with a 5 cm
// collision sphere at its centre.
void WritePendulumUrdf(const std::string& path);
// Two vertical sliders on a fixed frame ("slide_a", 0.3 kg; "slide_b",
// 0.1 kg), for couplers.
void WriteSliderPairUrdf(const std::string& path);
// A massless link "tip" welded to a URDF's root link "box", to append after
// it: a second body frame on the same rigid body.
inline constexpr const char* kTipLink =
    "<link name=\"tip\"/><joint name=\"tip_weld\" type=\"fixed\"><parent link=\"box\"/>"
    "<child link=\"tip\"/></joint>";

}  // namespace coulomb::testing
