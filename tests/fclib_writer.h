#pragma once

#include <string>

#include <Eigen/Dense>

namespace coulomb {

// Writes FCLIB problem files for tests from dense matrices, through the
// library's WriteFclibProblem: a local problem (W, q, μ) or a global one
// (M, H, f, w, μ).
// Vectors in FCLIB order [n, t1, t2] per contact.
void WriteFclibLocalProblem(const std::string& path, const Eigen::MatrixXd& w,
                            const Eigen::VectorXd& q, const Eigen::VectorXd& mu);
void WriteFclibGlobalProblem(const std::string& path, const Eigen::MatrixXd& m,
                             const Eigen::MatrixXd& h, const Eigen::VectorXd& f,
                             const Eigen::VectorXd& w, const Eigen::VectorXd& mu);

}  // namespace coulomb
