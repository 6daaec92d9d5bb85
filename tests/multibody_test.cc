#include "coulomb/multibody/multibody_tree.h"

#include "coulomb/multibody/mjcf_mocap_bodies.h"
#include "coulomb/multibody/mjcf_root_cache.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <unistd.h>
#include "model_text.h"
#include "test_support.h"

namespace coulomb {
namespace {

Eigen::Matrix3d BoxInertia(double mass, const Eigen::Vector3d& size) {
  const Eigen::Vector3d s2 = size.cwiseAbs2();
  return mass / 12.0 *
         Eigen::Vector3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y()).asDiagonal();
}

Eigen::VectorXd RandomFreeConfiguration(unsigned seed) {
  std::srand(seed);
  Eigen::VectorXd q(7);
  q.head<3>() = Eigen::Vector3d::Random();
  q.tail<4>() = Eigen::Vector4d::Random().normalized();  // x, y, z, w
  return q;
}

TEST(MultibodyTree, FreeBodyMassMatrixIsMassAndInertiaInTheBodyFrame) {
  const Eigen::Matrix3d inertia = BoxInertia(2.0, {0.1, 0.2, 0.3});
  MultibodyTree body = MultibodyTree::FreeBody("box", 2.0, inertia);
  ASSERT_EQ(body.num_positions(), 7);
  ASSERT_EQ(body.num_velocities(), 6);
  body.SetState(RandomFreeConfiguration(1), Eigen::VectorXd::Zero(6));
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(6, 6);
  expected.topLeftCorner<3, 3>() = 2.0 * Eigen::Matrix3d::Identity();
  expected.bottomRightCorner<3, 3>() = inertia;
  EXPECT_TRUE(body.mass_matrix().isApprox(expected, 1e-12));
}

TEST(MultibodyTree, NonlinearEffectsAreWeightAndGyroscopicTorque) {
  const Eigen::Matrix3d inertia = BoxInertia(3.0, {0.1, 0.4, 0.2});
  MultibodyTree body = MultibodyTree::FreeBody("box", 3.0, inertia);
  const Eigen::Vector3d gravity(0.0, 0.0, -9.81);
  body.SetGravity(gravity);
  const Eigen::VectorXd q = RandomFreeConfiguration(2);
  Eigen::VectorXd v(6);
  v << 0.5, -0.1, 0.2, 0.3, -1.2,
      2.0;  // world velocity of the center, ω in the body frame
  body.SetState(q, v);
  const Eigen::Vector3d omega = v.tail<3>();
  // Newton–Euler: h = [−m g ; ω × I ω]. The world-frame linear equation of
  // the center of mass has no Coriolis term (our free joint, not Pinocchio's
  // body-twist free flyer).
  EXPECT_TRUE(body.nonlinear_effects().head<3>().isApprox(-3.0 * gravity, 1e-12));
  EXPECT_TRUE(
      body.nonlinear_effects().tail<3>().isApprox(omega.cross(inertia * omega), 1e-12));
}

// A free body's state lives in the tree object itself: a change of gravity
// must reach h even when SetState is then given the same state again, and a
// moved tree (a system's vector of trees growing) keeps its state.
TEST(MultibodyTree, FreeBodyStateFollowsGravityAndMoves) {
  const Eigen::Matrix3d inertia = BoxInertia(2.0, {0.3, 0.1, 0.2});
  MultibodyTree body = MultibodyTree::FreeBody("box", 2.0, inertia);
  const Eigen::VectorXd q = RandomFreeConfiguration(5);
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(6, -1.0, 1.5);
  body.SetGravity({0.0, 0.0, -9.81});
  body.SetState(q, v);
  const Eigen::Vector3d moon(0.0, 0.0, -1.62);
  body.SetGravity(moon);
  body.SetState(q, v);
  EXPECT_TRUE(body.nonlinear_effects().head<3>().isApprox(-2.0 * moon, 1e-12));
  const Eigen::Isometry3d pose = body.body_pose(0);
  std::vector<MultibodyTree> trees;
  trees.push_back(std::move(body));
  for (int k = 0; k < 8; ++k)  // reallocations move the first tree
    trees.push_back(MultibodyTree::FreeBody("other", 1.0, inertia));
  EXPECT_TRUE(trees[0].body_pose(0).isApprox(pose, 1e-15));
  EXPECT_TRUE(trees[0].nonlinear_effects().head<3>().isApprox(-2.0 * moon, 1e-12));
  EXPECT_NEAR(
      trees[0].KineticEnergy(),
      0.5 * (2.0 * v.head<3>().squaredNorm() + v.tail<3>().dot(inertia * v.tail<3>())),
      1e-12);
}

// A floating URDF link of these mass properties, its centre of mass at
// `com` in its frame, followed by `tail` (more links).
MultibodyTree FloatingUrdfLink(double mass, const Eigen::Matrix3d& inertia,
                               const Eigen::Vector3d& com, const char* tail = "") {
  std::ostringstream urdf;
  urdf << "<robot name=\"free\"><link name=\"box\"><inertial>"
       << "<origin xyz=\"" << com.x() << " " << com.y() << " " << com.z()
       << "\"/><mass value=\"" << mass << "\"/><inertia ixx=\"" << inertia(0, 0)
       << "\" ixy=\"" << inertia(0, 1) << "\" ixz=\"" << inertia(0, 2) << "\" iyy=\""
       << inertia(1, 1) << "\" iyz=\"" << inertia(1, 2) << "\" izz=\"" << inertia(2, 2)
       << "\"/></inertial></link>" << tail << "</robot>";
  return testing::UrdfTreeFromText(urdf.str(), true);
}

// The same body as an MJCF file's loose body (<inertial> with fullinertia).
MultibodyTree LooseMjcfBody(double mass, const Eigen::Matrix3d& inertia,
                            const Eigen::Vector3d& com) {
  std::ostringstream mjcf;
  mjcf.precision(17);
  mjcf << "<mujoco><worldbody><body name=\"box\" pos=\"0 0 1\"><freejoint/>"
       << "<inertial pos=\"" << com.x() << " " << com.y() << " " << com.z()
       << "\" mass=\"" << mass << "\" fullinertia=\"" << inertia(0, 0) << " "
       << inertia(1, 1) << " " << inertia(2, 2) << " " << inertia(0, 1) << " "
       << inertia(0, 2) << " " << inertia(1, 2) << "\"/>"
       << "<geom type=\"sphere\" size=\"0.1\" mass=\"0\"/></body></worldbody></mujoco>";
  return testing::MjcfTreeFromText(mjcf.str());
}

// `tree` stepped through Pinocchio's CRBA and RNEA: the reference for the
// free bodies' closed form.
MultibodyTree OnTheGeneralPath(MultibodyTree tree) {
  tree.UseGeneralForm();
  return tree;
}

// A closed-form free body's dynamics against Pinocchio's CRBA and RNEA on the
// same body (the general path), for random states: mass matrix, nonlinear
// effects, each body's pose, point Jacobian and velocities, the joints'
// motion subspaces, energies and q ⊕ dq.
void ExpectTheGeneralPathsDynamics(MultibodyTree& closed_form, MultibodyTree& general,
                                   double mass) {
  ASSERT_NE(closed_form.free_body_mass(), nullptr);
  ASSERT_EQ(general.free_body_mass(), nullptr);
  ASSERT_EQ(general.num_velocities(), 6);
  const Eigen::Vector3d gravity(0.3, -0.2, -9.81);
  general.SetGravity(gravity);
  closed_form.SetGravity(gravity);
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const Eigen::VectorXd q = RandomFreeConfiguration(seed);
    const Eigen::VectorXd v = 3.0 * Eigen::VectorXd::Random(6);
    general.SetState(q, v);
    closed_form.SetState(q, v);
    EXPECT_LT((closed_form.mass_matrix() - general.mass_matrix()).norm(), 1e-12);
    EXPECT_LT((closed_form.nonlinear_effects() - general.nonlinear_effects()).norm(),
              1e-12 * general.nonlinear_effects().norm());
    ASSERT_EQ(closed_form.num_bodies(), general.num_bodies());
    for (int b = 0; b < general.num_bodies(); ++b) {
      EXPECT_TRUE(closed_form.body_pose(b).isApprox(general.body_pose(b), 1e-12))
          << "body " << b;
      EXPECT_TRUE(closed_form.BodyPoseAt(q, b).isApprox(general.BodyPoseAt(q, b), 1e-12))
          << "body " << b;
      const Eigen::Vector3d p_W(0.1, -0.4, 0.2);
      EXPECT_TRUE(closed_form.PointJacobian(b, p_W).isApprox(
          general.PointJacobian(b, p_W), 1e-12));
      EXPECT_LT(
          (closed_form.BodyLinearVelocity(b) - general.BodyLinearVelocity(b)).norm(),
          1e-12 * v.norm())
          << "body " << b;
      EXPECT_LT(
          (closed_form.BodyAngularVelocity(b) - general.BodyAngularVelocity(b)).norm(),
          1e-12 * v.norm());
      EXPECT_NEAR(closed_form.BodyAngularSpeed(b), general.BodyAngularVelocity(b).norm(),
                  1e-12 * v.norm());
      EXPECT_NEAR(general.BodyAngularSpeed(b), general.BodyAngularVelocity(b).norm(),
                  1e-12 * v.norm());
    }
    Eigen::Matrix<double, 6, Eigen::Dynamic> closed_form_motion, general_motion;
    closed_form.CalcMotionSubspaces(&closed_form_motion);
    general.CalcMotionSubspaces(&general_motion);
    EXPECT_TRUE(closed_form_motion.isApprox(general_motion, 1e-12));
    EXPECT_NEAR(closed_form.KineticEnergy(), general.KineticEnergy(),
                1e-12 * general.KineticEnergy());
    EXPECT_NEAR(closed_form.GravityPotentialEnergy(), general.GravityPotentialEnergy(),
                1e-12 * mass * gravity.norm() * (1.0 + q.head<3>().norm()));
    // q ⊕ dq, for turns from below the Taylor threshold to past π.
    for (const double scale : {1e-9, 1e-3, 0.5, 4.0}) {
      const Eigen::VectorXd dq = scale * v;
      EXPECT_LT((closed_form.Integrate(q, dq) - general.Integrate(q, dq)).norm(), 1e-12)
          << "dq = " << dq.transpose();
      Eigen::VectorXd in_place = q;  // the time stepper's path
      closed_form.IntegrateFreeBody(in_place, dq);
      EXPECT_EQ(in_place, closed_form.Integrate(q, dq));
    }
    // In place and fixed size is for a tree made by FreeBody only.
    Eigen::VectorXd q_general = q;
    EXPECT_THROW(general.IntegrateFreeBody(q_general, v), std::invalid_argument);
  }
}

