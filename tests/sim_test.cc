#include <cmath>
#include <cstdio>
#include <numbers>

#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "coulomb/contact/sap_friction_cone.h"
#include "coulomb/scenes/scene_options.h"
#include "coulomb/sim/time_stepper.h"
#include "robot_scenes.h"
#include "test_support.h"

namespace coulomb {
namespace {

constexpr double kGravity = 9.81;

using testing::At;

TimeStepperParameters Parameters(double dt, Scheme scheme = Scheme::kSymplecticEuler) {
  TimeStepperParameters parameters;
  parameters.time_step = dt;
  parameters.scheme = scheme;
  return parameters;
}

TEST(TimeStepper, FreeFallMatchesTheSymplecticEulerRecurrence) {
  MultibodySystem system;
  system.AddFreeBody("ball", Sphere{0.1}, 2.0, At(0, 0, 10), Eigen::Vector3d::Zero(),
                     Eigen::Vector3d::Zero(), ContactMaterial{});
  TimeStepper stepper(Parameters(0.01));
  const int steps = 50;
  for (int n = 0; n < steps; ++n) ASSERT_TRUE(stepper.Step(&system).converged);
  // v_n = −g n δt,  z_n = z0 − g δt² n(n+1)/2 (symplectic Euler, exact).
  const double dt = 0.01;
  EXPECT_NEAR(system.tree(0).v[2], -kGravity * steps * dt, 1e-12);
  EXPECT_NEAR(system.tree(0).q[2], 10.0 - kGravity * dt * dt * steps * (steps + 1) / 2.0,
              1e-12);
}

TEST(TimeStepper, ProjectileMatchesTheClosedFormOfEachScheme) {
  // Constant gravity: v_N = v0 + g T exactly, and q_N = q0 + v0 T + ½ g T² +
  // g T δt (θvq − ½) (sum of δt (v_n + θvq δt g) over the steps): exact for
  // midpoint, ±½ g T δt for the Euler schemes.
  const double dt = 0.01, duration = 0.5;
  const Eigen::Vector3d v0(1.0, -0.5, 2.0), gravity(0, 0, -kGravity);
  for (const Scheme scheme : {Scheme::kExplicitEuler, Scheme::kSymplecticEuler,
                              Scheme::kImplicitEuler, Scheme::kMidpoint}) {
    MultibodySystem system;
    system.AddFreeBody("ball", Sphere{0.1}, 2.0, At(0, 0, 10), v0,
                       Eigen::Vector3d::Zero(), ContactMaterial{});
    TimeStepper stepper(Parameters(dt, scheme));
    for (int n = 0; n < std::lround(duration / dt); ++n) {
      ASSERT_TRUE(stepper.Step(&system).converged);
    }
    const double theta_vq = scheme == Scheme::kExplicitEuler ? 0.0
                            : scheme == Scheme::kMidpoint    ? 0.5
                                                             : 1.0;
    const Eigen::Vector3d expected = Eigen::Vector3d(0, 0, 10) + v0 * duration +
                                     0.5 * gravity * duration * duration +
                                     gravity * duration * dt * (theta_vq - 0.5);
    EXPECT_LT((system.tree(0).q.head<3>() - expected).norm(), 1e-12) << ToString(scheme);
    EXPECT_LT((system.tree(0).v.head<3>() - (v0 + gravity * duration)).norm(), 1e-12)
        << ToString(scheme);
  }
}

// A geometry's world pose is X_WB X_BG, X_WB from the free body's q = [p;
// x y z w], for a geometry set off and turned in the body frame as well as
// for one at the body frame.
TEST(MultibodySystem, GeometryPosesOfAFreeBodyAreItsPoseTimesTheGeometrysOffset) {
  MultibodySystem system;
  const int box = system.AddFreeBody(
      "box", Box{{0.4, 0.2, 0.1}}, 1.0,
      Pose(Eigen::Vector3d(0.3, -0.1, 0.8), Eigen::Vector3d(0.4, -0.7, 1.1)),
      Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), ContactMaterial{});
  const Eigen::Isometry3d X_BG =
      Pose(Eigen::Vector3d(0.05, 0.02, -0.1), Eigen::Vector3d(-0.3, 0.2, 0.5));
  system.AddGeometry(Sphere{0.05}, box, 0, X_BG, ContactMaterial{});
  system.UpdateAllTrees();
  std::vector<Eigen::Isometry3d> poses;
  system.CalcGeometryPoses(&poses);
  ASSERT_EQ(poses.size(), 2u);
  const Eigen::VectorXd& q = system.tree(box).q;
  Eigen::Isometry3d X_WB = Eigen::Isometry3d::Identity();
  X_WB.linear() = Eigen::Quaterniond(q[6], q[3], q[4], q[5]).toRotationMatrix();
  X_WB.translation() = q.head<3>();
  EXPECT_TRUE(poses[0].matrix().isApprox(X_WB.matrix(), 1e-14));
  EXPECT_TRUE(poses[1].matrix().isApprox((X_WB * X_BG).matrix(), 1e-14));
  EXPECT_EQ(poses[1].matrix().row(3), Eigen::RowVector4d(0, 0, 0, 1));
}

TEST(MultibodySystem, GatheringTreeStatesKeepsEveryTreesPositionsAndVelocities) {
  MultibodySystem system;
  for (int k = 0; k < 5; ++k) {
    system.AddFreeBody(
        "box " + std::to_string(k), Box{{0.1, 0.2, 0.3}}, 1.0 + k,
        Pose(Eigen::Vector3d(k, -k, 0.5 + k), Eigen::Vector3d(0.1 * k, 0, 1)),
        Eigen::Vector3d(k, 2.0 * k, -k), Eigen::Vector3d(-k, 0.5, k), ContactMaterial{});
  }
  std::vector<Eigen::VectorXd> q, v;
  for (int t = 0; t < system.num_trees(); ++t) {
    q.push_back(system.tree(t).q);
    v.push_back(system.tree(t).v);
  }
  system.GatherTreeStates();
  for (int t = 0; t < system.num_trees(); ++t) {
    EXPECT_EQ(system.tree(t).q, q[t]) << "tree " << t;
    EXPECT_EQ(system.tree(t).v, v[t]) << "tree " << t;
  }
}

TEST(TimeStepper, ContactJacobianGivesTheRelativeVelocityOfTheTouchingPoints) {
  // A tilted box (tree 0) and a ball (tree 1) overlapping by 1 mm: the step's
  // contact constraint maps any v to v_c = R_CWᵀ (v_B(p) − v_A(p)), with the
  // material points' velocities from central differences of their positions
  // along q ⊕ ±h v.
  MultibodySystem system(Eigen::Vector3d::Zero());
  system.AddFreeBody("box", Box{{0.4, 0.4, 0.2}}, 1.0,
                     Pose(Eigen::Vector3d::Zero(), Eigen::Vector3d(0.1, -0.2, 0.3)),
                     Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), ContactMaterial{});
  system.AddFreeBody("ball", Sphere{0.1}, 1.0, At(0.02, -0.01, 0.0),
                     Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), ContactMaterial{});
  system.UpdateAllTrees();
  std::vector<Eigen::Isometry3d> poses;
  system.CalcGeometryPoses(&poses);
  // Move the ball along the box's top normal until it overlaps by 1 mm.
  std::vector<ContactPoint> contacts;
  const Eigen::Vector3d up = poses[0].linear().col(2);
  system.tree(1).q.head<3>() = poses[0] * Eigen::Vector3d(0.02, -0.01, 0.1) + 0.099 * up;
  system.UpdateAllTrees();
  system.CalcGeometryPoses(&poses);
  system.collision_world().ComputeContacts(poses, 0.0, &contacts);
  ASSERT_EQ(contacts.size(), 1u);
  const ContactPoint contact = contacts[0];
  TimeStepper stepper(Parameters(1e-3));
  const std::vector<Eigen::VectorXd> q0 = {system.tree(0).q, system.tree(1).q};
  ASSERT_TRUE(stepper.Step(&system).converged);
  const ContactProblem& problem = *stepper.last_problem();
  ASSERT_EQ(problem.num_constraints(), 1);

  Eigen::VectorXd v(12);
  v << 0.3, -0.2, 0.1, 1.0, -0.5, 2.0, -0.4, 0.6, 0.2, -1.5, 0.7, 0.3;
  Eigen::VectorXd v_c;
  problem.MultiplyByJacobian(v, &v_c);
  // Velocity of the material point of tree t at the contact point.
  const auto point_velocity = [&](int t) {
    MultibodyTree& model = system.tree(t).model;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(6);
    model.SetState(q0[t], zero);
    const Eigen::Vector3d p_B = model.body_pose(0).inverse() * contact.p_W;
    const double h = 1e-7;
    model.SetState(model.Integrate(q0[t], h * v.segment(6 * t, 6)), zero);
    const Eigen::Vector3d plus = model.body_pose(0) * p_B;
    model.SetState(model.Integrate(q0[t], -h * v.segment(6 * t, 6)), zero);
    const Eigen::Vector3d minus = model.body_pose(0) * p_B;
    return Eigen::Vector3d((plus - minus) / (2 * h));
  };
  const Eigen::Vector3d relative = point_velocity(1) - point_velocity(0);
  // The normal component exactly, the tangential plane up to its basis.
  EXPECT_NEAR(v_c[2], contact.normal_W.dot(relative), 1e-7);
  EXPECT_NEAR(v_c.head<2>().norm(),
              (relative - contact.normal_W.dot(relative) * contact.normal_W).norm(),
              1e-7);
}

