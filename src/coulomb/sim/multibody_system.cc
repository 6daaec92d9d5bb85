#include "coulomb/sim/multibody_system.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace coulomb {
namespace {

// `material` with the friction a geometry's file gives it, if any.
ContactMaterial WithFileFriction(const ContactMaterial& material,
                                 const std::optional<double>& friction) {
  ContactMaterial own = material;
  if (friction) own.friction = *friction;
  return own;
}

constexpr char kFloatingBase[] = "its floating base";

// The joints of a motion `mode` of a tree (its entries above a tenth of its
// largest), the floating base's six velocities named as one.
std::vector<std::string> JointsOfMotion(const MultibodyTree& model,
                                        const Eigen::VectorXd& mode) {
  std::vector<std::string> joints;
  const double largest = mode.cwiseAbs().maxCoeff();
  for (int i = 0; i < mode.size(); ++i) {
    if (std::abs(mode[i]) < 0.1 * largest) continue;
    const std::string joint = model.has_free_base() && i < 6
                                  ? kFloatingBase
                                  : "joint '" + model.JointOfVelocity(i) + "'";
    if (std::find(joints.begin(), joints.end(), joint) == joints.end())
      joints.push_back(joint);
  }
  return joints;
}

// What a motion `mode` of a tree that moves no mass moves, and the fix: its
// joints when several move together, else the floating base's link or the
// joint and the first link it moves.
std::string MasslessMotion(const MultibodyTree& model, const Eigen::VectorXd& mode) {
  const std::vector<std::string> joints = JointsOfMotion(model, mode);
  if (joints.size() > 1) {
    std::string moving = "moving " + joints[0];
    for (size_t j = 1; j < joints.size(); ++j)
      moving += (j + 1 < joints.size() ? ", " : " and ") + joints[j];
    return moving + " together moves no mass: give the links mass and inertia, " +
           "or fix the base or a joint";
  }
  Eigen::Index velocity = 0;
  mode.cwiseAbs().maxCoeff(&velocity);
  const int body = model.BodyMovedBy(static_cast<int>(velocity));
  const std::string link = body < 0 ? "no link" : "link '" + model.body_name(body) + "'";
  if (joints[0] == kFloatingBase)
    return joints[0] + ", " + link +
           ", lacks mass or inertia: give it both, or fix the base";
  return joints[0] + " moves no mass (" + link +
         " and those beyond it have none): give them a mass, or make the joint fixed";
}

// A robot's M(q) must be positive definite for a step's solve; a floating
// base on a link without mass, or a joint that moves no mass, makes it
// singular, which the first step would report as a bad contact problem. The
// message says what the motion that moves no mass (the eigenvector of M's
// smallest eigenvalue) moves.
void CheckMassMatrix(const std::string& name, MultibodyTree* model,
                     const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  if (q.size() != model->num_positions() || v.size() != model->num_velocities()) return;
  model->SetState(q, v);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> M(model->mass_matrix());
  const Eigen::VectorXd& eigenvalues = M.eigenvalues();  // ascending
  if (eigenvalues.size() == 0 || eigenvalues[0] > 1e-12 * eigenvalues.tail<1>()[0])
    return;
  throw std::invalid_argument(name + ": its mass matrix is singular: " +
                              MasslessMotion(*model, M.eigenvectors().col(0)));
}

}  // namespace

MultibodySystem::MultibodySystem(const Eigen::Vector3d& gravity) : gravity_(gravity) {
  if (!gravity.allFinite()) throw std::invalid_argument("gravity: must be finite");
}

int MultibodySystem::AddTree(const std::string& name, MultibodyTree model,
                             const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  if (q.size() != model.num_positions() || v.size() != model.num_velocities()) {
    throw std::invalid_argument(name + ": state has " + std::to_string(q.size()) +
                                " positions and " + std::to_string(v.size()) +
                                " velocities, expected " +
                                std::to_string(model.num_positions()) + " and " +
                                std::to_string(model.num_velocities()));
  }
  if (!q.allFinite() || !v.allFinite())
    throw std::invalid_argument(name + ": state is not finite");
  if (model.num_velocities() == 0) {  // it would be a clique of no velocities
    throw std::invalid_argument(
        name +
        ": nothing of it moves (a fixed base and no moving joint): add it as "
        "static geometry (AddFixedModel), or give it a floating base");
  }
  model.SetGravity(gravity_);
  trees_.push_back({.name = name,
                    .model = std::move(model),
                    .q = q,
                    .v = v,
                    .springs = {},
                    .limits = {},
                    .controllers = {},
                    .tendons = {},
                    .frictions = {},
                    .target_ranges = {},
                    .couplers = {},
                    .connections = {},
                    .gravity_compensations = {},
                    .sensors = {},
                    .actuators = {},
                    .applied_force = {},
                    .applied_force_W = Eigen::Vector3d::Zero(),
                    .applied_torque_W = Eigen::Vector3d::Zero()});
  return num_trees() - 1;
}

