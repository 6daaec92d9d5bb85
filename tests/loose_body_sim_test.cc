// An MJCF loose body whose centre of mass lies off its frame's origin, or
// made of several bodies welded together, is stepped in closed form
// (MultibodyTree::FreeBodyState); the same body on Pinocchio's general path
// (CRBA, RNEA, point Jacobians from the joints': MultibodyTree::
// UseGeneralForm) is stepped beside it, tumbling onto the ground.

#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "coulomb/sim/time_stepper.h"
#include "model_text.h"

namespace coulomb {
namespace {

// A 1.5 kg box of 0.1 × 0.2 × 0.3 m whose centre (its COM, and the centre of
// its collision box) lies at kCom in the body frame.
const Eigen::Vector3d kCom(0.04, -0.07, 0.03);
constexpr double kMass = 1.5;
const Eigen::Vector3d kSize(0.1, 0.2, 0.3);

Eigen::Vector3d BoxInertiaDiagonal() {
  const Eigen::Vector3d s2 = kSize.cwiseAbs2();
  return kMass / 12.0 *
         Eigen::Vector3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y());
}

std::string Triple(const Eigen::Vector3d& x) {
  std::ostringstream text;
  text.precision(17);
  text << x.x() << " " << x.y() << " " << x.z();
  return text.str();
}

MultibodyTree OffsetBoxFromUrdf() {
  const Eigen::Vector3d inertia = BoxInertiaDiagonal();
  std::ostringstream urdf;
  urdf.precision(17);
  urdf << "<robot name=\"box\"><link name=\"box\"><inertial><origin xyz=\""
       << Triple(kCom) << "\"/><mass value=\"" << kMass << "\"/><inertia ixx=\""
       << inertia.x() << "\" ixy=\"0\" ixz=\"0\" iyy=\"" << inertia.y()
       << "\" iyz=\"0\" izz=\"" << inertia.z() << "\"/></inertial>"
       << "<collision><origin xyz=\"" << Triple(kCom) << "\"/><geometry><box size=\""
       << Triple(kSize) << "\"/></geometry></collision></link></robot>";
  MultibodyTree tree = testing::UrdfTreeFromText(urdf.str(), true);
  tree.UseGeneralForm();
  return tree;
}

MultibodyTree OffsetBoxFromMjcf() {
  return testing::MjcfTreeFromText(
      "<mujoco><worldbody><body name=\"box\"><freejoint/><geom type=\"box\" size=\"" +
      Triple(0.5 * kSize) + "\" pos=\"" + Triple(kCom) + "\" mass=\"" +
      std::to_string(kMass) + "\"/></body></worldbody></mujoco>");
}

// A mallet: a head box with a handle welded at a tilt, and a ball welded to
// the handle's far end, which strikes the ground first.
constexpr const char* kMallet =
    "<mujoco><worldbody><body name=\"head\"><freejoint/>"
    "<geom type=\"box\" size=\"0.06 0.04 0.04\" mass=\"1.0\"/>"
    "<body name=\"handle\" pos=\"0.0 0.0 -0.04\" quat=\"0.95 0.2 0.1 0.0\">"
    "<geom type=\"capsule\" size=\"0.015 0.12\" pos=\"0 0 -0.12\" mass=\"0.2\"/>"
    "<body name=\"ball\" pos=\"0 0 -0.26\">"
    "<geom type=\"sphere\" size=\"0.03\" mass=\"0.15\"/></body></body>"
    "</body></worldbody></mujoco>";

// The box thrown tumbling 0.4 m above the ground: it spins about all three
// axes (so its COM's centripetal acceleration and M's dependence on the
// orientation both act), lands on an edge and bounces and slides.
MultibodySystem ThrownBox(MultibodyTree box) {
  MultibodySystem system;
  system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), ContactMaterial{});
  Eigen::VectorXd q(7), v(6);
  q << 0.1, -0.2, 0.4, Eigen::Vector4d(0.2, -0.4, 0.1, 0.9).normalized();
  v << 0.6, -0.3, 0.5, 4.0, -6.0, 9.0;  // ṗ of the frame's origin [m/s], ω_B [rad/s]
  system.AddRobot("box", std::move(box), q, v, ContactMaterial{});
  return system;
}

// Steps the two side by side for 60 steps of 10 ms, SAP at ε_r = 1e-12:
// they must stay together to round-off, the body touching the ground on more
// than 10 steps and spinning faster than 5 rad/s at some point.
void ExpectTheSameTrajectory(MultibodyTree closed_form_tree, MultibodyTree general_tree) {
  ASSERT_NE(closed_form_tree.free_body_mass(), nullptr);
  ASSERT_EQ(general_tree.free_body_mass(), nullptr);
  MultibodySystem closed_form = ThrownBox(std::move(closed_form_tree));
  MultibodySystem general = ThrownBox(std::move(general_tree));
  TimeStepperParameters parameters;
  parameters.time_step = 0.01;
  parameters.solver.sap.rel_tolerance = 1e-12;  // both solves to round-off
  TimeStepper closed_form_stepper(parameters), general_stepper(parameters);
  int steps_in_contact = 0;
  double largest_spin = 0.0;
  for (int n = 0; n < 60; ++n) {
    const StepStatistics a = closed_form_stepper.Step(&closed_form);
    const StepStatistics b = general_stepper.Step(&general);
    ASSERT_TRUE(a.converged && b.converged) << "step " << n;
    ASSERT_EQ(a.num_contacts, b.num_contacts) << "step " << n;
    steps_in_contact += a.num_contacts > 0;
    const MultibodySystem::Tree &x = closed_form.tree(0), &y = general.tree(0);
    largest_spin = std::max(largest_spin, x.v.tail<3>().norm());
    // Quaternions as x y z w, both normalized: the same rotation, the same sign.
    ASSERT_LT((x.q - y.q).norm(), 1e-9) << "step " << n;
    ASSERT_LT((x.v - y.v).norm(), 1e-8 * (1.0 + y.v.norm())) << "step " << n;
  }
  EXPECT_GT(steps_in_contact, 10);
  EXPECT_GT(largest_spin, 5.0);
}

TEST(LooseBody, OffItsCentreOfMassItStepsAsPinocchiosGeneralPathDoes) {
  MultibodyTree mjcf = OffsetBoxFromMjcf();
  ASSERT_NE(mjcf.free_body_mass(), nullptr);
  EXPECT_TRUE(mjcf.free_body_mass()->com.isApprox(kCom, 1e-15));
  EXPECT_TRUE(mjcf.free_body_mass()->inertia.isApprox(
      Eigen::Matrix3d(BoxInertiaDiagonal().asDiagonal()), 1e-14));
  ExpectTheSameTrajectory(std::move(mjcf), OffsetBoxFromUrdf());
}

// The mallet's handle and ball are welded bodies of the free body: their
// geometries' poses and velocities (the contacts' reach) come from the
// welds.
TEST(LooseBody, MadeOfWeldedBodiesItStepsAsPinocchiosGeneralPathDoes) {
  MultibodyTree general = testing::MjcfTreeFromText(kMallet);
  general.UseGeneralForm();
  ExpectTheSameTrajectory(testing::MjcfTreeFromText(kMallet), std::move(general));
}

}  // namespace
}  // namespace coulomb
