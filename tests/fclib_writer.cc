#include "fclib_writer.h"

#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/fclib/fclib_writer.h"

namespace coulomb {
namespace {

FclibProblem WithFriction(FclibProblem::Kind kind, const Eigen::VectorXd& mu) {
  FclibProblem problem;
  problem.kind = kind;
  problem.num_contacts = static_cast<int>(mu.size());
  problem.mu = mu;
  return problem;
}

}  // namespace

void WriteFclibLocalProblem(const std::string& path, const Eigen::MatrixXd& w,
                            const Eigen::VectorXd& q, const Eigen::VectorXd& mu) {
  FclibProblem problem = WithFriction(FclibProblem::Kind::kLocal, mu);
  problem.w_matrix = w.sparseView();
  problem.q = q;
  WriteFclibProblem(problem, path);
}

void WriteFclibGlobalProblem(const std::string& path, const Eigen::MatrixXd& m,
                             const Eigen::MatrixXd& h, const Eigen::VectorXd& f,
                             const Eigen::VectorXd& w, const Eigen::VectorXd& mu) {
  FclibProblem problem = WithFriction(FclibProblem::Kind::kGlobal, mu);
  problem.m_matrix = m.sparseView();
  problem.h_matrix = h.sparseView();
  problem.f = f;
  problem.w = w;
  WriteFclibProblem(problem, path);
}

}  // namespace coulomb