// The total linear momentum Σ m ṗ and angular momentum about the origin
// Σ (p × m ṗ + R_WB I ω_B) of free bodies (q = [p, quaternion x y z w],
// v = [ṗ_W, ω_B]) whose inertia about the COM is I = inertia · 𝟙.
struct Momenta {
  Eigen::Vector3d linear = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular = Eigen::Vector3d::Zero();
};

Momenta TotalMomenta(const MultibodySystem& system, const std::vector<double>& masses,
                     const std::vector<double>& inertias) {
  Momenta total;
  for (int t = 0; t < system.num_trees(); ++t) {
    const Eigen::VectorXd& q = system.tree(t).q;
    const Eigen::VectorXd& v = system.tree(t).v;
    const Eigen::Quaterniond R_WB(q[6], q[3], q[4], q[5]);
    const Eigen::Vector3d p = masses[t] * v.head<3>();
    total.linear += p;
    total.angular += q.head<3>().cross(p) + inertias[t] * (R_WB * v.tail<3>());
  }
  return total;
}

// 27 cubes and balls (isotropic inertia) on a 3 × 3 × 3 lattice, thrown
// towards its centre with random spins, without gravity or ground.
struct ThrownSwarm {
  static constexpr double kSpacing = 0.16;  // of the lattice [m]: the lever arms
  MultibodySystem system{Eigen::Vector3d::Zero()};
  std::vector<double> masses, inertias;  // [kg], [kg·m²] about the COM
};

ThrownSwarm MakeThrownSwarm() {
  ThrownSwarm swarm;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const auto random_vector = [&] {
    return Eigen::Vector3d(uniform(random), uniform(random), uniform(random));
  };
  for (int i = 0; i < 27; ++i) {
    const Eigen::Vector3d place =
        ThrownSwarm::kSpacing * Eigen::Vector3d(i % 3 - 1, i / 3 % 3 - 1, i / 9 - 1);
    const Eigen::Vector3d velocity = -1.5 * place + 0.3 * random_vector();
    const Eigen::Vector3d spin = 5.0 * random_vector();
    const Eigen::Isometry3d pose = Pose(place, random_vector());
    if (i % 2 == 0) {
      swarm.masses.push_back(1.0);
      swarm.inertias.push_back(1.0 * 0.1 * 0.1 / 6.0);  // m a² / 6
      swarm.system.AddFreeBody("cube" + std::to_string(i),
                               Box{Eigen::Vector3d::Constant(0.1)}, swarm.masses.back(),
                               pose, velocity, spin, ContactMaterial{});
    } else {
      swarm.masses.push_back(0.5);
      swarm.inertias.push_back(0.4 * 0.5 * 0.05 * 0.05);  // 2/5 m r²
      swarm.system.AddFreeBody("ball" + std::to_string(i), Sphere{0.05},
                               swarm.masses.back(), pose, velocity, spin,
                               ContactMaterial{});
    }
  }
  swarm.system.UpdateAllTrees();
  return swarm;
}