TEST(MultibodyTree, FreeBodyDynamicsMatchTheGeneralPathOfAFloatingUrdfLink) {
  Eigen::Matrix3d inertia;
  inertia << 0.05, 0.01, -0.004, 0.01, 0.04, 0.002, -0.004, 0.002, 0.03;
  const double mass = 1.7;
  MultibodyTree general =
      OnTheGeneralPath(FloatingUrdfLink(mass, inertia, Eigen::Vector3d::Zero()));
  MultibodyTree closed_form = MultibodyTree::FreeBody("box", mass, inertia);
  ExpectTheGeneralPathsDynamics(closed_form, general, mass);
}

// With the centre of mass off the body frame's origin (an MJCF loose body
// with an <inertial pos>), M depends on the orientation and h carries the
// COM's centripetal acceleration: the closed form still matches.
TEST(MultibodyTree, LooseBodyDynamicsWithItsCentreOfMassOffTheOriginMatchTheGeneralPath) {
  Eigen::Matrix3d inertia;
  inertia << 0.05, 0.01, -0.004, 0.01, 0.04, 0.002, -0.004, 0.002, 0.03;
  const double mass = 1.7;
  const Eigen::Vector3d com(0.13, -0.21, 0.08);
  MultibodyTree general = OnTheGeneralPath(FloatingUrdfLink(mass, inertia, com));
  MultibodyTree closed_form = LooseMjcfBody(mass, inertia, com);
  ASSERT_NE(closed_form.free_body_mass(), nullptr);
  EXPECT_TRUE(closed_form.free_body_mass()->com.isApprox(com, 1e-15));
  ExpectTheGeneralPathsDynamics(closed_form, general, mass);
  // A floating URDF of that one link takes the closed form too, and so does
  // one with a massless link welded to it.
  for (const char* tail : {"", testing::kTipLink}) {
    MultibodyTree urdf_link = FloatingUrdfLink(mass, inertia, com, tail);
    ASSERT_NE(urdf_link.free_body_mass(), nullptr);
    EXPECT_TRUE(urdf_link.free_body_mass()->com.isApprox(com, 1e-15));
    MultibodyTree urdf_general =
        OnTheGeneralPath(FloatingUrdfLink(mass, inertia, com, tail));
    ExpectTheGeneralPathsDynamics(urdf_link, urdf_general, mass);
  }
  // So does one with a 0.5 kg link welded to it at a turn and an offset: the
  // composite's mass, and the same dynamics as the general path's.
  const char* handle =
      "<link name=\"handle\"><inertial><origin xyz=\"0.05 0 0.1\"/><mass value=\"0.5\"/>"
      "<inertia ixx=\"0.002\" ixy=\"0\" ixz=\"0\" iyy=\"0.003\" iyz=\"0\" "
      "izz=\"0.001\"/></inertial></link><joint name=\"handle_weld\" type=\"fixed\">"
      "<parent link=\"box\"/><child link=\"handle\"/>"
      "<origin xyz=\"0.1 -0.2 0.05\" rpy=\"0.3 -0.2 0.7\"/></joint>";
  MultibodyTree with_handle = FloatingUrdfLink(mass, inertia, com, handle);
  ASSERT_NE(with_handle.free_body_mass(), nullptr);
  EXPECT_NEAR(with_handle.free_body_mass()->mass, mass + 0.5, 1e-14);
  MultibodyTree with_handle_general =
      OnTheGeneralPath(FloatingUrdfLink(mass, inertia, com, handle));
  ExpectTheGeneralPathsDynamics(with_handle, with_handle_general, mass + 0.5);
}