int MultibodySystem::AddFreeBody(
    const std::string& name, const Shape& shape, double mass,
    const Eigen::Isometry3d& X_WG, const Eigen::Vector3d& v_W,
    const Eigen::Vector3d& omega_W, const ContactMaterial& material,
    const std::optional<Eigen::Matrix3d>& inertia_about_com) {
  ValidateShape(shape);
  // The body frame is the shape's centroid (G's origin but for meshes).
  Eigen::Vector3d centroid;
  Eigen::Matrix3d inertia;
  if (inertia_about_com) {
    centroid = Centroid(shape);
    inertia = *inertia_about_com;
  } else {
    const UnitDensityMass unit = UnitDensityMassProperties(shape);
    centroid = unit.centroid;
    inertia = mass / unit.volume * unit.inertia;
  }
  MultibodyTree body = MultibodyTree::FreeBody(name, mass, inertia);
  // Free joint: q = [p_WB, quaternion (x, y, z, w)], v = [ṗ_WB, ω_B].
  const Eigen::Quaterniond rotation(X_WG.linear());
  Eigen::VectorXd q(7), v(6);
  q << X_WG * centroid, rotation.x(), rotation.y(), rotation.z(), rotation.w();
  v << v_W, X_WG.linear().transpose() * omega_W;
  const int index = AddTree(name, std::move(body), q, v);
  Eigen::Isometry3d X_BG = Eigen::Isometry3d::Identity();
  X_BG.translation() = -centroid;
  AddGeometry(shape, index, 0, X_BG, material);
  return index;
}

int MultibodySystem::AddRobot(const std::string& name, MultibodyTree model,
                              const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                              const ContactMaterial& material) {
  const std::vector<BodyGeometry> geometries = model.collision_geometries();
  CheckMassMatrix(name, &model, q, v);
  const int index = AddTree(name, std::move(model), q, v);
  MultibodyTree& tree = trees_[index].model;
  tree.SetState(trees_[index].q, trees_[index].v);
  // The geometry of links welded to the world (a fixed base's root) is the
  // world's: their contacts have no velocity of the robot to act on.
  std::vector<std::pair<int, int>> added;  // geometry id, body
  for (const BodyGeometry& geometry : geometries) {
    const bool is_welded = tree.IsWeldedToWorld(geometry.body);
    const int id =
        is_welded
            ? AddFileGeometry(geometry, -1, 0,
                              tree.body_pose(geometry.body) * geometry.X_BG, material)
            : AddFileGeometry(geometry, index, geometry.body, geometry.X_BG, material);
    if (is_welded)
      SetStaticRole(
          id, {.kind = StaticRole::kWeldedLink, .tree = index, .body = geometry.body});
    for (const auto& [other, body] : added) {
      if (tree.AreAdjacent(body, geometry.body)) collision_world_.ExcludePair(other, id);
    }
    added.emplace_back(id, geometry.body);
  }
  ExcludeInitiallyOverlappingPairs(index);
  for (const WorldGeometry& geometry : tree.world_geometries())
    SetStaticRole(AddFileGeometry(geometry, -1, 0, geometry.X_WG, material),
                  {.kind = StaticRole::kFileWorld, .tree = index, .body = -1});
  for (const std::string& joint : tree.OneDofJointNames()) {
    const MultibodyTree::JointIndex limits = tree.FindOneDofJoint(joint);
    if (std::isfinite(limits.lower_limit) || std::isfinite(limits.upper_limit)) {
      SetJointLimits(index, joint, limits.lower_limit, limits.upper_limit);
    }
  }
  return index;
}

std::vector<int> MultibodySystem::BodyGeometries(int tree, int body) const {
  std::vector<int> geometries;
  for (int geometry = 0; geometry < collision_world_.num_geometries(); ++geometry) {
    const StaticRole role = static_role(geometry);
    if (body >= 0 ? GeometryOnBody(geometry, tree, body)
                  : role.kind == StaticRole::kFileWorld && role.tree == tree)
      geometries.push_back(geometry);
  }
  return geometries;
}