// Contacts between free bodies exchange equal and opposite impulses at one
// point, so without gravity or ground they keep the bodies' total linear
// and angular momentum: symplectic Euler's drift p += δt ṗ keeps p × m ṗ,
// and cubes and spheres feel no gyroscopic torque. So the thrown swarm must
// keep both to round-off under every solver (SAP at ε_r = 1e-12), while
// each body's own momentum changes by order one: a Jacobian block of the
// wrong sign or lever arm, or a point that differs between the two bodies,
// breaks it.
TEST(TimeStepper, ContactsConserveTheLinearAndAngularMomentumOfFreeBodies) {
  for (const auto& [kind, name] : EnumNames<ContactSolverKind>::kNames) {
    ThrownSwarm swarm = MakeThrownSwarm();
    MultibodySystem& system = swarm.system;
    TimeStepperParameters parameters = Parameters(0.01);
    parameters.solver.kind = kind;
    parameters.solver.sap.rel_tolerance = 1e-12;
    TimeStepper stepper(parameters);
    const Momenta start = TotalMomenta(system, swarm.masses, swarm.inertias);
    std::vector<Eigen::Vector3d> first_momenta;
    double scale = 0.0;  // Σ m |ṗ| at the start [kg·m/s]
    for (int t = 0; t < system.num_trees(); ++t) {
      first_momenta.push_back(swarm.masses[t] * system.tree(t).v.head<3>());
      scale += first_momenta.back().norm();
    }
    int pushing = 0;  // contacts with a normal impulse, over the run
    for (int n = 0; n < 100; ++n) {
      const StepStatistics step = stepper.Step(&system);
      ASSERT_TRUE(step.converged) << name << ", step " << n << ": " << step.failure;
      const Momenta now = TotalMomenta(system, swarm.masses, swarm.inertias);
      ASSERT_LT((now.linear - start.linear).norm(), 1e-10 * scale)
          << name << ", step " << n;
      ASSERT_LT((now.angular - start.angular).norm(),
                1e-10 * scale * ThrownSwarm::kSpacing)
          << name << ", step " << n;
      const ReusableVector& impulses = stepper.last_solution().impulses;  // [γ_t, γ_n]
      for (size_t i = 0; i < stepper.last_contacts().size(); ++i)
        pushing += impulses[3 * i + 2] > 0.0;
    }
    double largest_change = 0.0;  // of one body's momentum over the run
    for (int t = 0; t < system.num_trees(); ++t) {
      largest_change = std::max(
          largest_change,
          (swarm.masses[t] * system.tree(t).v.head<3>() - first_momenta[t]).norm());
    }
    EXPECT_GT(pushing, 200) << name;
    EXPECT_GT(largest_change, 0.2) << name;
  }
}

TEST(TimeStepper, ANonFiniteStateFailsTheStepInsteadOfThrowing) {
  MultibodySystem system;
  system.AddFreeBody("ball", Sphere{0.1}, 1.0, At(0, 0, 1), Eigen::Vector3d::Zero(),
                     Eigen::Vector3d::Zero(), ContactMaterial{});
  system.tree(0).v[0] = std::nan("");  // e.g. after a diverged solve
  TimeStepper stepper(Parameters(0.01));
  StepStatistics stats;
  EXPECT_NO_THROW(stats = stepper.Step(&system));
  EXPECT_FALSE(stats.converged);
  EXPECT_NE(stats.failure.find("non-finite"), std::string::npos) << stats.failure;
}

TEST(TimeStepper, SphereAtRestPenetratesAsTheNearRigidModelPredicts) {
  const double dt = 0.01, mass = 1.5, radius = 0.1;
  MultibodySystem system;
  system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), ContactMaterial{});
  system.AddFreeBody("ball", Sphere{radius}, mass, At(0, 0, radius + 0.01),
                     Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), ContactMaterial{});
  TimeStepper stepper(Parameters(dt));
  StepStatistics stats;
  for (int n = 0; n < 200; ++n) {
    stats = stepper.Step(&system);
    ASSERT_TRUE(stats.converged) << stats.failure;
  }
  // At rest γ_n = m g δt = −φ/((δt + τ_d) Rn), Rn = β² w/(4π²) with β = 1,
  // τ_d = δt/π and w = ‖W‖_F/3, W = diag(3.5, 3.5, 1)/m for a solid sphere
  // touching at its bottom (1/m + r²/I = 3.5/m tangentially).
  const double w = std::sqrt(2 * 3.5 * 3.5 + 1.0) / mass / 3.0;
  const double rn = w / (4 * std::numbers::pi * std::numbers::pi);
  const double expected = mass * kGravity * dt * (dt + dt / std::numbers::pi) * rn;
  EXPECT_NEAR(stats.max_penetration, expected, 1e-3 * expected);
  // At rest to the solver's tolerance: e_m < 1e-6 of the momentum m g δt.
  EXPECT_LT(system.tree(0).v.norm(), 1e-6 * kGravity * dt);
  EXPECT_LT(stats.momentum_error, 1e-6);
}

TEST(TimeStepper, SlidingBoxStopsWhereCoulombFrictionSays) {
  // v0 = 1 m/s, μ = 0.5: deceleration μ g, stopping distance v0²/(2 μ g).
  const double dt = 1e-3, mu = 0.5, v0 = 1.0;
  MultibodySystem system;
  ContactMaterial material;
  material.friction = mu;
  system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  system.AddFreeBody("box", Box{{0.2, 0.2, 0.1}}, 1.0, At(0, 0, 0.05),
                     Eigen::Vector3d(v0, 0, 0), Eigen::Vector3d::Zero(), material);
  TimeStepper stepper(Parameters(dt));
  const int steps = 400;  // 0.4 s, twice the stopping time 0.204 s
  for (int n = 0; n < steps; ++n) ASSERT_TRUE(stepper.Step(&system).converged);
  const double distance = system.tree(0).q[0];
  const double expected = v0 * v0 / (2 * mu * kGravity);
  // O(δt) discretization and the near-rigid compliance: within 2%.
  EXPECT_NEAR(distance, expected, 0.02 * expected);
  // Stiction once stopped: slip ≈ μ σ δt g ~ 1e-5 m/s at most.
  EXPECT_LT(std::abs(system.tree(0).v[0]), 1e-4);
}

// On a slope of angle θ a box sticks when tan θ < μ and slides with
// acceleration g (sin θ − μ cos θ) otherwise (gravity tilted instead of the ground).
double BoxSlipOnSlope(double mu, double angle, double duration, double dt = 1e-3) {
  const Eigen::Vector3d gravity =
      kGravity * Eigen::Vector3d(std::sin(angle), 0, -std::cos(angle));
  MultibodySystem system(gravity);
  ContactMaterial material;
  material.friction = mu;
  system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  // Resting exactly on the ground: an initial overlap would be pushed out at
  // φ0/(δt + τ_d) and the box would fly (and slide) for a moment.
  system.AddFreeBody("box", Box{{0.2, 0.2, 0.1}}, 1.0, At(0, 0, 0.05),
                     Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), material);
  TimeStepper stepper(Parameters(dt));
  for (int n = 0; n < std::lround(duration / dt); ++n) {
    if (!stepper.Step(&system).converged) return std::nan("");
  }
  return system.tree(0).q[0];
}

TEST(TimeStepper, StictionHoldsBelowTheFrictionAngleAndSlipsAbove) {
  const double angle = 20.0 * std::numbers::pi / 180.0;  // tan = 0.364
  // Sticks: SAP's regularized friction lets it creep (σ = 1e-3), on average
  // slower than σ μ g δt = 4.9e-6 m/s (issue #3's bound); measured 2.2e-6.
  const double sigma = 1e-3, mu = 0.5, dt = 1e-3;
  EXPECT_LT(std::abs(BoxSlipOnSlope(mu, angle, 1.0)) / 1.0, sigma * mu * kGravity * dt);
  const double slid = BoxSlipOnSlope(0.2, angle, 0.5);
  const double expected =
      0.5 * kGravity * (std::sin(angle) - 0.2 * std::cos(angle)) * 0.25;
  // First order in δt: 0.18% high at δt = 1e-3 (0.02% at 1e-4).
  EXPECT_NEAR(slid, expected, 0.005 * expected);
}

