// A helper of cli_test.sh, independent of the solvers:
//   fclib_tool write-problems DIR
//     writes DIR/local.hdf5 (3 contacts, W SPD, some approaching) and
//     DIR/global.hdf5 (two bodies on the ground, 4 contacts);
//   fclib_tool check PROBLEM.hdf5 SOLUTION.hdf5
//     checks that the solution file holds /solution/r and /solution/u (3 per
//     contact) and, for a global problem, /solution/v (one per dof), that u
//     and v are the ones r gives by the problem's own equations (u = W r + q,
//     or M v = H r + f and u = Hᵀ v + w), and prints the natural-map residual
//     of r. Exits 1 with a message when a check fails;
//   fclib_tool print FILE.h5 DATASET
//     prints a dataset's values, one per line, to full precision;
//   fclib_tool write-bad DIR
//     writes FCLIB files that `coulomb solve` must refuse (bad_inputs_test.sh):
//     missing datasets, wrong dimensions, μ < 0, NaN, a non-symmetric W, a
//     non-symmetric or indefinite M, no problem at all.
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>

#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/fclib/natural_map_residual.h"
#include "coulomb/io/hdf5_file.h"
#include "fclib_writer.h"

namespace {

using coulomb::FclibProblem;

void WriteProblems(const std::string& directory) {
  // Local: W = B Bᵀ + 0.1 I from a fixed B, contacts 0 and 2 approaching.
  Eigen::MatrixXd b(9, 9);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) b(i, j) = std::sin(1.0 + 3.0 * i + 7.0 * j) / 3.0;
  const Eigen::MatrixXd w = b * b.transpose() + 0.1 * Eigen::MatrixXd::Identity(9, 9);
  Eigen::VectorXd q(9);
  q << -1.0, 0.3, -0.2, 0.5, 0.1, 0.0, -0.4, -0.6, 0.2;
  coulomb::WriteFclibLocalProblem(directory + "/local.hdf5", w, q,
                                  Eigen::Vector3d(0.5, 0.3, 0.8));
  // Global: two unit-mass point bodies (3 dofs each) pushed into the ground
  // by f, two contacts each (H maps body velocity to [n, t1, t2] = [z, x, y]).
  const Eigen::MatrixXd m = Eigen::MatrixXd::Identity(6, 6);
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(6, 12);
  for (int contact = 0; contact < 4; ++contact) {
    const int body = contact / 2;
    h(3 * body + 2, 3 * contact) = 1.0;      // n
    h(3 * body + 0, 3 * contact + 1) = 1.0;  // t1
    h(3 * body + 1, 3 * contact + 2) = 1.0;  // t2
  }
  Eigen::VectorXd f(6);
  f << 0.4, 0.0, -1.0, -0.1, 0.2, -2.0;
  coulomb::WriteFclibGlobalProblem(directory + "/global.hdf5", m, h, f,
                                   Eigen::VectorXd::Zero(12),
                                   Eigen::Vector4d(0.3, 0.3, 0.6, 0.6));
}

bool Near(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).norm() <= 1e-9 * (1.0 + b.norm());
}

int Check(const std::string& problem_path, const std::string& solution_path) {
  const FclibProblem problem = coulomb::ReadFclibProblem(problem_path);
  const coulomb::Hdf5File solution(solution_path, coulomb::Hdf5File::Mode::kRead);
  const Eigen::VectorXd r = solution.ReadDoubles("/solution/r");
  const Eigen::VectorXd u = solution.ReadDoubles("/solution/u");
  const long expected = 3L * problem.num_contacts;
  if (r.size() != expected || u.size() != expected) {
    std::fprintf(stderr, "r has %ld and u %ld entries, expected %ld\n", long(r.size()),
                 long(u.size()), expected);
    return 1;
  }
  if (!Near(u, coulomb::CalcFclibContactVelocities(problem, r))) {
    std::fprintf(stderr, "u is not u(r)\n");
    return 1;
  }
  if (problem.kind == FclibProblem::Kind::kGlobal) {
    const Eigen::VectorXd v = solution.ReadDoubles("/solution/v");
    const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> m(problem.m_matrix);
    if (v.size() != problem.num_dofs() ||
        !Near(v, m.solve(problem.h_matrix * r + problem.f))) {
      std::fprintf(stderr, "v is not M⁻¹(H r + f)\n");
      return 1;
    }
  } else if (solution.Exists("/solution/v")) {
    std::fprintf(stderr, "a local problem's solution has /solution/v\n");
    return 1;
  }
  std::printf("%.17g\n", coulomb::CalcNaturalMapResidual(problem, r).error);
  return 0;
}