// An MJCF object of several bodies welded together (child bodies without
// joints, as robosuite's objects are built) is one rigid body: a base box
// (1.2 kg), a handle box (0.4 kg) welded at a turn and an offset, and a knob
// sphere (0.1 kg) welded to the handle.
constexpr const char* kWeldedObject =
    "<mujoco><worldbody><body name=\"base\" pos=\"0 0 1\"><freejoint/>"
    "<geom type=\"box\" size=\"0.1 0.05 0.02\" mass=\"1.2\"/>"
    "<body name=\"handle\" pos=\"0.15 0.02 -0.03\" quat=\"0.9 0.1 0.3 -0.2\">"
    "<geom type=\"box\" size=\"0.02 0.03 0.08\" pos=\"0.01 0 0.02\" mass=\"0.4\"/>"
    "<body name=\"knob\" pos=\"0 0.05 0.1\" quat=\"0.8 -0.2 0.1 0.5\">"
    "<geom type=\"sphere\" size=\"0.03\" mass=\"0.1\"/></body></body>"
    "</body></worldbody></mujoco>";

Eigen::Isometry3d Placement(const Eigen::Vector3d& position,
                            const Eigen::Quaterniond& wxyz) {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() = wxyz.normalized().toRotationMatrix();
  pose.translation() = position;
  return pose;
}