// A sticking contact of SAP slips at v_t = −Rt γ_t (the stiction branch of
// γ = −R⁻¹(v_c − v̂)), Rt = σ w, w = ‖W_ii‖_F / 3 (SAP eq. 29). The box of
// BoxSlipOnSlope rests on its four bottom corners, alike by symmetry
// (W_ii = I/m + [r]ₓᵀ I_B⁻¹ [r]ₓ with r the corner from the center), so
// each carries a quarter of the load along the slope, m g sin θ δt per step,
// and the box creeps at σ w m g sin θ δt / 4.
TEST(TimeStepper, StictionCreepsAtTheRateOfSapsTangentialRegularization) {
  const double angle = 20.0 * std::numbers::pi / 180.0, mu = 0.5, mass = 1.0;
  const Eigen::Vector3d size(0.2, 0.2, 0.1);
  const Eigen::Vector3d inertia_diagonal =
      mass / 12.0 *
      Eigen::Vector3d(size.y() * size.y() + size.z() * size.z(),
                      size.x() * size.x() + size.z() * size.z(),
                      size.x() * size.x() + size.y() * size.y());
  const Eigen::Vector3d corner = -0.5 * size;
  Eigen::Matrix3d r_cross;
  r_cross << 0, -corner.z(), corner.y(), corner.z(), 0, -corner.x(), -corner.y(),
      corner.x(), 0;
  const Eigen::Matrix3d W =
      Eigen::Matrix3d::Identity() / mass +
      r_cross.transpose() * inertia_diagonal.cwiseInverse().asDiagonal() * r_cross;
  const double w = W.norm() / 3.0;
  for (const double dt : {1e-3, 1e-2}) {
    const double expected =
        kDefaultSigma * w * mass * kGravity * std::sin(angle) * dt / 4.0;
    // Over 1 s to 3 s, once the first steps' transient has passed.
    const double creep =
        (BoxSlipOnSlope(mu, angle, 3.0, dt) - BoxSlipOnSlope(mu, angle, 1.0, dt)) / 2.0;
    EXPECT_NEAR(creep, expected, 0.01 * expected) << "δt = " << dt;
  }
}

double SpinningEnergyDrift(Scheme scheme) {
  MultibodySystem system(Eigen::Vector3d::Zero());
  system.AddFreeBody("brick", Box{{0.1, 0.3, 0.5}}, 1.0, At(0, 0, 0),
                     Eigen::Vector3d(0.1, 0, 0), Eigen::Vector3d(1.0, 0.2, 3.0),
                     ContactMaterial{});
  TimeStepper stepper(Parameters(0.01, scheme));
  system.UpdateAllTrees();
  const double initial = system.MechanicalEnergy();
  for (int n = 0; n < 500; ++n) stepper.Step(&system);
  system.UpdateAllTrees();
  return (system.MechanicalEnergy() - initial) / initial;
}

TEST(TimeStepper, MidpointConservesEnergyOfAFreeSpinningBodyAndImplicitEulerDissipates) {
  // Midpoint: energy error O(δt²) per unit time and no drift; implicit
  // Euler loses energy monotonically.
  EXPECT_LT(std::abs(SpinningEnergyDrift(Scheme::kMidpoint)), 1e-3);
  EXPECT_LT(SpinningEnergyDrift(Scheme::kImplicitEuler), -1e-3);
}

}  // namespace
}  // namespace coulomb

#include "coulomb/bench/trajectory_analysis.h"
#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/scenes/builtin_scenes.h"
#include "coulomb/sim/simulation.h"

#include <filesystem>

