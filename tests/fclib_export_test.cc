// The FCLIB export of a contact problem's rigid NCP (fclib/fclib_writer.h),
// checked through the file: read back by the FCLIB reader, its contact
// velocities and natural-map residual computed by the FCLIB residual code
// (natural_map_residual.h, which solves with M itself) must be the NCP's.
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <random>

#include <gtest/gtest.h>

#include "coulomb/contact/pd_controller_constraint.h"
#include "coulomb/contact/random_contact_problem.h"
#include "coulomb/fclib/fclib_contact_problem.h"
#include "coulomb/fclib/fclib_problem.h"
#include "coulomb/fclib/fclib_writer.h"
#include "coulomb/fclib/natural_map_residual.h"
#include "coulomb/io/fclib_step_export.h"
#include "coulomb/io/hdf5_file.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/solvers/contact_ncp.h"
#include "robot_scenes.h"
#include "test_support.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

fs::path TemporaryPath(const std::string& name) {
  return fs::temp_directory_path() /
         ("coulomb_fclib_export_test_" + std::to_string(getpid()) + "_" + name);
}

FclibProblem WrittenAndReadBack(const ContactNcp& ncp, const std::string& name) {
  const fs::path path = TemporaryPath(name);
  WriteFclibProblem(FclibGlobalProblemOf(ncp, "title " + name, "description " + name),
                    path.string());
  FclibProblem read = ReadFclibProblem(path.string());
  fs::remove(path);
  return read;
}

// For impulses λ drawn at random (not a solution: every term of u counts),
// the file's u = Hᵀ M⁻¹(H r + f) + w and its natural-map residual are the
// NCP's u(λ) = J(v* + A⁻¹Jᵀλ) + b + e and residual, r and u reordered.
void ExpectSameNcp(const ContactNcp& ncp, const FclibProblem& file, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> normal;
  const int m = 3 * ncp.num_contacts();
  ASSERT_EQ(file.num_contacts, ncp.num_contacts());
  for (int i = 0; i < ncp.num_contacts(); ++i) EXPECT_EQ(file.mu[i], ncp.friction(i));
  for (int trial = 0; trial < 3; ++trial) {
    Eigen::VectorXd lambda(m);
    for (int k = 0; k < m; ++k) lambda[k] = normal(random);
    Eigen::VectorXd v, u;
    ncp.CalcVelocities(lambda, &v);
    ncp.CalcContactVelocities(v, &u);
    const Eigen::VectorXd r = ToFclibContactOrder(lambda);
    const NaturalMapResidual residual = CalcNaturalMapResidual(file, r);
    EXPECT_LE((residual.u - ToFclibContactOrder(u)).norm(), 1e-10 * (1.0 + u.norm()));
    EXPECT_NEAR(residual.error, ncp.NaturalMapResidual(lambda, u), 1e-9 * residual.error);
  }
}

TEST(FclibExport, RandomProblemsAreTheSameNcpInTheFile) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    RandomContactProblemOptions options;
    options.seed = seed;
    options.num_bodies = 6;
    options.num_contacts = 12;
    const ContactProblem problem = MakeRandomContactProblem(options);
    const ContactNcp ncp(problem);
    const FclibProblem file = WrittenAndReadBack(ncp, "random" + std::to_string(seed));
    EXPECT_EQ(file.kind, FclibProblem::Kind::kGlobal);
    EXPECT_EQ(file.title, "title random" + std::to_string(seed));
    EXPECT_EQ(file.description, "description random" + std::to_string(seed));
    ExpectSameNcp(ncp, file, seed);
  }
}

// A joint limit enters as the NCP pads it, a frictionless contact whose
// tangential columns of H are zero; the slider's M is its 2 kg.
TEST(FclibExport, AJointLimitIsAFrictionlessContact) {
  const ContactProblem problem = testing::MakeSliderAtLimitBesideContact();
  const ContactNcp ncp(problem);
  const FclibProblem file = WrittenAndReadBack(ncp, "limit");
  EXPECT_EQ(file.mu[1], 0.0);
  EXPECT_EQ(Eigen::MatrixXd(file.m_matrix)(0, 0), 2.0);
  const Eigen::MatrixXd h(file.h_matrix);
  EXPECT_EQ(h(0, 3), 1.0);  // the limit's normal column acts on the slider
  EXPECT_EQ(h.middleCols(4, 2).norm(), 0.0);
  EXPECT_EQ(file.f[0], 2.0 * -1.0);  // f = A v*
  ExpectSameNcp(ncp, file, 7);
}