// The composite's mass, centre of mass and inertia about it, by hand from
// the file's geoms (boxes m (b² + c²)/3 with half-sizes, a sphere 2 m r²/5;
// Steiner's theorem), and each body's pose from the file's placements.
TEST(MultibodyTree, AnMjcfObjectOfWeldedBodiesIsOneFreeBodyInClosedForm) {
  MultibodyTree closed_form = testing::MjcfTreeFromText(kWeldedObject);
  ASSERT_NE(closed_form.free_body_mass(), nullptr);
  ASSERT_EQ(closed_form.num_bodies(), 3);
  const Eigen::Isometry3d X_0h =
      Placement({0.15, 0.02, -0.03}, Eigen::Quaterniond(0.9, 0.1, 0.3, -0.2));
  const Eigen::Isometry3d X_hk =
      Placement({0.0, 0.05, 0.1}, Eigen::Quaterniond(0.8, -0.2, 0.1, 0.5));
  const auto box = [](double m, const Eigen::Vector3d& half) {
    const Eigen::Vector3d s = half.cwiseAbs2();
    return Eigen::Matrix3d(
        (m / 3.0 * Eigen::Vector3d(s.y() + s.z(), s.x() + s.z(), s.x() + s.y()))
            .asDiagonal());
  };
  struct Part {
    double mass;
    Eigen::Vector3d centre;     // in the base's frame
    Eigen::Matrix3d inertia_0;  // about its centre, in the base's frame
  };
  const Eigen::Matrix3d R_0h = X_0h.linear(), R_0k = (X_0h * X_hk).linear();
  const std::vector<Part> parts = {
      {1.2, Eigen::Vector3d::Zero(), box(1.2, {0.1, 0.05, 0.02})},
      {0.4, X_0h * Eigen::Vector3d(0.01, 0.0, 0.02),
       R_0h * box(0.4, {0.02, 0.03, 0.08}) * R_0h.transpose()},
      {0.1, (X_0h * X_hk).translation(),
       R_0k * (0.4 * 0.1 * 0.03 * 0.03 * Eigen::Matrix3d::Identity()) *
           R_0k.transpose()}};
  double mass = 0.0;
  Eigen::Vector3d com = Eigen::Vector3d::Zero();
  for (const Part& part : parts) {
    mass += part.mass;
    com += part.mass * part.centre;
  }
  com /= mass;
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
  for (const Part& part : parts) {
    const Eigen::Vector3d d = part.centre - com;
    inertia +=
        part.inertia_0 +
        part.mass * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
  }
  const MultibodyTree::FreeBodyMass& body = *closed_form.free_body_mass();
  EXPECT_NEAR(body.mass, mass, 1e-14);
  EXPECT_LT((body.com - com).norm(), 1e-14);
  EXPECT_LT((body.inertia - inertia).norm(), 1e-14);
  // Each body where the file welds it.
  const Eigen::VectorXd q = RandomFreeConfiguration(4);
  closed_form.SetState(q, Eigen::VectorXd::Zero(6));
  const Eigen::Isometry3d X_W0 = closed_form.body_pose(0);
  EXPECT_TRUE(
      closed_form.body_pose(closed_form.FindBody("handle")).isApprox(X_W0 * X_0h, 1e-12));
  EXPECT_TRUE(closed_form.body_pose(closed_form.FindBody("knob"))
                  .isApprox(X_W0 * X_0h * X_hk, 1e-12));
  // The same dynamics and kinematics as Pinocchio's general path.
  MultibodyTree general = OnTheGeneralPath(testing::MjcfTreeFromText(kWeldedObject));
  ASSERT_EQ(general.free_body_mass(), nullptr);
  ExpectTheGeneralPathsDynamics(closed_form, general, mass);
}

// The knob's velocity is the derivative of its position along the motion:
// central differences of its origin over q ⊕ ±h v.
TEST(MultibodyTree, AWeldedBodysVelocityIsItsOriginsRateOfChange) {
  MultibodyTree tree = testing::MjcfTreeFromText(kWeldedObject);
  const int knob = tree.FindBody("knob");
  const Eigen::VectorXd q = RandomFreeConfiguration(5);
  Eigen::VectorXd v(6);
  v << 0.3, -1.1, 0.7, 4.0, -2.5, 3.0;
  tree.SetState(q, v);
  const Eigen::Vector3d velocity = tree.BodyLinearVelocity(knob);
  const double h = 1e-6;
  const Eigen::Vector3d plus =
      tree.BodyPoseAt(tree.Integrate(q, h * v), knob).translation();
  const Eigen::Vector3d minus =
      tree.BodyPoseAt(tree.Integrate(q, -h * v), knob).translation();
  EXPECT_LT(((plus - minus) / (2 * h) - velocity).norm(), 1e-8 * velocity.norm());
  EXPECT_GT((velocity - tree.BodyLinearVelocity(0)).norm(), 0.1);  // it turns about 0
}

TEST(MultibodyTree, PointJacobianMatchesFiniteDifferencesOfThePointPosition) {
  MultibodyTree body =
      MultibodyTree::FreeBody("box", 1.0, BoxInertia(1.0, {0.2, 0.2, 0.2}));
  const Eigen::VectorXd q = RandomFreeConfiguration(3);
  body.SetState(q, Eigen::VectorXd::Zero(6));
  const Eigen::Vector3d p_B(0.1, -0.05, 0.2);  // a point fixed on the body
  const Eigen::Vector3d p_W = body.body_pose(0) * p_B;
  const Eigen::MatrixXd jacobian = body.PointJacobian(0, p_W);
  const double h = 1e-7;
  for (int k = 0; k < 6; ++k) {
    Eigen::VectorXd dq = Eigen::VectorXd::Zero(6);
    dq[k] = h;
    body.SetState(body.Integrate(q, dq), Eigen::VectorXd::Zero(6));
    const Eigen::Vector3d plus = body.body_pose(0) * p_B;
    body.SetState(body.Integrate(q, -dq), Eigen::VectorXd::Zero(6));
    const Eigen::Vector3d minus = body.body_pose(0) * p_B;
    // Central differences: O(h²) ≈ 1e-14 truncation, round-off ~1e-9.
    EXPECT_LT(((plus - minus) / (2 * h) - jacobian.col(k)).norm(), 1e-7) << "dof " << k;
  }
}