namespace coulomb {
namespace {

TEST(Simulation, ClutterTakesSapsTangentialRegularizationAsAnOption) {
  EXPECT_EQ(MakeBuiltinScene("clutter", {}).parameters.contact.sigma, kDefaultSigma);
  EXPECT_EQ(MakeBuiltinScene("clutter", {{"sigma", "0.01"}}).parameters.contact.sigma,
            0.01);
  EXPECT_THROW(MakeBuiltinScene("clutter", {{"sigma", "-1"}}), std::invalid_argument);
}

TEST(Simulation, ClutterSettlesWithoutGainingEnergy) {
  // 16 bodies in the walled box for 3 s: every step converges and the energy
  // never rises above its start (contact only dissipates).
  Simulation simulation(MakeBuiltinScene("clutter", {{"bodies", "16"}}));
  Scene& scene = simulation.mutable_scene();
  scene.duration = 3.0;
  const SimulationSummary summary = simulation.Run();
  EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
  EXPECT_EQ(summary.steps, 300);
  EXPECT_LT(summary.momentum_error_max, 1e-6);
  double peak = summary.energy_initial;
  for (const StepRecord& record : simulation.records())
    peak = std::max(peak, record.energy);
  EXPECT_LE(peak, summary.energy_initial + 1e-9);
}

TEST(Simulation, ClutterOfFortyBodiesSettlesToFewNewtonIterationsPerStep) {
  // Issue #3's acceptance run: SAP §VI-C as published (40 bodies, walls,
  // k = 1e12, δt = 10 ms, 10 s). Every step converges to ε_r = 1e-6 and at
  // rest SAP needs few iterations (the paper: about 3; at most 6 here).
  Simulation simulation(MakeBuiltinScene("clutter", {}));
  double late_iterations = 0.0;
  int late_steps = 0;
  const SimulationSummary summary =
      simulation.Run({}, [&](const TimeStepper&, const StepRecord& record) {
        if (record.time <= 5.0) return;
        late_iterations += record.statistics.iterations;
        ++late_steps;
      });
  EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
  ASSERT_EQ(summary.steps, 1000);
  EXPECT_LT(summary.momentum_error_max, 1e-6);
  const double late_mean = late_iterations / late_steps;
  std::printf("clutter: mean SAP iterations %.2f overall, %.2f over the last 5 s\n",
              summary.iterations_mean, late_mean);
  EXPECT_LE(late_mean, 6.0);
}

// The falling columns' speculative contacts leave SAP a working set to grow
// in rounds; without the working set there are none. The summary's means
// are those of the steps.
TEST(Simulation, StepsReportSapsWorkingSetRoundsAndTheSummaryTheirMeans) {
  const auto run = [](bool working_set) {
    Scene scene = MakeBuiltinScene("clutter", {{"bodies", "40"}, {"walls", "false"}});
    scene.duration = 1.0;
    scene.parameters.solver.sap.working_set = working_set;
    Simulation simulation(std::move(scene));
    const SimulationSummary summary = simulation.Run();
    EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
    double rounds = 0.0, line_searches = 0.0;
    int steps_with_rounds = 0;
    for (const StepRecord& record : simulation.records()) {
      rounds += record.statistics.working_set_rounds;
      line_searches += record.statistics.line_search_iterations;
      steps_with_rounds += record.statistics.working_set_rounds > 0;
    }
    EXPECT_NEAR(summary.working_set_rounds_mean, rounds / summary.steps, 1e-12);
    EXPECT_NEAR(summary.line_search_iterations_mean, line_searches / summary.steps,
                1e-12);
    EXPECT_GT(line_searches, 0.0);
    return steps_with_rounds;
  };
  EXPECT_GT(run(true), 0);
  EXPECT_EQ(run(false), 0);
}

// A tree's Newton iterations: with one tree every iteration moves it (the
// count is the step's); in a pile, islands set aside once converged go
// through fewer than the slowest island, and the summary holds their mean.
TEST(Simulation, StepsReportTheNewtonIterationsPerTree) {
  Scene ball = MakeBuiltinScene("sphere_on_ground", {});
  ball.duration = 1.0;
  Simulation one_tree(std::move(ball));
  EXPECT_EQ(one_tree.Run().failed_steps, 0);
  int moving_steps = 0;
  for (const StepRecord& record : one_tree.records()) {
    EXPECT_EQ(record.statistics.tree_iterations, record.statistics.iterations)
        << "t = " << record.time;
    moving_steps += record.statistics.iterations > 0;
  }
  EXPECT_GT(moving_steps, 0);

  Scene pile = MakeBuiltinScene("clutter", {{"bodies", "40"}, {"walls", "false"}});
  pile.duration = 1.0;
  Simulation simulation(std::move(pile));
  const SimulationSummary summary = simulation.Run();
  EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
  double sum = 0.0;
  int steps_with_islands_set_aside = 0;
  for (const StepRecord& record : simulation.records()) {
    const StepStatistics& stats = record.statistics;
    // Every iteration moves a tree at least.
    EXPECT_GE(stats.tree_iterations, stats.iterations / 40.0) << "t = " << record.time;
    EXPECT_LE(stats.tree_iterations, stats.iterations) << "t = " << record.time;
    steps_with_islands_set_aside += stats.tree_iterations < stats.iterations;
    sum += stats.tree_iterations;
  }
  EXPECT_GT(steps_with_islands_set_aside, 0);
  EXPECT_NEAR(summary.tree_iterations_mean, sum / summary.steps, 1e-12);
}

// A body released at rest on the edge of its base (a can's rim, a box's
// edge), tilted by θ about y, its lowest point 1 mm above the ground (μ =
// 0.8, δt = 10 ms, 1.5 s): below the critical tilt its centre of mass lies
// over the base and it falls back onto it, above onto its side. Either way
// a far edge swings down several millimetres a step; the closed-form
// patch's far points (a box's other vertices, a can's other cap) and a
// can's rim, taken while it spans twice the patch tolerance, are there as
// speculative contacts before it arrives (a box struck 18 mm deep, a can
// 7 mm, without them). It must end standing (its z axis vertical, its
// centre `standing_height` high) or lying (its z axis level, its centre
// `lying_height` high), without striking more than 1 mm into the ground.
// The ground: `floor`, a half-space, or the top face (z = 0) of a wide box,
// where the far points are the body's vertices over that face.
void ExpectToTipOntoItsBaseOrSide(const Shape& shape, double lowest_below_centre_at_zero,
                                  double half_base, double standing_height,
                                  double lying_height, const Shape& floor = HalfSpace{}) {
  const double critical_tilt = std::atan(half_base / standing_height);
  for (const double tilt : {0.5, 0.7, 0.9, 1.1, 1.6, 2.4}) {
    const double angle = tilt * critical_tilt;
    Scene scene{"tipping", MultibodySystem(), {}, 1.5};
    scene.parameters.time_step = 0.01;
    ContactMaterial material;
    material.friction = 0.8;
    Eigen::Isometry3d X_WFloor = Eigen::Isometry3d::Identity();
    if (const Box* slab = std::get_if<Box>(&floor))
      X_WFloor.translation().z() = -0.5 * slab->size.z();
    scene.system.AddStaticGeometry(floor, X_WFloor, material);
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    pose.linear() = Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitY()).toRotationMatrix();
    pose.translation().z() = lowest_below_centre_at_zero * std::cos(angle) +
                             half_base * std::sin(angle) + 0.001;
    const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
    scene.system.AddFreeBody("body", shape, 0.35, pose, zero, zero, material);
    Simulation simulation(std::move(scene));
    const SimulationSummary summary = simulation.Run();
    EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
    EXPECT_LT(summary.penetration_max, 1e-3) << "tilt " << angle;
    const Eigen::VectorXd& q = simulation.q();  // x, y, z, then w, x, y, z
    const Eigen::Quaterniond orientation(q[3], q[4], q[5], q[6]);
    const double axis_up = (orientation.normalized() * Eigen::Vector3d::UnitZ()).z();
    const bool stands = angle < critical_tilt;
    EXPECT_NEAR(std::abs(axis_up), stands ? 1.0 : 0.0, 1e-3) << "tilt " << angle;
    EXPECT_NEAR(q[2], stands ? standing_height : lying_height, 1e-3) << "tilt " << angle;
  }
}

// A can (r = 33 mm, 120 mm long): the critical tilt is atan(2r/L).
TEST(TippingOver, ACanLandsOnItsCapOrSideWithoutStrikingIntoTheGround) {
  const Cylinder can{.radius = 0.033, .length = 0.12};
  ExpectToTipOntoItsBaseOrSide(can, 0.5 * can.length, can.radius, 0.5 * can.length,
                               can.radius);
}

// A box 0.1 × 0.14 × 0.3 m on an edge of its 0.1 m side: atan(0.1/0.3).
TEST(TippingOver, ABoxLandsOnItsBaseOrSideWithoutStrikingIntoTheGround) {
  const Box box{Eigen::Vector3d(0.1, 0.14, 0.3)};
  ExpectToTipOntoItsBaseOrSide(box, 0.15, 0.05, 0.15, 0.05);
}

// The same box on a wide box's top face (a box falling onto its side there
// struck 20 mm deep without the far points of box pairs).
TEST(TippingOver, ABoxLandsOnItsBaseOrSideWithoutStrikingIntoABoxBelow) {
  const Box box{Eigen::Vector3d(0.1, 0.14, 0.3)};
  ExpectToTipOntoItsBaseOrSide(box, 0.15, 0.05, 0.15, 0.05,
                               Box{Eigen::Vector3d(2.0, 2.0, 0.2)});
}

TEST(Simulation, ClutterSpreadsAnyNumberOfBodiesOverItsFourColumns) {
  const Scene scene = MakeBuiltinScene("clutter", {{"bodies", "10"}});
  EXPECT_EQ(scene.system.num_trees(), 10);
  EXPECT_THROW(MakeBuiltinScene("clutter", {{"bodies", "0"}}), std::invalid_argument);
}

// columns=9: a 3 × 3 grid 0.4 m apart centred on the origin; 20 bodies put
// three in the first two columns, two in the others, 0.15 m apart upwards.
TEST(Simulation, ClutterSpreadsBodiesOverAGridOfColumns) {
  const Scene scene = MakeBuiltinScene("clutter", {{"bodies", "20"}, {"columns", "9"}});
  ASSERT_EQ(scene.system.num_trees(), 20);
  std::map<std::pair<long, long>, std::vector<double>> heights;  // per column, in cm
  for (int t = 0; t < scene.system.num_trees(); ++t) {
    const Eigen::Vector3d p = scene.system.tree(t).q.head<3>();
    heights[{std::lround(100 * p.x()), std::lround(100 * p.y())}].push_back(p.z());
  }
  ASSERT_EQ(heights.size(), 9u);
  for (const auto& [xy, z] : heights) {
    EXPECT_TRUE(std::abs(xy.first) == 40 || xy.first == 0) << xy.first;
    EXPECT_TRUE(std::abs(xy.second) == 40 || xy.second == 0) << xy.second;
    EXPECT_TRUE(z.size() == 2 || z.size() == 3);
    for (size_t j = 0; j < z.size(); ++j) EXPECT_NEAR(z[j], 0.1 + 0.15 * j, 1e-12);
  }
  EXPECT_THROW(MakeBuiltinScene("clutter", {{"columns", "0"}}), std::invalid_argument);
}

}  // namespace
}  // namespace coulomb