bool MultibodySystem::GeometryOnBody(int geometry, int tree, int body) const {
  const StaticRole role = static_role(geometry);
  if (body >= 0) {
    return collision_world_.OnBody(geometry, tree, body) ||
           (role.kind == StaticRole::kWeldedLink && role.tree == tree &&
            role.body == body);
  }
  const bool of_the_world =  // neither moving nor on a kinematic body
      collision_world_.tree(geometry) < 0 && collision_world_.body(geometry) == 0;
  return of_the_world &&
         (role.kind == StaticRole::kWorld || role.kind == StaticRole::kFileWorld);
}

void MultibodySystem::SetStaticRole(int geometry, const StaticRole& role) {
  if (static_cast<int>(static_roles_.size()) <= geometry)
    static_roles_.resize(geometry + 1);
  static_roles_[geometry] = role;
}

void MultibodySystem::ExcludeBodyPair(int tree, int body_a, int body_b) {
  ExcludeBodyPair(tree, body_a, tree, body_b);
}

void MultibodySystem::ExcludeBodyPair(int tree_a, int body_a, int tree_b, int body_b) {
  CheckTreeIndex(tree_a);
  CheckTreeIndex(tree_b);
  for (int a : BodyGeometries(tree_a, body_a))
    for (int b : BodyGeometries(tree_b, body_b))
      if (a != b) collision_world_.ExcludePair(a, b);
}

void MultibodySystem::ExcludeBodyAndGeometries(int tree, int body,
                                               const std::vector<int>& geometries) {
  CheckTreeIndex(tree);
  for (int b : geometries) {
    if (b < 0 || b >= collision_world_.num_geometries())
      throw std::invalid_argument("ExcludeBodyAndGeometries: no geometry " +
                                  std::to_string(b));
  }
  for (int a : BodyGeometries(tree, body))
    for (int b : geometries)
      if (a != b) collision_world_.ExcludePair(a, b);
}

std::vector<int> MultibodySystem::AddFixedModel(MultibodyTree model,
                                                const ContactMaterial& material,
                                                int world_body) {
  if (model.num_velocities() != 0) {
    throw std::invalid_argument("AddFixedModel: the model has " +
                                std::to_string(model.num_velocities()) +
                                " velocities; add a model that moves with AddRobot");
  }
  if (world_body < 0 || world_body > static_cast<int>(kinematic_bodies_.size()))
    throw std::invalid_argument("AddFixedModel: no world body " +
                                std::to_string(world_body));
  model.SetState(Eigen::VectorXd(0), Eigen::VectorXd(0));  // its one configuration
  const Eigen::Isometry3d X_BW = WorldBodyPose(world_body).inverse();
  std::vector<int> ids;
  for (const BodyGeometry& geometry : model.collision_geometries()) {
    ids.push_back(AddFileGeometry(geometry, -1, world_body,
                                  X_BW * model.body_pose(geometry.body) * geometry.X_BG,
                                  material));
    if (world_body == 0) SetStaticRole(ids.back(), {.kind = StaticRole::kFixedModel});
  }
  for (const WorldGeometry& geometry : model.world_geometries())
    ids.push_back(AddFileGeometry(geometry, -1, 0, geometry.X_WG, material));
  return ids;
}

void MultibodySystem::SetJointFriction(int tree, const std::string& joint,
                                       double friction) {
  CheckTreeIndex(tree);
  if (!(friction >= 0.0) || !std::isfinite(friction)) {
    throw std::invalid_argument(trees_[tree].name + ": joint '" + joint +
                                "': friction must be finite and ≥ 0");
  }
  const int tendon = FindTendon(tree, joint);
  const int velocity =
      tendon >= 0 ? -1 : trees_[tree].model.FindOneDofJoint(joint).velocity;
  std::vector<JointFriction>& frictions = trees_[tree].frictions;
  std::erase_if(frictions, [&joint](const JointFriction& f) { return f.joint == joint; });
  if (friction > 0.0) frictions.push_back({joint, velocity, friction, tendon});
}