TEST(MultibodyTree, IntegrationKeepsTheQuaternionUnit) {
  MultibodyTree body = MultibodyTree::FreeBody("ball", 1.0, Eigen::Matrix3d::Identity());
  Eigen::VectorXd q = body.NeutralConfiguration();
  Eigen::VectorXd dq(6);
  dq << 0.1, 0.2, 0.3, 1.0, -2.0, 0.5;
  for (int step = 0; step < 100; ++step) q = body.Integrate(q, dq);
  EXPECT_NEAR(q.tail<4>().norm(), 1.0, 1e-12);
}

// An MJCF file's loose body is stepped in FreeBody's closed form, its mass
// properties those of its geom (a 2 kg box, I = m/12 (b² + c²) ...), its
// centre of mass where the geom's centre is: at the free joint, M = diag(m I,
// I_B); 1 cm along x from it, M at the identity orientation is
// [m I, −m [c]×; m [c]×, I_B − m [c]×²].
TEST(MultibodyTree, AnMjcfLooseBodyTakesTheFreeBodyFormWhereverItsCentreOfMassLies) {
  const Eigen::Vector3d inertia =
      2.0 / 12.0 *
      Eigen::Vector3d(0.4 * 0.4 + 0.6 * 0.6, 0.2 * 0.2 + 0.6 * 0.6,
                      0.2 * 0.2 + 0.4 * 0.4);
  for (const double offset : {0.0, 0.01}) {
    std::ostringstream mjcf;
    mjcf << "<mujoco><worldbody><body name=\"rock\" pos=\"0 0 1\"><freejoint/>"
         << "<geom type=\"box\" size=\"0.1 0.2 0.3\" mass=\"2\" pos=\"" << offset
         << " 0 0\"/></body></worldbody></mujoco>";
    MultibodyTree tree = testing::MjcfTreeFromText(mjcf.str());
    ASSERT_NE(tree.free_body_mass(), nullptr);
    EXPECT_DOUBLE_EQ(tree.free_body_mass()->mass, 2.0);
    EXPECT_TRUE(tree.free_body_mass()->inertia.isApprox(
        Eigen::Matrix3d(inertia.asDiagonal()), 1e-12));
    EXPECT_TRUE(
        tree.free_body_mass()->com.isApprox(Eigen::Vector3d(offset, 0, 0), 1e-15));
    tree.SetState(tree.NeutralConfiguration(), Eigen::VectorXd::Zero(6));
    // [c]× for c = (d, 0, 0): rows (0 0 0; 0 0 −d; 0 d 0).
    Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(6, 6);
    expected.diagonal() << 2.0, 2.0, 2.0, inertia;
    expected(1, 5) = expected(5, 1) = 2.0 * offset;
    expected(2, 4) = expected(4, 2) = -2.0 * offset;
    expected(4, 4) += 2.0 * offset * offset;
    expected(5, 5) += 2.0 * offset * offset;
    EXPECT_LT((tree.mass_matrix() - expected).norm(), 1e-14) << tree.mass_matrix();
  }
}

TEST(MultibodyTree, PendulumFromUrdfHasTheTextbookInertia) {
  // A rod-free pendulum: a link with mass m = 2 at 0.5 m below a revolute
  // joint about y, own inertia I_yy = 0.1: M = I_yy + m l² = 0.6.
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("pendulum_" + std::to_string(getpid()) + ".urdf");
  testing::WritePendulumUrdf(path.string());
  MultibodyTree pendulum = MultibodyTree::FromUrdf(path.string(), false);
  ASSERT_EQ(pendulum.num_velocities(), 1);
  pendulum.SetGravity({0, 0, -9.81});
  pendulum.SetState(Eigen::VectorXd::Constant(1, 0.3), Eigen::VectorXd::Zero(1));
  EXPECT_NEAR(pendulum.mass_matrix()(0, 0), 0.6, 1e-12);
  // Gravity torque about y of a mass at (l sin θ... ): h = m g l sin θ.
  EXPECT_NEAR(pendulum.nonlinear_effects()[0], 2.0 * 9.81 * 0.5 * std::sin(0.3), 1e-12);
  // The collision sphere rides with the bob: at θ about y its center is
  // R_y(θ) (0, 0, −0.5) = (−0.5 sin θ, 0, −0.5 cos θ).
  ASSERT_EQ(pendulum.collision_geometries().size(), 1u);
  const BodyGeometry& ball = pendulum.collision_geometries()[0];
  ASSERT_TRUE(std::holds_alternative<Sphere>(ball.shape));
  EXPECT_DOUBLE_EQ(std::get<Sphere>(ball.shape).radius, 0.05);
  const Eigen::Vector3d center =
      (pendulum.body_pose(ball.body) * ball.X_BG).translation();
  EXPECT_TRUE(center.isApprox(
      Eigen::Vector3d(-0.5 * std::sin(0.3), 0, -0.5 * std::cos(0.3)), 1e-12))
      << center.transpose();
  std::filesystem::remove(path);
}

// A fixed-base chain revolute (z) – prismatic (x) – revolute (y) whose links
// have off-axis centres of mass and full inertia tensors (about the COM,
// axes of the link frame).
struct ChainLink {
  const char* name;
  double mass;
  Eigen::Vector3d com;
  Eigen::Matrix3d inertia;
};