namespace coulomb {
namespace {

// One more step of a floating-base robot (tree 0), checked against the
// momentum balance of its first three velocities (the base's world-frame
// translation): rows 0–2 of M(q0)(v − v0) + δt h(q0, v0) are the sum of the
// impulses the ground gives in the contacts the step reports (joint limits,
// controllers and self-contacts are internal: they cancel in these rows). Returns the
// contacts' vertical impulse over m g δt.
double StepAndCheckMomentumBalance(Simulation* simulation) {
  const MultibodySystem& system = simulation->scene().system;
  const Eigen::MatrixXd mass_matrix = system.tree(0).model.mass_matrix();
  const Eigen::VectorXd h0 = system.tree(0).model.nonlinear_effects();
  const Eigen::VectorXd v0 = system.tree(0).v;
  EXPECT_TRUE(simulation->Step().converged);
  const double dt = simulation->time_step();
  const Eigen::Vector3d balance =
      (mass_matrix * (system.tree(0).v - v0) + dt * h0).head<3>();
  Eigen::Vector3d impulses = Eigen::Vector3d::Zero();
  for (const Contact& contact : simulation->contacts()) {  // B receives the impulse
    if (contact.body_a == "world") impulses += contact.impulse;
    if (contact.body_b == "world") impulses -= contact.impulse;  // (self-contacts cancel)
  }
  EXPECT_LT((balance - impulses).norm(), 1e-6 * (impulses.norm() + 1e-9))
      << "balance " << balance.transpose() << ", impulses " << impulses.transpose();
  const double weight_impulse = mass_matrix(0, 0) * kGravity * dt;  // M_tt = m I
  return impulses.z() / weight_impulse;
}

TEST(Simulation, QuadrupedFromExampleRobotDataLandsOnItsCollisionPrimitives) {
  std::string why;
  std::optional<Scene> loaded = testing::TryQuadrupedDrop(&why);
  if (!loaded) GTEST_SKIP() << why;
  Scene scene = std::move(*loaded);
  ASSERT_EQ(scene.system.num_trees(), 1);
  // The A1's URDF has 22 collision primitives (boxes, cylinders, spheres).
  EXPECT_EQ(scene.system.collision_world().num_geometries(), 1 + 22);
  Simulation simulation(std::move(scene));
  // The limp legs fold for about a second after landing: 2 s to rest.
  const SimulationSummary summary = simulation.RunFor(2.0);
  EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
  EXPECT_LT(summary.penetration_max, 5e-3);
  // Landed and at rest on its feet: the contacts carry exactly its weight.
  EXPECT_NEAR(StepAndCheckMomentumBalance(&simulation), 1.0, 0.05);
}

TEST(Simulation, ArmWithCollisionMeshesFallsOntoTheirConvexHulls) {
  // UR5 (example-robot-data): 7 links with STL collision meshes (and a 1 cm
  // box on its tool frame), floating, dropped tilted from 0.5 m for 3 s.
  std::string urdf;
  try {
    urdf = RobotDataDirectory() + "/ur_description/urdf/ur5_robot.urdf";
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << e.what();
  }
  MultibodyTree arm = MultibodyTree::FromUrdf(urdf, /*floating_base=*/true);
  int meshes = 0;
  for (const BodyGeometry& geometry : arm.collision_geometries()) {
    if (!std::holds_alternative<ConvexMesh>(geometry.shape)) continue;
    ++meshes;
    EXPECT_GT(Volume(geometry.shape), 0.0);
  }
  EXPECT_EQ(meshes, 7);
  Eigen::VectorXd q = arm.NeutralConfiguration();
  const Eigen::Quaterniond tilt(Eigen::AngleAxisd(1.0, Eigen::Vector3d::UnitX()));
  q.head<7>() << 0, 0, 0.5, tilt.x(), tilt.y(), tilt.z(), tilt.w();
  Scene scene{"ur5_drop", MultibodySystem(), {}, 3.0};
  scene.parameters.time_step = 2e-3;
  scene.system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(),
                                 ContactMaterial{});
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(arm.num_velocities());
  scene.system.AddRobot("ur5", std::move(arm), q, v, ContactMaterial{});
  Simulation simulation(std::move(scene));
  const SimulationSummary summary = simulation.Run();
  EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
  EXPECT_LT(summary.penetration_max, 5e-3);
  // Landed and at rest on its hulls: the contacts carry exactly its weight.
  EXPECT_NEAR(StepAndCheckMomentumBalance(&simulation), 1.0, 0.05);
}

TEST(TimeStepper, OffCentreBoxMeshSlidesAsFarAsTheBox) {
  // The sliding-box test with the box as a convex mesh whose file puts it
  // 0.3 m off its origin: the body sits at the centroid and stops after
  // v0²/(2 μ g) like the primitive.
  const double dt = 1e-3, mu = 0.5, v0 = 1.0;
  std::vector<Eigen::Vector3d> corners;
  for (int c = 0; c < 8; ++c) {
    corners.emplace_back(0.3 + (c & 1 ? 0.1 : -0.1), c & 2 ? 0.1 : -0.1,
                         c & 4 ? 0.05 : -0.05);
  }
  MultibodySystem system;
  ContactMaterial material;
  material.friction = mu;
  system.AddStaticGeometry(HalfSpace{}, Eigen::Isometry3d::Identity(), material);
  system.AddFreeBody("box", MakeConvexMesh(corners, "box"), 1.0, At(-0.3, 0, 0.05),
                     Eigen::Vector3d(v0, 0, 0), Eigen::Vector3d::Zero(), material);
  EXPECT_NEAR(system.tree(0).q[0], 0.0, 1e-12);  // the centre of mass
  TimeStepper stepper(Parameters(dt));
  for (int n = 0; n < 400; ++n) ASSERT_TRUE(stepper.Step(&system).converged);
  const double expected = v0 * v0 / (2 * mu * kGravity);
  EXPECT_NEAR(system.tree(0).q[0], expected, 0.02 * expected);
  EXPECT_NEAR(system.tree(0).q[2], 0.05, 1e-3);  // still flat on the ground
}

}  // namespace
}  // namespace coulomb

