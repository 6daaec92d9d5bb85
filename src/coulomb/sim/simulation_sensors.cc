// Simulation's sensor readings (simulation.h): kinematic ones from the
// trees' state (sensors.h), forces from the last step's solution, and rays.
#include "coulomb/sim/simulation.h"

#include <cmath>
#include <optional>
#include <utility>

#include "coulomb/geometry/ray_cast.h"

namespace coulomb {

std::vector<std::string> Simulation::sensor_names(const std::string& tree) const {
  return NamesOf(scene_.system.tree(FindTree(tree)).sensors);
}

namespace {

// The numbers of a row of `tree`'s sensor readings stacked.
Eigen::Index StackedSize(const MultibodySystem::Tree& tree) {
  Eigen::Index size = 0;
  for (const Sensor& sensor : tree.sensors) size += sensor.dimension();
  return size;
}

}  // namespace

std::vector<Eigen::VectorXd> Simulation::SensorReadings(const std::string& tree) const {
  const int t = FindTree(tree);
  const MultibodySystem::Tree& owner = scene_.system.tree(t);
  Eigen::VectorXd stacked(StackedSize(owner));
  SensorScratch scratch;
  StackSensorReadings(t, &scratch, stacked);
  std::vector<Eigen::VectorXd> readings;
  Eigen::Index at = 0;
  for (const Sensor& sensor : owner.sensors) {
    readings.emplace_back(stacked.segment(at, sensor.dimension()));
    at += sensor.dimension();
  }
  return readings;
}

void Simulation::RecordSensors() {
  for (int t = 0; t < scene_.system.num_trees(); ++t) {
    const MultibodySystem::Tree& tree = scene_.system.tree(t);
    if (!tree.sensors.empty())
      StackSensorReadings(t, &recorded_sensor_scratch_,
                          trajectory_.sensor_samples[t].Append(StackedSize(tree)));
  }
}

void Simulation::StackSensorReadings(int t, SensorScratch* scratch,
                                     Eigen::Ref<Eigen::VectorXd> readings) const {
  const MultibodySystem::Tree& owner = scene_.system.tree(t);
  // What several sensors share, computed once, when the first needs it (in
  // `scratch` or here).
  bool have_efforts = false, have_actuator_forces = false, have_poses = false,
       have_dynamics = false;
  std::optional<MultibodySystem::Energies> energies;
  std::optional<MultibodyTree::SubtreeMomentum> momentum;  // the world's subtree
  Eigen::Index at = 0;
  for (const Sensor& sensor : owner.sensors) {
    SensorValue value = SensorValue::Zero(sensor.dimension());
    if (sensor.kind == Sensor::Kind::kJointActuatorForce) {
      if (!std::exchange(have_efforts, true))
        CalcJointEffortsByVelocity(t, &scratch->efforts);
      value[0] = scratch->efforts[sensor.terms[0].velocity];
      value = ApplyCutoff(sensor, value);
    } else if (sensor.kind == Sensor::Kind::kActuatorForce) {
      if (!std::exchange(have_actuator_forces, true))
        CalcActuatorForces(t, &scratch->actuator_forces);
      value[0] = scratch->actuator_forces[sensor.actuator];
      value = ApplyCutoff(sensor, value);
    } else if (sensor.kind == Sensor::Kind::kClock) {
      value[0] = time();
      value = ApplyCutoff(sensor, value);
    } else if (sensor.kind == Sensor::Kind::kPotentialEnergy ||
               sensor.kind == Sensor::Kind::kKineticEnergy) {
      if (!energies) energies = scene_.system.CalcEnergies();
      value[0] = sensor.kind == Sensor::Kind::kKineticEnergy
                     ? energies->kinetic
                     : energies->gravity + energies->springs;
      value = ApplyCutoff(sensor, value);
    } else if (sensor.kind == Sensor::Kind::kRangefinder) {
      if (!std::exchange(have_poses, true))  // the world's own kept from the last reading
        scene_.system.UpdateGeometryPoses(&scratch->X_WG);
      const Eigen::Isometry3d X_WS = SensorFrame(sensor, owner.model);
      value[0] = CastRayAmong(scratch->X_WG, X_WS.translation(), X_WS.linear().col(2), t,
                              sensor.body)
                     .value_or(-1.0);
      value = ApplyCutoff(sensor, value);
    } else if (sensor.kind == Sensor::Kind::kTouch) {
      value[0] = TouchForce(t, sensor);
      value = ApplyCutoff(sensor, value);
    } else if (sensor.on_subtree() && sensor.body < 0) {
      if (!momentum) momentum = scene_.system.CalcMomentum();
      value = ReadSubtreeSensor(sensor, *momentum);
    } else if (sensor.on_dynamics()) {
      if (!std::exchange(have_dynamics, true)) {  // (the forces for a force or torque)
        CalcLastStepAccelerations(t, &scratch->accelerations);
        CalcLastStepContactForces(t, &scratch->contact_forces);
      }
      value = ApplyCutoff(sensor, ReadDynamicSensor(t, sensor, scratch->accelerations,
                                                    scratch->contact_forces));
    } else {
      value = ReadKinematicSensor(sensor, owner.model, owner.q, owner.v);
    }
    readings.segment(at, value.size()) = value;
    at += value.size();
  }
}

namespace {

// Throw std::invalid_argument for a ray's origin that is not finite, or its
// direction (named `what`) not finite or zero.
void CheckRayOrigin(const Eigen::Vector3d& origin) {
  if (!origin.allFinite())
    throw std::invalid_argument("origin: a ray needs a finite origin");
}
void CheckRayDirection(const Eigen::Vector3d& direction, const std::string& what) {
  if (!direction.allFinite() || !(direction.norm() > 0.0))
    throw std::invalid_argument(what + ": a ray needs a finite, nonzero direction");
}

}  // namespace

std::optional<double> Simulation::CastRay(const Eigen::Vector3d& origin_W,
                                          const Eigen::Vector3d& direction_W,
                                          int exclude_tree, int exclude_body) const {
  CheckRayOrigin(origin_W);
  CheckRayDirection(direction_W, "direction");
  std::vector<Eigen::Isometry3d> X_WG;
  scene_.system.CalcGeometryPoses(&X_WG);
  return CastRayAmong(X_WG, origin_W, direction_W.normalized(), exclude_tree,
                      exclude_body);
}

Eigen::VectorXd Simulation::CastRays(
    const Eigen::Vector3d& origin_W,
    const Eigen::Matrix<double, Eigen::Dynamic, 3>& directions_W, int exclude_tree,
    int exclude_body) const {
  CheckRayOrigin(origin_W);
  for (Eigen::Index k = 0; k < directions_W.rows(); ++k)
    CheckRayDirection(directions_W.row(k).transpose(), "direction " + std::to_string(k));
  std::vector<Eigen::Isometry3d> X_WG;
  scene_.system.CalcGeometryPoses(&X_WG);
  Eigen::VectorXd distances(directions_W.rows());
  for (Eigen::Index k = 0; k < directions_W.rows(); ++k) {
    const Eigen::Vector3d direction_W = directions_W.row(k).transpose();
    distances[k] =
        CastRayAmong(X_WG, origin_W, direction_W.normalized(), exclude_tree, exclude_body)
            .value_or(-1.0);
  }
  return distances;
}

namespace {

// Whether the ray o + t d (d a unit vector, t ≥ 0) can meet a shape that
// the sphere of radius r about c holds, nearer than `nearest`: its line
// passes within r of c, and enters the sphere neither behind o nor beyond
// `nearest` (the shape's crossing lies within the sphere's chord). r is
// widened by a relative 1e-9 so that rounding never culls a grazing ray.
bool RayMayMeetSphere(const Eigen::Vector3d& c, double r, const Eigen::Vector3d& o,
                      const Eigen::Vector3d& d, const std::optional<double>& nearest) {
  if (!std::isfinite(r)) return true;  // a half-space
  const double reach = r + 1e-9 * (1.0 + r);
  const Eigen::Vector3d w = c - o;
  const double along = w.dot(d);  // t of the line's closest approach to c
  const double off_squared = (w - along * d).squaredNorm();
  if (off_squared > reach * reach) return false;
  const double half_chord = std::sqrt(reach * reach - off_squared);
  return along + half_chord >= 0.0 && (!nearest || along - half_chord <= *nearest);
}

}  // namespace

std::optional<double> Simulation::CastRayAmong(const std::vector<Eigen::Isometry3d>& X_WG,
                                               const Eigen::Vector3d& origin_W,
                                               const Eigen::Vector3d& d_W,
                                               int exclude_tree, int exclude_body) const {
  const CollisionWorld& world = scene_.system.collision_world();
  std::optional<double> nearest;
  for (int g = 0; g < world.num_geometries(); ++g) {
    if (LeftOutOfRay(g, exclude_tree, exclude_body) ||
        !RayMayMeetSphere(X_WG[g].translation(), world.bounding_radius(g), origin_W, d_W,
                          nearest))
      continue;
    const Eigen::Isometry3d X_GW = X_WG[g].inverse();
    const std::optional<double> t =
        RayDistance(world.shape(g), X_GW * origin_W, X_GW.linear() * d_W);
    if (t && (!nearest || *t < *nearest)) nearest = t;
  }
  return nearest;
}

bool Simulation::LeftOutOfRay(int geometry, int tree, int body) const {
  return tree >= 0 && scene_.system.GeometryOnBody(geometry, tree, body);
}

double Simulation::TouchForce(int tree, const Sensor& sensor) const {
  const MultibodySystem& system = scene_.system;
  const Eigen::Isometry3d X_SW = SensorFrame(sensor, system.tree(tree).model).inverse();
  double force = 0.0;
  VisitLastContacts([&](const ContactPoint& point, const Eigen::Vector3d& gamma_W) {
    if ((system.GeometryOnBody(point.geometry_a, tree, sensor.body) ||
         system.GeometryOnBody(point.geometry_b, tree, sensor.body)) &&
        sensor.Contains(X_SW * point.p_W))
      force += std::abs(gamma_W.dot(point.normal_W)) / time_step();
  });
  return force;
}

void Simulation::CalcLastStepAccelerations(int tree, Eigen::VectorXd* a) const {
  const MultibodySystem::Tree& owner = scene_.system.tree(tree);
  if (step_start_v_.size() != v().size() || !last_statistics_.converged) {
    a->setZero(owner.v.size());
    return;
  }
  const auto [first, count] = VelocityRangeOfTree(tree);
  *a = (owner.v - step_start_v_.segment(first, count)) / time_step();
}

void Simulation::CalcLastStepContactForces(
    int tree, std::vector<MultibodyTree::PointForce>* forces) const {
  const CollisionWorld& world = scene_.system.collision_world();
  forces->clear();
  if (step_start_v_.size() != v().size()) return;
  VisitLastContacts([&](const ContactPoint& point, const Eigen::Vector3d& gamma_W) {
    // γ acts on B, −γ on A.
    for (const auto& [geometry, sign] :
         {std::pair{point.geometry_b, 1.0}, std::pair{point.geometry_a, -1.0}}) {
      if (world.tree(geometry) == tree)
        forces->push_back(
            {world.body(geometry), point.p_W, sign * gamma_W / time_step()});
    }
  });
}

SensorValue Simulation::ReadDynamicSensor(
    int tree, const Sensor& sensor, const Eigen::VectorXd& a,
    const std::vector<MultibodyTree::PointForce>& forces) const {
  const MultibodyTree& model = scene_.system.tree(tree).model;
  const Eigen::Isometry3d X_WS = SensorFrame(sensor, model);
  const Eigen::Matrix3d R_SW = X_WS.linear().transpose();
  if (sensor.kind != Sensor::Kind::kForce && sensor.kind != Sensor::Kind::kTorque) {
    const auto [alpha_W, a_S] =
        sensor.body < 0
            ? std::pair{Eigen::Vector3d::Zero().eval(), Eigen::Vector3d::Zero().eval()}
            : model.PointAcceleration(sensor.body, X_WS.translation(), a);
    if (sensor.kind == Sensor::Kind::kFrameAngularAcceleration) return alpha_W;
    const Eigen::Vector3d proper_W = a_S - model.gravity();  // what an IMU feels
    return sensor.kind == Sensor::Kind::kAccelerometer ? Eigen::Vector3d(R_SW * proper_W)
                                                       : proper_W;
  }
  const auto [force, torque] =
      model.ParentWrench(sensor.body, a, forces, X_WS.translation());
  return R_SW * (sensor.kind == Sensor::Kind::kForce ? force : torque);
}

}  // namespace coulomb