std::vector<ChainLink> ChainLinks() {
  Eigen::Matrix3d a, b, c;
  a << 0.05, 0.01, 0.0, 0.01, 0.04, 0.002, 0.0, 0.002, 0.03;
  b << 0.02, -0.003, 0.001, -0.003, 0.03, 0.0, 0.001, 0.0, 0.025;
  c << 0.01, 0.0, 0.002, 0.0, 0.012, -0.001, 0.002, -0.001, 0.008;
  return {{"l1", 1.5, {0.1, 0.02, 0.3}, a},
          {"l2", 0.8, {0.2, -0.05, 0.0}, b},
          {"l3", 0.5, {0.0, 0.03, -0.25}, c}};
}

std::string ChainUrdf() {
  std::ostringstream urdf;
  urdf << "<robot name=\"chain\"><link name=\"base\"/>\n";
  for (const ChainLink& link : ChainLinks()) {
    const Eigen::Matrix3d& i = link.inertia;
    urdf << "<link name=\"" << link.name << "\"><inertial><origin xyz=\"" << link.com.x()
         << " " << link.com.y() << " " << link.com.z() << "\"/><mass value=\""
         << link.mass << "\"/><inertia ixx=\"" << i(0, 0) << "\" ixy=\"" << i(0, 1)
         << "\" ixz=\"" << i(0, 2) << "\" iyy=\"" << i(1, 1) << "\" iyz=\"" << i(1, 2)
         << "\" izz=\"" << i(2, 2) << "\"/></inertial></link>\n";
  }
  urdf << R"(<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="prismatic"><parent link="l1"/><child link="l2"/>
    <origin xyz="0.1 0 0.4" rpy="0.3 0 0"/><axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.3 0 0" rpy="0 0 0.5"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>)";
  return urdf.str();
}

MultibodyTree LoadChain(bool floating_base = false) {
  return testing::UrdfTreeFromText(ChainUrdf(), floating_base);
}

// Kinetic energy Σ_b ½ m_b |ċ_b|² + ½ ω_bᵀ R I_b Rᵀ ω_b with the COM velocity
// and angular velocity of every link from central differences of its pose
// along q ⊕ ±h v: independent of the mass matrix.
double KineticEnergyFromPoses(MultibodyTree* chain, const Eigen::VectorXd& q,
                              const Eigen::VectorXd& v) {
  const double h = 1e-6;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(v.size());
  double energy = 0.0;
  for (const ChainLink& link : ChainLinks()) {
    const int body = chain->FindBody(link.name);
    chain->SetState(chain->Integrate(q, h * v), zero);
    const Eigen::Isometry3d plus = chain->body_pose(body);
    chain->SetState(chain->Integrate(q, -h * v), zero);
    const Eigen::Isometry3d minus = chain->body_pose(body);
    chain->SetState(q, zero);
    const Eigen::Matrix3d rotation = chain->body_pose(body).linear();
    const Eigen::Vector3d com_velocity = (plus * link.com - minus * link.com) / (2 * h);
    const Eigen::AngleAxisd turn(plus.linear() * minus.linear().transpose());
    const Eigen::Vector3d omega = turn.angle() * turn.axis() / (2 * h);
    energy += 0.5 * link.mass * com_velocity.squaredNorm() +
              0.5 * omega.dot(rotation * link.inertia * rotation.transpose() * omega);
  }
  return energy;
}

TEST(MultibodyTree, UrdfChainGravityEnergyIsEachLinksWeightAtItsCentreOfMass) {
  // −Σ m gᵀ c over the links, each centre c = X_WB c_B from the link's own
  // pose, at a tilted gravity so that every component of c counts.
  MultibodyTree chain = LoadChain();
  const Eigen::Vector3d gravity(1.3, -2.1, -9.4);
  chain.SetGravity(gravity);
  Eigen::VectorXd q(3);
  q << 0.4, 0.25, -0.7;
  chain.SetState(q, Eigen::VectorXd::Zero(3));
  double expected = 0.0;
  for (const ChainLink& link : ChainLinks())
    expected -=
        link.mass * gravity.dot(chain.body_pose(chain.FindBody(link.name)) * link.com);
  EXPECT_NEAR(chain.GravityPotentialEnergy(), expected, 1e-12);
}

TEST(MultibodyTree, UrdfChainMassMatrixMatchesTheKineticEnergyOfItsLinks) {
  MultibodyTree chain = LoadChain();
  ASSERT_EQ(chain.num_velocities(), 3);
  Eigen::VectorXd q(3);
  q << 0.4, 0.25, -0.7;
  chain.SetState(q, Eigen::VectorXd::Zero(3));
  const Eigen::MatrixXd mass_matrix = chain.mass_matrix();
  // Polarization: M_ij = T(e_i + e_j) − T(e_i) − T(e_j), T = ½ vᵀ M v.
  const auto energy = [&](const Eigen::VectorXd& v) {
    return KineticEnergyFromPoses(&chain, q, v);
  };
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const Eigen::VectorXd ei = Eigen::VectorXd::Unit(3, i),
                            ej = Eigen::VectorXd::Unit(3, j);
      const double expected =
          i == j ? 2.0 * energy(ei) : energy(ei + ej) - energy(ei) - energy(ej);
      EXPECT_NEAR(mass_matrix(i, j), expected, 1e-7) << "M(" << i << ", " << j << ")";
    }
  }
}