namespace coulomb {
namespace {

// The series stiffness k_a k_b/(k_a + k_b), the harmonic mean of μ and the
// stiffness-weighted dissipation, against those formulas by hand at ordinary
// values and against their limits near the largest double, where the
// formulas' products overflow (1e308 · 1e308 = ∞: the pair's stiffness was
// NaN and its step failed).
TEST(ContactMaterial, CombinesValuesNearTheLargestDoubleWithoutOverflow) {
  const auto combined = [](double k_a, double k_b, double mu_a, double mu_b) {
    return CombineContactMaterials({k_a, 0.01, mu_a, 2.0}, {k_b, 0.01, mu_b, 4.0});
  };
  const ContactMaterial ordinary = combined(1e4, 3e4, 0.5, 1.0);
  EXPECT_NEAR(ordinary.stiffness, 1e4 * 3e4 / 4e4, 1e-15 * 7500.0);
  EXPECT_NEAR(ordinary.friction, 2 * 0.5 * 1.0 / 1.5, 1e-15);
  EXPECT_NEAR(ordinary.hunt_crossley_dissipation, (3e4 * 2.0 + 1e4 * 4.0) / 4e4, 1e-15);
  const ContactMaterial swapped = CombineContactMaterials({3e4, 0.01, 1.0, 4.0},  // b, a
                                                          {1e4, 0.01, 0.5, 2.0});
  EXPECT_NEAR(swapped.hunt_crossley_dissipation, ordinary.hunt_crossley_dissipation,
              1e-15);
  EXPECT_NEAR(swapped.stiffness, ordinary.stiffness, 1e-15 * 7500.0);
  const ContactMaterial huge = combined(1e308, 1e308, 1e308, 1e308);
  EXPECT_NEAR(huge.stiffness, 0.5e308, 1e-15 * 0.5e308);  // two equal springs
  EXPECT_NEAR(huge.friction, 1e308, 1e-15 * 1e308);
  EXPECT_NEAR(huge.hunt_crossley_dissipation, 3.0, 1e-15);  // equal k: the mean
  const ContactMaterial lopsided = combined(1e308, 1.0, 1e308, 1.0);
  EXPECT_NEAR(lopsided.stiffness, 1.0, 1e-15);  // the soft spring
  EXPECT_NEAR(lopsided.friction, 2.0, 1e-15);
  EXPECT_NEAR(lopsided.hunt_crossley_dissipation, 4.0, 1e-15);  // the soft side's d
  const ContactMaterial extremes = combined(1e308, 1e-300, 1e308, 1e-300);
  EXPECT_NEAR(extremes.stiffness, 1e-300, 1e-15 * 1e-300);  // the tiny side, not 0
  EXPECT_NEAR(extremes.friction, 2e-300, 1e-15 * 2e-300);
  EXPECT_EQ(combined(1e308, 1e308, 1e308, 0.0).friction, 0.0);
  EXPECT_EQ(combined(1e308, 1e308, 0.0, 0.0).friction, 0.0);
}

TEST(ContactMaterial, MujocosRuleTakesThePairsLargerFriction) {
  const ContactMaterial soft{1e4, 0.01, 0.4}, stiff{3e4, 0.02, 0.8};
  const ContactMaterial pair =
      CombineContactMaterials(soft, stiff, FrictionCombination::kMax);
  EXPECT_EQ(pair.friction, 0.8);
  EXPECT_EQ(CombineContactMaterials(stiff, soft, FrictionCombination::kMax).friction,
            0.8);
  // A frictionless side does not make the pair frictionless.
  EXPECT_EQ(CombineContactMaterials(ContactMaterial{1e4, 0.0, 0.0}, stiff,
                                    FrictionCombination::kMax)
                .friction,
            0.8);
  // The rest combines as under the harmonic mean.
  const ContactMaterial harmonic = CombineContactMaterials(soft, stiff);
  EXPECT_EQ(pair.stiffness, harmonic.stiffness);
  EXPECT_EQ(pair.dissipation_time_scale, harmonic.dissipation_time_scale);
  EXPECT_EQ(pair.hunt_crossley_dissipation, harmonic.hunt_crossley_dissipation);
  EXPECT_EQ(ParseEnum<FrictionCombination>("max"), FrictionCombination::kMax);
  EXPECT_EQ(ParseEnum<FrictionCombination>("harmonic_mean"),
            FrictionCombination::kHarmonicMean);
}

TEST(ContactMaterial, PairsCombineStiffnessInSeriesAndFrictionByHarmonicMean) {
  ContactMaterial soft{1e4, 0.01, 0.4}, stiff{3e4, 0.02, 0.8}, rigid{};
  const ContactMaterial pair = CombineContactMaterials(soft, stiff);
  // Springs in series: 1/k = 1/k_a + 1/k_b.
  EXPECT_DOUBLE_EQ(1.0 / pair.stiffness, 1.0 / 1e4 + 1.0 / 3e4);
  EXPECT_DOUBLE_EQ(pair.dissipation_time_scale, 0.02);
  EXPECT_DOUBLE_EQ(pair.friction, 2 * 0.4 * 0.8 / 1.2);
  // A rigid partner leaves the other's compliance; symmetric in its arguments.
  EXPECT_DOUBLE_EQ(CombineContactMaterials(rigid, soft).stiffness, 1e4);
  EXPECT_DOUBLE_EQ(CombineContactMaterials(soft, rigid).stiffness, 1e4);
  EXPECT_TRUE(std::isinf(CombineContactMaterials(rigid, rigid).stiffness));
  // Frictionless on either side means frictionless.
  EXPECT_EQ(CombineContactMaterials(ContactMaterial{1e4, 0.0, 0.0}, stiff).friction, 0.0);
  // Not given (negative) on both sides stays "not given".
  EXPECT_LT(CombineContactMaterials(rigid, rigid).dissipation_time_scale, 0.0);
  EXPECT_THROW(ValidateContactMaterial(ContactMaterial{1e4, 0.0, -1.0}),
               std::invalid_argument);
  EXPECT_THROW(ValidateContactMaterial(ContactMaterial{0.0, 0.0, 1.0}),
               std::invalid_argument);
}

}  // namespace
}  // namespace coulomb