void MultibodySystem::AddBodyConnection(int tree, const BodyConnection& connection) {
  CheckTreeIndex(tree);
  const bool across = connection.tree_b >= 0;
  const auto valid = [&](int t, int body) {
    return t < num_trees() && body >= 0 && body < trees_[t].model.num_bodies();
  };
  if (!valid(tree, connection.body_a) ||
      !(across ? valid(connection.tree_b, connection.body_b) && connection.tree_b != tree
               : connection.body_b < 0 || valid(tree, connection.body_b)) ||
      (!across && connection.body_a == connection.body_b) ||
      !connection.p_a.allFinite() || !connection.p_b.allFinite()) {
    throw std::invalid_argument(
        trees_[tree].name +
        ": a connection needs two bodies of the tree (or one and "
        "the world, or one and another tree's) and finite points");
  }
  for (const BodyConnection& other : trees_[tree].connections) {
    if (!connection.name.empty() && other.name == connection.name)
      throw std::invalid_argument(trees_[tree].name + ": two connections are named '" +
                                  connection.name + "'");
  }
  trees_[tree].connections.push_back(connection);
  if (const int mocap = MocapIndex(connection.mocap); mocap >= 0)
    trees_[tree].connections.back().X_WT = WorldBodyPose(mocap_bodies_[mocap].second);
}

void MultibodySystem::AddGravityCompensation(int tree,
                                             const GravityCompensation& compensation) {
  CheckTreeIndex(tree);
  if (compensation.body < 0 || compensation.body >= trees_[tree].model.num_bodies() ||
      !compensation.center.allFinite() || !std::isfinite(compensation.mass)) {
    throw std::invalid_argument(trees_[tree].name +
                                ": gravity compensation needs a body of the tree, a "
                                "finite centre and a finite mass");
  }
  trees_[tree].gravity_compensations.push_back(compensation);
}

void MultibodySystem::AddJointCoupler(int tree, JointCoupler coupler) {
  CheckTreeIndex(tree);
  const std::string at = trees_[tree].name + ": joint '" + coupler.joint + "'";
  const bool finite = std::all_of(coupler.polynomial.begin(), coupler.polynomial.end(),
                                  [](double p) { return std::isfinite(p); }) &&
                      std::isfinite(coupler.reference_origin);
  if (!finite)
    throw std::invalid_argument(at +
                                ": a coupler's coefficients and origin must be finite");
  if (coupler.joint == coupler.reference)
    throw std::invalid_argument(at + ": coupled to itself");
  for (const JointCoupler& other : trees_[tree].couplers)
    if (other.joint == coupler.joint) throw std::invalid_argument(at + ": coupled twice");
  coupler.terms = TermsOf(tree, coupler.joint);
  if (!coupler.reference.empty())
    coupler.reference_terms = TermsOf(tree, coupler.reference);
  trees_[tree].couplers.push_back(std::move(coupler));
}

void MultibodySystem::AddActuatorControl(int tree, const ActuatorControl& actuator) {
  CheckTreeIndex(tree);
  const std::string at = trees_[tree].name + ": actuator '" + actuator.name + "'";
  for (const ActuatorControl& other : trees_[tree].actuators)
    if (other.name == actuator.name)
      throw std::invalid_argument(at + ": a second of that name");
  if (!std::isfinite(actuator.per_control) || !std::isfinite(actuator.gear) ||
      actuator.gear == 0.0)
    throw std::invalid_argument(at +
                                ": its control's scale and its gear must be finite "
                                "(the gear nonzero)");
  const std::vector<JointPdController>& controllers = trees_[tree].controllers;
  const auto last = std::find_if(
      controllers.rbegin(), controllers.rend(),
      [&](const JointPdController& c) { return c.joint == actuator.acted_on; });
  if (last == controllers.rend())
    throw std::invalid_argument(at + ": no controller on '" + actuator.acted_on + "'");
  ActuatorControl added = actuator;
  added.controller = static_cast<int>(std::distance(last, controllers.rend())) - 1;
  trees_[tree].actuators.push_back(std::move(added));
}

int MultibodySystem::FindSensorBody(int tree, const std::string& name,
                                    const std::string& at) const {
  const int body = trees_[tree].model.FindBody(name);
  if (body < 0) throw std::invalid_argument(at + ": no body '" + name + "'");
  return body;
}