// Lagrange's equations at zero acceleration: with q̇ = v (revolute and
// prismatic joints), h(q, v) = Ṁ v − ∂/∂q (½ vᵀ M v) + ∂V/∂q, each term
// from central differences of the mass matrix and of the gravity energy
// (both checked against the links' own poses above), at a tilted gravity.
TEST(MultibodyTree, UrdfChainNonlinearEffectsAreLagrangesEquations) {
  MultibodyTree chain = LoadChain();
  chain.SetGravity(Eigen::Vector3d(1.3, -2.1, -9.4));
  Eigen::VectorXd q(3), v(3);
  q << 0.4, 0.25, -0.7;
  v << 1.7, -0.9, 2.3;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(3);
  const auto mass_matrix = [&](const Eigen::VectorXd& at) -> Eigen::MatrixXd {
    chain.SetState(at, zero);
    return chain.mass_matrix();
  };
  const auto gravity_energy = [&](const Eigen::VectorXd& at) {
    chain.SetState(at, zero);
    return chain.GravityPotentialEnergy();
  };
  const double h = 1e-6;
  Eigen::VectorXd expected =
      (mass_matrix(q + h * v) - mass_matrix(q - h * v)) / (2 * h) * v;
  for (int k = 0; k < 3; ++k) {
    const Eigen::VectorXd dq = h * Eigen::VectorXd::Unit(3, k);
    const double kinetic_plus = 0.5 * v.dot(mass_matrix(q + dq) * v);
    const double kinetic_minus = 0.5 * v.dot(mass_matrix(q - dq) * v);
    expected[k] += -(kinetic_plus - kinetic_minus) / (2 * h) +
                   (gravity_energy(q + dq) - gravity_energy(q - dq)) / (2 * h);
  }
  chain.SetState(q, v);
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(chain.nonlinear_effects()[k], expected[k], 1e-6) << "h[" << k << "]";
}

TEST(MultibodyTree, UrdfChainPointJacobianMatchesFiniteDifferences) {
  MultibodyTree chain = LoadChain();
  Eigen::VectorXd q(3);
  q << -0.3, 0.1, 1.1;
  const int tip = chain.FindBody("l3");
  const Eigen::Vector3d p_B(0.05, -0.1, -0.4);  // a point fixed on the last link
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(3);
  chain.SetState(q, zero);
  const Eigen::MatrixXd jacobian = chain.PointJacobian(tip, chain.body_pose(tip) * p_B);
  const double h = 1e-7;
  for (int k = 0; k < 3; ++k) {
    const Eigen::VectorXd dq = h * Eigen::VectorXd::Unit(3, k);
    chain.SetState(chain.Integrate(q, dq), zero);
    const Eigen::Vector3d plus = chain.body_pose(tip) * p_B;
    chain.SetState(chain.Integrate(q, -dq), zero);
    const Eigen::Vector3d minus = chain.body_pose(tip) * p_B;
    EXPECT_LT(((plus - minus) / (2 * h) - jacobian.col(k)).norm(), 1e-7) << "dof " << k;
  }
}

TEST(MultibodyTree, BodyVelocitiesAreMotionSubspacesSummedAlongTheDofChain) {
  // The floating chain: free base (translation 3, rotation 3) then 3 joints,
  // one dof tree 0 ← 1 ← … ← 8.
  MultibodyTree chain = LoadChain(/*floating_base=*/true);
  const int n = chain.num_velocities();
  ASSERT_EQ(n, 9);
  const std::vector<int> parent = chain.VelocityParents();
  for (int k = 0; k < n; ++k) EXPECT_EQ(parent[k], k - 1);
  const Eigen::VectorXd q = chain.Integrate(chain.NeutralConfiguration(),
                                            Eigen::VectorXd::LinSpaced(n, -0.6, 0.9));
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(n, 1.3, -0.8);
  chain.SetState(q, v);
  Eigen::Matrix<double, 6, Eigen::Dynamic> motion;
  chain.CalcMotionSubspaces(&motion);
  for (const ChainLink& link : ChainLinks()) {
    const int body = chain.FindBody(link.name);
    Eigen::Matrix<double, 6, 1> twist = Eigen::Matrix<double, 6, 1>::Zero();
    std::vector<bool> in_chain(n, false);
    for (int k = chain.BodyVelocityIndex(body); k >= 0; k = parent[k]) {
      twist += motion.col(k) * v(k);
      in_chain[k] = true;
    }
    // Against the forward kinematics' velocities: ω, and v_O + ω × p at the
    // body origin p.
    const Eigen::Vector3d omega = twist.tail<3>();
    const Eigen::Vector3d p = chain.body_pose(body).translation();
    EXPECT_LT((omega - chain.BodyAngularVelocity(body)).norm(), 1e-12) << link.name;
    EXPECT_LT((twist.head<3>() + omega.cross(p) - chain.BodyLinearVelocity(body)).norm(),
              1e-12)
        << link.name;
    // A point of the body moves with the chain's dofs only.
    const Eigen::MatrixXd jacobian =
        chain.PointJacobian(body, p + Eigen::Vector3d(0.1, 0.2, 0.3));
    for (int k = 0; k < n; ++k) {
      if (!in_chain[k]) {
        EXPECT_EQ(jacobian.col(k).norm(), 0.0) << link.name << " dof " << k;
      }
    }
  }
}