namespace coulomb {
namespace {

// Runs spring_cylinder and returns the simulation (x is q[0] of the tree).
Simulation RunSpringCylinder(Scheme scheme, double dt, double duration, double friction) {
  Scene scene =
      MakeBuiltinScene("spring_cylinder", {{"friction", std::to_string(friction)}});
  scene.parameters.scheme = scheme;
  scene.parameters.time_step = dt;
  scene.duration = duration;
  Simulation simulation(std::move(scene));
  const SimulationSummary summary = simulation.Run();
  EXPECT_EQ(summary.failed_steps, 0) << summary.failure;
  return simulation;
}

// Spring + kinetic energy: the total minus the (constant) gravity term.
std::vector<double> OscillatorEnergy(const Simulation& simulation) {
  const double gravity_energy = 0.5 * 9.81 * (0.05 - 0.5 * 9.81 / 1e4);
  std::vector<double> energy;
  for (const StepRecord& record : simulation.records()) {
    energy.push_back(record.energy - gravity_energy);
  }
  return energy;
}

TEST(SpringCylinder, EnergyIsConservedByMidpointBoundedBySymplecticLostByImplicitEuler) {
  // SAP §VI-B, μ = 0, δt = 0.02 s (~22 steps per period), 10 s; the initial
  // oscillator energy is ½ k_s x0² = 0.5 J.
  const auto band = [](const std::vector<double>& e) {
    return (*std::max_element(e.begin(), e.end()) -
            *std::min_element(e.begin(), e.end())) /
           0.5;
  };
  const std::vector<double> midpoint =
      OscillatorEnergy(RunSpringCylinder(Scheme::kMidpoint, 0.02, 10.0, 0.0));
  EXPECT_LT(band(midpoint), 1e-6);
  const std::vector<double> symplectic =
      OscillatorEnergy(RunSpringCylinder(Scheme::kSymplecticEuler, 0.02, 10.0, 0.0));
  // Symplectic Euler conserves a modified energy H + O(ω δt H): on an
  // oscillator the energy swings by about ω δt = 0.28 of itself (the paper
  // reports a 28 % band); the window brackets that, and the energy must not
  // decay.
  EXPECT_GT(band(symplectic), 0.1);
  EXPECT_LT(band(symplectic), 0.4);
  EXPECT_GT(symplectic.back(), 0.3);
  // Implicit Euler shrinks the amplitude by (1 + (ω δt)²)^(−1/2) a step: after
  // 500 steps the energy is e^(−38) of its start; 1 % is a loose bound.
  const std::vector<double> implicit =
      OscillatorEnergy(RunSpringCylinder(Scheme::kImplicitEuler, 0.02, 10.0, 0.0));
  EXPECT_LT(implicit.back(), 0.01 * 0.5);
}

// L2 error of x(t) against x0 cos(ω t) over the run.
double PositionError(const Simulation& simulation, double omega) {
  const Trajectory& trajectory = simulation.trajectory();
  double sum = 0.0;
  for (size_t k = 0; k < trajectory.time.size(); ++k) {
    const double error = trajectory.q[k][0] - 0.1 * std::cos(omega * trajectory.time[k]);
    sum += error * error;
  }
  return std::sqrt(sum / trajectory.time.size());
}

TEST(SpringCylinder, MidpointIsSecondOrderAndSymplecticEulerFirstOrder) {
  const double omega = std::sqrt(100.0 / 0.5);
  const auto ratio = [&](Scheme scheme) {
    return PositionError(RunSpringCylinder(scheme, 0.01, 2.0, 0.0), omega) /
           PositionError(RunSpringCylinder(scheme, 0.005, 2.0, 0.0), omega);
  };
  const double midpoint = ratio(Scheme::kMidpoint);
  const double symplectic = ratio(Scheme::kSymplecticEuler);
  std::printf("error ratio δt = 0.01 → 0.005: midpoint %.2f, symplectic Euler %.2f\n",
              midpoint, symplectic);
  // Two step sizes at ω δt = 0.14 and 0.07: the next-order terms shift the
  // ratios by O(ω δt) for symplectic Euler (±25 %) and less for midpoint
  // (±15 %); the windows still tell order 1 (ratio 2) from 2 (ratio 4).
  EXPECT_NEAR(midpoint, 4.0, 0.6);
  EXPECT_NEAR(symplectic, 2.0, 0.5);
}

TEST(SpringCylinder, RollsWithTheEffectiveMassOfASolidCylinder) {
  // μ = 1: no slip, m_eff = m + I/R² = 1.5 m, ω = √(k_s / m_eff); the
  // sliding frequency √(k_s/m) would be off by 22 %.
  const Simulation rolling = RunSpringCylinder(Scheme::kMidpoint, 0.005, 2.0, 1.0);
  EXPECT_LT(PositionError(rolling, std::sqrt(100.0 / 0.75)), 0.005);  // 5 % of x0
  EXPECT_GT(PositionError(rolling, std::sqrt(100.0 / 0.5)), 0.03);
}

// μ = 1 rolling of the compliant model: the cylinder rests δ = m g / k deep
// and its contact point lies halfway through the overlap, so it rolls on the
// radius r = R − δ/2 with m_eff = m + I / r² (I = ½ m R²) and
// x(t) = x0 cos(√(k_s / m_eff) t). With the rigid radius R instead the
// errors stall at the 0.3 % frequency offset (4e-3 m over 5 s).
double RollingPositionError(Scheme scheme, double dt) {
  const double mass = 0.5, radius = 0.05, penetration = mass * 9.81 / 1e4;
  const double rolling_radius = radius - 0.5 * penetration;
  const double inertia = 0.5 * mass * radius * radius;
  const double omega =
      std::sqrt(100.0 / (mass + inertia / (rolling_radius * rolling_radius)));
  return PositionError(RunSpringCylinder(scheme, dt, 5.0, 1.0), omega);
}

double RollingOrder(Scheme scheme, const std::vector<double>& time_steps) {
  std::vector<double> errors;
  for (const double dt : time_steps) errors.push_back(RollingPositionError(scheme, dt));
  return FittedOrder(time_steps, errors);
}

TEST(SpringCylinder, RollingConvergesAtSecondOrderForMidpointFirstForTheEulerSchemes) {
  // SAP §VI-B, μ = 1, T = 5 s, slopes fitted over four step sizes. Implicit
  // Euler's amplitude decay exp(−ω² δt t / 2) is in its linear regime only
  // for δt ≲ 1 ms.
  const std::vector<double> coarse = {0.02, 0.01, 0.005, 0.0025};
  const std::vector<double> fine = {1.25e-3, 6.25e-4, 3.125e-4, 1.5625e-4};
  const double midpoint = RollingOrder(Scheme::kMidpoint, coarse);
  const double symplectic = RollingOrder(Scheme::kSymplecticEuler, coarse);
  const double implicit = RollingOrder(Scheme::kImplicitEuler, fine);
  std::printf(
      "rolling orders: midpoint %.2f, symplectic Euler %.2f, implicit Euler %.2f\n",
      midpoint, symplectic, implicit);
  // Fitted slopes over an 8× range carry the next-order term; ±0.2–0.25
  // tells first order from second by four widths.
  EXPECT_NEAR(midpoint, 2.0, 0.2);
  EXPECT_NEAR(symplectic, 1.0, 0.25);
  EXPECT_NEAR(implicit, 1.0, 0.25);
}

}  // namespace
}  // namespace coulomb