void MultibodySystem::AddSensor(int tree, Sensor sensor, const std::string& object,
                                const std::string& reference) {
  CheckTreeIndex(tree);
  const std::string at = trees_[tree].name + ": sensor '" + sensor.name + "'";
  for (const Sensor& other : trees_[tree].sensors)
    if (other.name == sensor.name)
      throw std::invalid_argument(at + ": a second of that name");
  if (!sensor.X_BS.matrix().allFinite() || !sensor.X_BR.matrix().allFinite() ||
      !sensor.size.allFinite() || !(sensor.cutoff >= 0.0) ||
      !std::isfinite(sensor.cutoff))
    throw std::invalid_argument(at + ": its frame, size and cutoff must be finite");
  if (sensor.unit() && sensor.cutoff > 0.0)
    throw std::invalid_argument(at + ": an orientation or an axis takes no cutoff");
  const bool on_tendon = sensor.kind == Sensor::Kind::kTendonLength ||
                         sensor.kind == Sensor::Kind::kTendonVelocity;
  if (on_tendon && FindTendon(tree, object) < 0)
    throw std::invalid_argument(at + ": no fixed tendon named '" + object + "'");
  if (sensor.on_actuator()) {
    const std::vector<ActuatorControl>& actuators = trees_[tree].actuators;
    const auto found =
        std::find_if(actuators.begin(), actuators.end(),
                     [&](const ActuatorControl& a) { return a.name == object; });
    if (found == actuators.end())
      throw std::invalid_argument(at + ": no actuator named '" + object + "'");
    sensor.actuator = static_cast<int>(found - actuators.begin());
    sensor.terms = TermsOf(tree, found->acted_on);
    for (JointTerm& term : sensor.terms) term.coefficient *= found->gear;
  } else if (sensor.on_coordinate()) {
    if (!on_tendon)
      trees_[tree].model.FindOneDofJoint(object);  // throws for another name
    sensor.terms = TermsOf(tree, object);
  } else if (!object.empty()) {
    sensor.body = FindSensorBody(tree, object, at);
  }
  if (!reference.empty() && !sensor.relative())
    throw std::invalid_argument(at +
                                ": only a frame's position, orientation, axes and "
                                "velocities are read relative to a reference frame");
  if (!reference.empty()) sensor.reference_body = FindSensorBody(tree, reference, at);
  const bool wrench =
      sensor.kind == Sensor::Kind::kForce || sensor.kind == Sensor::Kind::kTorque;
  // (A subtree of the world, body −1, is every tree's.)
  if ((wrench && sensor.body < 0) ||
      ((wrench || sensor.on_subtree()) && sensor.body >= 0 &&
       !trees_[tree].model.CarriedByJoint(sensor.body)))
    throw std::invalid_argument(
        at +
        (wrench ? ": a force or torque sensor needs a site on a link"
                : ": a subtree sensor needs a body") +
        " that a joint moves (not the world's, not one welded to its parent)");
  trees_[tree].sensors.push_back(std::move(sensor));
}

void MultibodySystem::SetJointTargetRange(int tree, const JointTargetRange& range) {
  CheckTreeIndex(tree);
  if (!(range.lower < range.upper)) {
    throw std::invalid_argument(trees_[tree].name + ": joint '" + range.joint +
                                "': a target range needs lower < upper");
  }
  if (FindTendon(tree, range.joint) < 0)
    trees_[tree].model.FindOneDofJoint(range.joint);  // throws for a bad joint
  std::vector<JointTargetRange>& ranges = trees_[tree].target_ranges;
  std::erase_if(ranges,
                [&range](const JointTargetRange& r) { return r.joint == range.joint; });
  ranges.push_back(range);
}

void MultibodySystem::SetJointLimits(int tree, const std::string& joint, double lower,
                                     double upper) {
  CheckTreeIndex(tree);
  if (!(lower < upper) || std::isnan(lower) || std::isnan(upper)) {
    throw std::invalid_argument(trees_[tree].name + ": joint '" + joint +
                                "': limits need lower < upper");
  }
  if (const int tendon = FindTendon(tree, joint); tendon >= 0) {
    trees_[tree].tendons[tendon].lower = lower;
    trees_[tree].tendons[tendon].upper = upper;
    return;
  }
  const MultibodyTree::JointIndex index = trees_[tree].model.FindOneDofJoint(joint);
  std::vector<JointLimit>& limits = trees_[tree].limits;
  std::erase_if(limits,
                [&joint](const JointLimit& limit) { return limit.joint == joint; });
  limits.push_back({joint, index.position, index.velocity, lower, upper});
}