TEST(MultibodyTree, RejectsMissingUrdfAndBadMass) {
  EXPECT_THROW(MultibodyTree::FromUrdf("/nonexistent/robot.urdf", true),
               std::runtime_error);
  EXPECT_THROW(MultibodyTree::FreeBody("b", -1.0, Eigen::Matrix3d::Identity()),
               std::invalid_argument);
  EXPECT_THROW(MultibodyTree::FreeBody("b", 1.0, -Eigen::Matrix3d::Identity()),
               std::invalid_argument);
}

// A URDF link's mesh becomes the convex hull of the file's vertices times
// the mesh's scale: every corner of a scaled cube, and nothing else.
TEST(MultibodyTree, AUrdfMeshIsTheHullOfItsScaledVertices) {
  const std::string stem =
      (std::filesystem::temp_directory_path() / ("mesh_link_" + std::to_string(getpid())))
          .string();
  const Eigen::Vector3d scale(0.2, 0.4, 0.6);
  {
    std::ofstream obj(stem + ".obj");
    for (int corner = 0; corner < 8; ++corner) {
      obj << "v " << (corner & 1 ? 0.5 : -0.5) << " " << (corner & 2 ? 0.5 : -0.5) << " "
          << (corner & 4 ? 0.5 : -0.5) << "\n";
    }
    // The cube's faces, two triangles each (1-based corners).
    for (const char* face : {"1 3 4", "1 4 2", "5 6 8", "5 8 7", "1 2 6", "1 6 5",
                             "3 7 8", "3 8 4", "1 5 7", "1 7 3", "2 4 8", "2 8 6"}) {
      obj << "f " << face << "\n";
    }
    std::ofstream urdf(stem + ".urdf");
    urdf << "<robot name=\"r\"><link name=\"part\"><inertial><mass value=\"1\"/>"
         << "<inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/>"
         << "</inertial><collision><geometry><mesh filename=\"" << stem
         << ".obj\" scale=\"" << scale.transpose()
         << "\"/></geometry></collision></link></robot>";
  }
  const MultibodyTree tree = MultibodyTree::FromUrdf(stem + ".urdf", true);
  std::filesystem::remove(stem + ".obj");
  std::filesystem::remove(stem + ".urdf");
  ASSERT_EQ(tree.collision_geometries().size(), 1u);
  const auto* mesh = std::get_if<ConvexMesh>(&tree.collision_geometries()[0].shape);
  ASSERT_NE(mesh, nullptr);
  ASSERT_EQ(mesh->hull->vertices.size(), 8u);
  for (const Eigen::Vector3d& vertex : mesh->hull->vertices) {
    EXPECT_LT((vertex.cwiseAbs() - 0.5 * scale).norm(), 1e-12) << vertex.transpose();
  }
}

}  // namespace
}  // namespace coulomb

namespace coulomb {
namespace {

TEST(MultibodyTree, AdjacencyIsParentAndChildOnly) {
  // base —hinge1— upper —hinge2— lower: base/upper and upper/lower are
  // adjacent, base/lower is not.
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("chain_" + std::to_string(getpid()) + ".urdf");
  const char* inertial =
      R"(<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>)";
  std::ofstream(path) << "<robot name=\"chain\"><link name=\"base\">" << inertial
                      << "</link><link name=\"upper\">" << inertial
                      << "</link><link name=\"lower\">" << inertial << R"(</link>
  <joint name="hinge1" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
  <joint name="hinge2" type="revolute"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 -0.5"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
</robot>)";
  const MultibodyTree chain =
      MultibodyTree::FromUrdf(path.string(), /*floating_base=*/true);
  const int base = chain.FindBody("base"), upper = chain.FindBody("upper"),
            lower = chain.FindBody("lower");
  ASSERT_GE(base, 0);
  ASSERT_GE(upper, 0);
  ASSERT_GE(lower, 0);
  EXPECT_TRUE(chain.AreAdjacent(base, upper));
  EXPECT_TRUE(chain.AreAdjacent(lower, upper));
  EXPECT_FALSE(chain.AreAdjacent(base, lower));
  std::filesystem::remove(path);
}

// The file with one mocap body at `position` (three numbers).
void WriteMocapFile(const std::filesystem::path& path, const std::string& position) {
  std::ofstream(path) << "<mujoco><worldbody><body name=\"m\" mocap=\"true\" pos=\""
                      << position << "\"/></worldbody></mujoco>";
}

double MocapX(const std::filesystem::path& path) {
  return ReadMjcfMocapBodies(path.string()).at(0).X_WB.translation().x();
}

// While a cache lives, a file whose time and size did not change is not read
// again (rewritten to the same size, its time set back: the old reading),
// and one whose size changed is (its time set back too); with no cache, or
// in the next one, the file is read as it is whatever its time says.
TEST(MjcfRootCache, ReadsAFileOnceWhileItLivesUnlessItChanged) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("mocap_cache_" + std::to_string(getpid()) + ".xml");
  const auto rewrite = [&](const std::string& position,
                           std::filesystem::file_time_type time) {
    WriteMocapFile(path, position);
    std::filesystem::last_write_time(path, time);
  };
  WriteMocapFile(path, "1 2 3");
  const auto written = std::filesystem::last_write_time(path);
  {
    const MjcfRootCache cache;
    EXPECT_EQ(MocapX(path), 1.0);
    rewrite("4 5 6", written);
    EXPECT_EQ(MocapX(path), 1.0);
  }
  EXPECT_EQ(MocapX(path), 4.0);
  {
    const MjcfRootCache cache;
    EXPECT_EQ(MocapX(path), 4.0);
    rewrite("17 8 9", written);
    EXPECT_EQ(MocapX(path), 17.0);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace coulomb