// A simulation's steps: the limp quadruped's trees (A = M + δt D of each
// leg's joints, joint limits) as it lands, and the clutter's pile. Before
// the first step and after a step without contacts there is nothing to
// write.
TEST(FclibExport, ASimulationsStepsAreTheStepsNcp) {
  std::string why;
  std::optional<Scene> quadruped = testing::TryQuadrupedDrop(&why);
  if (!quadruped) GTEST_SKIP() << why;
  Scene clutter = MakeBuiltinScene("clutter", {{"bodies", "20"}});
  for (Scene* scene : {&*quadruped, &clutter}) {
    Simulation simulation(std::move(*scene));
    std::optional<ContactNcp> ncp;
    const std::string path = TemporaryPath(simulation.scene().name).string();
    EXPECT_THROW(WriteLastStepFclib(simulation, path, &ncp), std::invalid_argument);
    int exported = 0;
    while (simulation.time() < 0.6) {
      simulation.Step();
      const ContactProblem* problem = simulation.last_contact_problem();
      if (problem->num_constraints() == 0) {
        EXPECT_THROW(WriteLastStepFclib(simulation, path, &ncp), std::invalid_argument);
        continue;
      }
      if (++exported % 10 != 0) continue;
      WriteLastStepFclib(simulation, path, &ncp);
      const FclibProblem file = ReadFclibProblem(path);
      fs::remove(path);
      EXPECT_EQ(file.title, simulation.scene().name);
      EXPECT_EQ(file.num_dofs(), problem->num_dofs());
      ExpectSameNcp(ContactNcp(*problem), file, exported);
    }
    EXPECT_GE(exported, 10) << simulation.scene().name;
  }
}

TEST(FclibExport, SoftLawsAndEmptyProblemsAreRefused) {
  ContactProblem problem(0.01);
  problem.AddClique(Eigen::MatrixXd::Constant(1, 1, 2.0));
  problem.SetFreeMotionVelocities(Eigen::VectorXd::Ones(1));
  problem.AddConstraint(
      {{0, Eigen::MatrixXd::Ones(1, 1)}},
      std::make_unique<PdControllerConstraint>(
          PdControllerConstraint::Parameters{.derivative_gain = 10.0}, 0.0));
  problem.Finalize();
  const ContactNcp ncp(problem);
  try {
    FclibGlobalProblemOf(ncp, "", "");
    ADD_FAILURE() << "a soft law was exported";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("soft law: FCLIB has no such constraint"),
              std::string::npos)
        << error.what();
  }
  ContactProblem empty(0.01);
  empty.AddClique(Eigen::MatrixXd::Identity(1, 1));
  empty.SetFreeMotionVelocities(Eigen::VectorXd::Zero(1));
  empty.Finalize();
  EXPECT_THROW(FclibGlobalProblemOf(ContactNcp(empty), "", ""), std::invalid_argument);
}

// A file that cannot be written leaves nothing behind, not even its
// temporary, and the error names the file asked for.
TEST(FclibExport, AFailedWriteLeavesNoFile) {
  const fs::path directory = TemporaryPath("missing_directory");
  const fs::path path = directory / "problem.hdf5";
  const ContactProblem problem = MakeRandomContactProblem({});
  const ContactNcp ncp(problem);  // keeps a pointer to the problem
  try {
    WriteFclibProblem(FclibGlobalProblemOf(ncp, "", ""), path.string());
    ADD_FAILURE() << "wrote into a missing directory";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()).rfind(path.string() + ": ", 0), 0u)
        << error.what();
  }
  EXPECT_FALSE(fs::exists(directory));
}

// FCLIB's integers are 32-bit: a value beyond that range is refused with the
// dataset named, not wrapped round.
TEST(FclibExport, IntegersBeyond32BitsAreRefused) {
  const fs::path path = TemporaryPath("int32.hdf5");
  {
    Hdf5File file(path.string(), Hdf5File::Mode::kCreate);
    file.WriteInt32s("/fits", {-2147483648LL, 2147483647LL});
    EXPECT_EQ(file.ReadIntegers("/fits"),
              (std::vector<long long>{-2147483648LL, 2147483647LL}));
    try {
      file.WriteInt32s("/too_large", {1, 2147483648LL});
      ADD_FAILURE() << "wrote 2^31 as a 32-bit integer";
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what())
                    .find("/too_large: 2147483648 does not fit a 32-bit integer"),
                std::string::npos)
          << error.what();
    }
  }
  fs::remove(path);
}

}  // namespace
}  // namespace coulomb