void MultibodySystem::AddJointPdController(
    int tree, const std::string& joint, const PdControllerConstraint::Parameters& gains) {
  CheckTreeIndex(tree);
  try {
    ValidatePdControllerParameters(gains);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(trees_[tree].name + ": joint '" + joint +
                                "': " + e.what());
  }
  const int tendon = FindTendon(tree, joint);
  if (tendon >= 0) {
    trees_[tree].controllers.push_back({joint, -1, -1, gains, tendon});
    return;
  }
  const MultibodyTree::JointIndex index = trees_[tree].model.FindOneDofJoint(joint);
  trees_[tree].controllers.push_back({joint, index.position, index.velocity, gains});
}

int MultibodySystem::AddFixedTendon(
    int tree, const std::string& name,
    const std::vector<std::pair<std::string, double>>& joints) {
  CheckTreeIndex(tree);
  const MultibodyTree& model = trees_[tree].model;
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument(trees_[tree].name + ": tendon '" + name + "': " + what);
  };
  const std::vector<std::string> joint_names = model.OneDofJointNames();
  if (FindTendon(tree, name) >= 0 ||
      std::find(joint_names.begin(), joint_names.end(), name) != joint_names.end())
    fail("a joint or another tendon has that name");
  if (joints.empty()) fail("no joints");
  FixedTendon tendon{name, {}};
  for (const auto& [joint, coefficient] : joints) {
    if (!std::isfinite(coefficient))
      fail("joint '" + joint + "': coefficient not finite");
    const MultibodyTree::JointIndex index = model.FindOneDofJoint(joint);
    tendon.terms.push_back({index.position, index.velocity, coefficient});
  }
  trees_[tree].tendons.push_back(std::move(tendon));
  return static_cast<int>(trees_[tree].tendons.size()) - 1;
}

int MultibodySystem::FindTendon(int tree, const std::string& name) const {
  CheckTreeIndex(tree);
  return FindFixedTendon(trees_[tree].tendons, name);
}

void MultibodySystem::CheckTreeIndex(int tree) const {
  if (tree < 0 || tree >= num_trees())
    throw std::invalid_argument("no tree " + std::to_string(tree));
}

void MultibodySystem::ExcludeInitiallyOverlappingPairs(int tree) {
  const auto is_robots = [&](int geometry) {
    const StaticRole role = static_role(geometry);
    return collision_world_.tree(geometry) == tree ||
           (role.kind == StaticRole::kWeldedLink && role.tree == tree);
  };
  std::vector<Eigen::Isometry3d> poses;
  UpdateAllTrees();
  CalcGeometryPoses(&poses);
  std::vector<ContactPoint> contacts;
  collision_world_.ComputeContacts(poses, 0.0, &contacts);
  for (const ContactPoint& contact : contacts) {
    if (is_robots(contact.geometry_a) && is_robots(contact.geometry_b)) {
      collision_world_.ExcludePair(contact.geometry_a, contact.geometry_b);
    }
  }
}

void MultibodySystem::AddJointSpringDamper(int tree, const std::string& joint,
                                           double stiffness, double rest_position,
                                           double damping) {
  CheckTreeIndex(tree);
  if (!(stiffness >= 0.0) || !std::isfinite(stiffness) || !(damping >= 0.0) ||
      !std::isfinite(damping) || !std::isfinite(rest_position)) {
    throw std::invalid_argument(trees_[tree].name + ": joint '" + joint +
                                "': spring stiffness and damping must be finite and ≥ 0");
  }
  trees_[tree].springs.push_back(
      {TermsOf(tree, joint), stiffness, rest_position, damping});
}

std::vector<JointTerm> MultibodySystem::TermsOf(int tree, const std::string& name) const {
  if (const int tendon = FindTendon(tree, name); tendon >= 0)
    return trees_[tree].tendons[tendon].terms;
  const MultibodyTree::JointIndex index = trees_[tree].model.FindOneDofJoint(name);
  return {{index.position, index.velocity, 1.0}};
}

int MultibodySystem::AddStaticGeometry(const Shape& shape, const Eigen::Isometry3d& X_WG,
                                       const ContactMaterial& material) {
  return AddGeometry(shape, -1, 0, X_WG, material);
}

int MultibodySystem::AddKinematicBody(const PrescribedMotion& motion) {
  ValidatePrescribedMotion(motion);
  kinematic_bodies_.push_back(motion);
  return static_cast<int>(kinematic_bodies_.size());
}