void WriteBadProblems(const std::string& directory) {
  const Eigen::MatrixXd w = Eigen::MatrixXd::Identity(6, 6);
  Eigen::VectorXd q = Eigen::VectorXd::Constant(6, -0.1);
  const Eigen::Vector2d mu(0.5, 0.5);
  const auto local = [&](const std::string& name, const Eigen::MatrixXd& w_,
                         const Eigen::VectorXd& q_, const Eigen::VectorXd& mu_) {
    coulomb::WriteFclibLocalProblem(directory + "/" + name + ".hdf5", w_, q_, mu_);
  };
  Eigen::VectorXd nan_q = q;
  nan_q(2) = NAN;
  Eigen::MatrixXd skew_w = w;
  skew_w(0, 1) = 0.5;
  local("local_q_wrong_size", w, q.head(5), mu);
  local("local_mu_wrong_size", w, q, Eigen::Vector3d(0.5, 0.5, 0.5));
  local("local_negative_mu", w, q, Eigen::Vector2d(0.5, -0.5));
  local("local_nan_q", w, nan_q, mu);
  local("local_nonsymmetric_w", skew_w, q, mu);
  local("local_w_not_square", Eigen::MatrixXd::Identity(6, 5), q, mu);
  // Global: 3 dofs, one contact.
  const Eigen::MatrixXd m = Eigen::Matrix3d::Identity();
  const Eigen::MatrixXd h = Eigen::Matrix3d::Identity();
  const Eigen::Vector3d f(0, 0, -1), w_global(0, 0, 0);
  const Eigen::VectorXd mu1 = Eigen::VectorXd::Constant(1, 0.5);
  const auto global = [&](const std::string& name, const Eigen::MatrixXd& m_,
                          const Eigen::MatrixXd& h_, const Eigen::VectorXd& f_) {
    coulomb::WriteFclibGlobalProblem(directory + "/" + name + ".hdf5", m_, h_, f_,
                                     w_global, mu1);
  };
  Eigen::MatrixXd indefinite = m;
  indefinite(2, 2) = -1.0;
  Eigen::MatrixXd skew_m = m;
  skew_m(0, 2) = 0.3;
  Eigen::MatrixXd nan_m = m;
  nan_m(1, 1) = NAN;
  global("global_m_not_positive_definite", indefinite, h, f);
  global("global_m_nonsymmetric", skew_m, h, f);
  global("global_nan_m", nan_m, h, f);
  global("global_h_wrong_size", m, Eigen::MatrixXd::Identity(3, 6), f);
  global("global_f_wrong_size", m, h, Eigen::Vector2d(0, -1));
  // Missing datasets and a file with no problem.
  {
    coulomb::Hdf5File file(directory + "/local_missing_q.hdf5",
                           coulomb::Hdf5File::Mode::kCreate);
    file.WriteDoubles("/fclib_local/vectors/mu", mu);
  }
  {
    coulomb::Hdf5File file(directory + "/no_problem.hdf5",
                           coulomb::Hdf5File::Mode::kCreate);
    file.WriteDoubles("/something/else", q);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "write-problems" && argc == 3) {
      WriteProblems(argv[2]);
      return 0;
    }
    if (mode == "write-bad" && argc == 3) {
      WriteBadProblems(argv[2]);
      return 0;
    }
    if (mode == "check" && argc == 4) return Check(argv[2], argv[3]);
    if (mode == "print" && argc == 4) {
      const coulomb::Hdf5File file(argv[2], coulomb::Hdf5File::Mode::kRead);
      for (const double value : file.ReadDoubles(argv[3])) std::printf("%.17g\n", value);
      return 0;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fclib_tool: %s\n", error.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: fclib_tool write-problems DIR | write-bad DIR | check PROBLEM "
               "SOLUTION | print FILE DATASET\n");
  return 2;
}