namespace {

void CheckMocapPose(const std::string& name, const Eigen::Isometry3d& X_WB) {
  if (!IsConnectionFrame(X_WB)) {
    throw std::invalid_argument("mocap body '" + name +
                                "': its pose must be finite, its orientation a rotation");
  }
}

}  // namespace

int MultibodySystem::AddMocapBody(const std::string& name,
                                  const Eigen::Isometry3d& X_WB) {
  if (MocapIndex(name) >= 0)
    throw std::invalid_argument("two mocap bodies are named '" + name + "'");
  CheckMocapPose(name, X_WB);
  PrescribedMotion motion;
  motion.X_WB0 = X_WB;
  mocap_bodies_.emplace_back(name, AddKinematicBody(motion));
  SetMocapPose(name, X_WB);  // the connections that name it
  return mocap_bodies_.back().second;
}

std::vector<std::string> MultibodySystem::mocap_names() const {
  std::vector<std::string> names;
  for (const auto& [name, body] : mocap_bodies_) names.push_back(name);
  return names;
}

int MultibodySystem::MocapIndex(const std::string& name) const {
  for (size_t k = 0; k < mocap_bodies_.size(); ++k)
    if (mocap_bodies_[k].first == name) return static_cast<int>(k);
  return -1;
}

int MultibodySystem::FindMocap(const std::string& name) const {
  if (const int mocap = MocapIndex(name); mocap >= 0) return mocap;
  std::string names;
  for (const auto& [known, body] : mocap_bodies_)
    names += (names.empty() ? "" : ", ") + known;
  throw std::invalid_argument("no mocap body named '" + name + "' (" +
                              (names.empty() ? "the scene has none" : "it has " + names) +
                              ")");
}

Eigen::Isometry3d MultibodySystem::MocapPose(const std::string& name) const {
  return kinematic_bodies_[mocap_bodies_[FindMocap(name)].second - 1].X_WB0;
}

void MultibodySystem::SetMocapPose(const std::string& name,
                                   const Eigen::Isometry3d& X_WB) {
  const int mocap = FindMocap(name);
  CheckMocapPose(name, X_WB);
  kinematic_bodies_[mocap_bodies_[mocap].second - 1].X_WB0 = X_WB;
  for (Tree& tree : trees_)
    for (BodyConnection& connection : tree.connections)
      if (connection.mocap == name) connection.X_WT = X_WB;
}

Eigen::Isometry3d MultibodySystem::WorldBodyPose(int body) const {
  return body == 0 ? Eigen::Isometry3d::Identity()
                   : kinematic_bodies_[body - 1].PoseAt(time_);
}

Eigen::Vector3d MultibodySystem::WorldBodyVelocity(int body, double time_step) const {
  return body == 0 ? Eigen::Vector3d::Zero()
                   : kinematic_bodies_[body - 1].MeanVelocity(time_, time_step);
}

template <typename FileGeometry>
int MultibodySystem::AddFileGeometry(const FileGeometry& geometry, int tree, int body,
                                     const Eigen::Isometry3d& X_BG,
                                     const ContactMaterial& material) {
  const int id = AddGeometry(geometry.shape, tree, body, X_BG,
                             WithFileFriction(material, geometry.friction));
  collision_world_.SetCollisionFilter(id, geometry.filter);
  return id;
}

int MultibodySystem::AddGeometry(const Shape& shape, int tree, int body,
                                 const Eigen::Isometry3d& X_BG,
                                 const ContactMaterial& material) {
  ValidateContactMaterial(material);
  const int num_bodies = tree >= 0 ? trees_[tree].model.num_bodies()
                                   : static_cast<int>(kinematic_bodies_.size()) + 1;
  if (tree >= num_trees() || body < 0 || body >= num_bodies) {
    throw std::invalid_argument("geometry on a body that does not exist (tree " +
                                std::to_string(tree) + ", body " + std::to_string(body) +
                                ")");
  }
  const int id = collision_world_.AddGeometry(shape, tree, body, X_BG);
  materials_.push_back(material);
  if (!collision_world_.is_fixed(id)) moving_geometries_.push_back(id);
  if (std::find(dissipation_time_scales_.begin(), dissipation_time_scales_.end(),
                material.dissipation_time_scale) == dissipation_time_scales_.end())
    dissipation_time_scales_.push_back(material.dissipation_time_scale);
  return id;
}

void MultibodySystem::GatherTreeStates() {
  // The old blocks are kept until every new one is allocated, so that none
  // of the new ones takes an old one's place.
  std::vector<Eigen::VectorXd> old_states;
  old_states.reserve(2 * trees_.size());
  for (Tree& tree : trees_) {
    old_states.push_back(std::move(tree.q));
    old_states.push_back(std::move(tree.v));
  }
  for (size_t t = 0; t < trees_.size(); ++t) {
    trees_[t].q = old_states[2 * t];
    trees_[t].v = old_states[2 * t + 1];
  }
}

void MultibodySystem::UpdateAllTrees() {
  for (Tree& t : trees_) t.model.SetState(t.q, t.v);
}

void MultibodySystem::CalcGeometryPoses(std::vector<Eigen::Isometry3d>* X_WG) const {
  X_WG->resize(collision_world_.num_geometries());
  for (int g = 0; g < collision_world_.num_geometries(); ++g)
    (*X_WG)[g] = GeometryPose(g);
}

void MultibodySystem::UpdateGeometryPoses(std::vector<Eigen::Isometry3d>* X_WG) const {
  if (static_cast<int>(X_WG->size()) != collision_world_.num_geometries()) {
    CalcGeometryPoses(X_WG);
    return;
  }
  for (const int g : moving_geometries_) (*X_WG)[g] = GeometryPose(g);
}

Eigen::Isometry3d MultibodySystem::GeometryPose(int g) const {
  const int t = collision_world_.tree(g);
  const Eigen::Isometry3d& X_BG = collision_world_.pose_in_body(g);
  const int body = collision_world_.body(g);
  if (t >= 0 && body == 0 && trees_[t].model.free_body_mass() != nullptr) {
    // X_WB X_BG from the free body's R_WB and p_W, without forming X_WB (a
    // body welded to it composes its own pose below).
    const MultibodyTree& model = trees_[t].model;
    Eigen::Isometry3d pose;
    pose.linear().noalias() = model.free_body_rotation() * X_BG.linear();
    pose.translation().noalias() = model.free_body_rotation() * X_BG.translation();
    pose.translation() += model.free_body_position();
    pose.makeAffine();
    return pose;
  }
  const Eigen::Isometry3d X_WB =
      t < 0 ? WorldBodyPose(body) : trees_[t].model.body_pose(body);
  return X_WB * X_BG;
}

MultibodySystem::Energies MultibodySystem::CalcEnergies() const {
  Energies energies;
  for (const Tree& t : trees_) {
    energies.kinetic += t.model.KineticEnergy();
    energies.gravity += t.model.GravityPotentialEnergy();
    energies.springs += SpringPotentialEnergy(t.springs, t.q);
    for (const GravityCompensation& c : t.gravity_compensations)
      energies.gravity_compensation +=
          c.mass * gravity_.dot(t.model.body_pose(c.body) * c.center);
  }
  return energies;
}

double MultibodySystem::MechanicalEnergy() const {
  const Energies energies = CalcEnergies();
  return energies.kinetic + energies.gravity + energies.springs +
         energies.gravity_compensation;
}

MultibodyTree::SubtreeMomentum MultibodySystem::CalcMomentum() const {
  // In one pass over the trees (no list of their parts): their mass, first
  // moment Σ m_i c_i, momentum p = Σ m_i ċ_i and angular momentum about the
  // world's origin L_O = Σ (L_i + c_i × m_i ċ_i); then L_c = L_O − c × p.
  MultibodyTree::SubtreeMomentum all;
  Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();
  Eigen::Vector3d momentum = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular_momentum_O = Eigen::Vector3d::Zero();
  for (const Tree& t : trees_) {
    const MultibodyTree::SubtreeMomentum part = t.model.Subtree(-1);
    const Eigen::Vector3d part_momentum = part.mass * part.com_velocity_W;
    all.mass += part.mass;
    first_moment += part.mass * part.com_W;
    momentum += part_momentum;
    angular_momentum_O += part.angular_momentum_W + part.com_W.cross(part_momentum);
  }
  if (!(all.mass > 0.0)) return all;
  all.com_W = first_moment / all.mass;
  all.com_velocity_W = momentum / all.mass;
  all.angular_momentum_W = angular_momentum_O - all.com_W.cross(momentum);
  return all;
}

int MultibodySystem::num_velocities() const {
  int total = 0;
  for (const Tree& tree : trees_) total += tree.model.num_velocities();
  return total;
}

}  // namespace coulomb
