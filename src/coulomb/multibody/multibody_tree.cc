// The Pinocchio adapter: the only translation unit that includes Pinocchio.
#include "coulomb/multibody/multibody_tree.h"

#include "coulomb/base/captured_stderr.h"
#include "coulomb/base/replace_all.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <coal/BVH/BVH_model.h>
#include <coal/mesh_loader/loader.h>
#include <coal/shape/geometric_shapes.h>
#include <boost/property_tree/ptree.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/energy.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/kinematics.hpp>
#include <pinocchio/algorithm/model.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody/data.hpp>
#include <pinocchio/multibody/geometry.hpp>
#include <pinocchio/multibody/model.hpp>
#include <pinocchio/parsers/mjcf.hpp>
#include <pinocchio/parsers/urdf.hpp>

#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/multibody/mjcf_body_file.h"
#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_geoms.h"

namespace coulomb {
namespace {

// The free joint of a free body or floating base: a translation in world
// followed by a spherical joint, so q = [p_WB, quaternion x, y, z, w] and
// v = [ṗ_WB (world), ω_B (body)], and q̇ = N(q) v integrates positions on
// R³ × SO(3). Pinocchio's JointModelFreeFlyer uses the body-frame twist
// instead: its linear equation carries the Coriolis term ω × m v_B, which an
// explicit step turns into growth of |v| by √(1 + (ω δt)²) per step (a ball
// rolling at ω δt = 0.15 gains 1% energy a step), and its SE(3) integration
// moves the origin along the twist's screw. The two are separate joints in
// series (a massless link between them), not a composite joint: Pinocchio's
// algorithms allocate on every call for composite joints.
// Returns the spherical joint, to which the body is attached. On a model
// with no joint yet, the two are joints 1 and 2:
constexpr pinocchio::JointIndex kFreeTranslation = 1, kFreeRotation = 2;
pinocchio::JointIndex AddFreeJoint(pinocchio::Model* model, const std::string& name) {
  const auto translation =
      model->addJoint(0, pinocchio::JointModelTranslation(), pinocchio::SE3::Identity(),
                      name + "_translation");
  const auto rotation = model->addJoint(translation, pinocchio::JointModelSpherical(),
                                        pinocchio::SE3::Identity(), name + "_joint");
  const auto translation_frame = model->addJointFrame(translation, 0);
  model->addJointFrame(rotation, static_cast<int>(translation_frame));
  return rotation;
}

// What a parser's exception says, on one line: Pinocchio's errors give the
// file, function and line of its own source before "message:" and the
// message; only the message is the user's.
std::string ParserMessage(const std::exception& e) {
  std::string text = e.what();
  constexpr std::string_view kMessage = "\nmessage:\n";
  if (const size_t at = text.find(kMessage); at != std::string::npos)
    text.erase(0, at + kMessage.size());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// A mesh file's vertices, scaled (LoadTriangleMesh), as a Coal BVHModel
// whose tree is never built: a mesh becomes the convex hull of its vertices
// (ToShape reads nothing else), so the tree of oriented boxes Coal's own
// loader builds (most of the time a robot of meshes took to load) would be
// thrown away.
class MeshVerticesLoader final : public coal::MeshLoader {
 public:
  coal::BVHModelPtr_t load(const std::string& filename,
                           const coal::Vec3s& scale) override {
    TriangleMesh mesh = LoadTriangleMesh(filename, scale);
    auto model = std::make_shared<coal::BVHModel<coal::AABB>>();
    model->num_vertices = static_cast<unsigned>(mesh.vertices.size());
    model->vertices =
        std::make_shared<std::vector<coal::Vec3s>>(std::move(mesh.vertices));
    return model;
  }
};

// Our shape for a Coal primitive, or the convex hull of a mesh's vertices
// (already scaled by the loader); nullopt for other types.
std::optional<Shape> ToShape(const coal::CollisionGeometry& geometry,
                             const std::string& mesh_path) {
  if (const auto* mesh = dynamic_cast<const coal::BVHModelBase*>(&geometry)) {
    if (!mesh->vertices) return std::nullopt;
    return MakeConvexMesh(
        {mesh->vertices->begin(), mesh->vertices->begin() + mesh->num_vertices},
        mesh_path);
  }
  if (const auto* box = dynamic_cast<const coal::Box*>(&geometry)) {
    return Box{2.0 * box->halfSide};
  }
  if (const auto* sphere = dynamic_cast<const coal::Sphere*>(&geometry)) {
    return Sphere{sphere->radius};
  }
  if (const auto* cylinder = dynamic_cast<const coal::Cylinder*>(&geometry)) {
    return Cylinder{cylinder->radius, 2.0 * cylinder->halfLength};
  }
  if (const auto* capsule = dynamic_cast<const coal::Capsule*>(&geometry)) {
    return Capsule{capsule->radius, 2.0 * capsule->halfLength};
  }
  if (dynamic_cast<const coal::Halfspace*>(&geometry)) return HalfSpace{};
  if (const auto* ellipsoid = dynamic_cast<const coal::Ellipsoid*>(&geometry)) {
    return Ellipsoid{ellipsoid->radii};
  }
  return std::nullopt;
}

// X_OG: where ToShape's shape G sits in the Coal geometry's frame O. The
// identity, but for a half-space {x : n·x ≤ d}, whose G (the region z ≤ 0)
// has z along n and its origin at d n.
Eigen::Isometry3d ShapeFrame(const coal::CollisionGeometry& geometry) {
  Eigen::Isometry3d X_OG = Eigen::Isometry3d::Identity();
  if (const auto* halfspace = dynamic_cast<const coal::Halfspace*>(&geometry)) {
    X_OG.linear() =
        Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), halfspace->n)
            .toRotationMatrix();
    X_OG.translation() = halfspace->d * halfspace->n;
  }
  return X_OG;
}

// Where package://NAME/… mesh paths may resolve: every folder above the URDF
// (example-robot-data's URDFs name meshes package://example-robot-data/…).
std::vector<std::string> PackageDirectories(const std::string& urdf) {
  std::vector<std::string> directories;
  std::filesystem::path folder = std::filesystem::absolute(urdf).parent_path();
  while (folder.has_relative_path()) {
    directories.push_back(folder.string());
    folder = folder.parent_path();
  }
  return directories;
}

Eigen::Isometry3d ToIsometry(const pinocchio::SE3& pose) {
  Eigen::Isometry3d result = Eigen::Isometry3d::Identity();
  result.linear() = pose.rotation();
  result.translation() = pose.translation();
  return result;
}

// [r]×, the matrix of r × (·).
Eigen::Matrix3d CrossMatrix(const Eigen::Vector3d& r) {
  Eigen::Matrix3d r_cross;
  r_cross << 0, -r.z(), r.y(), r.z(), 0, -r.x(), -r.y(), r.x(), 0;
  return r_cross;
}

void ValidateMassProperties(const std::string& name, double mass,
                            const Eigen::Matrix3d& inertia_about_com) {
  if (!(mass > 0.0) || !std::isfinite(mass)) {
    throw std::invalid_argument(name + ": mass must be positive and finite, got " +
                                std::to_string(mass));
  }
  const bool symmetric = (inertia_about_com - inertia_about_com.transpose()).norm() <=
                         1e-12 * inertia_about_com.norm();
  if (!inertia_about_com.allFinite() || !symmetric ||
      inertia_about_com.llt().info() != Eigen::Success) {
    // (A shape's inertia from its mass and size overflows or vanishes when
    // they are far out of range: the diagonal shows which.)
    const Eigen::Vector3d diagonal = inertia_about_com.diagonal();
    std::ostringstream message;
    message << name << ": inertia must be finite and symmetric positive definite, got "
            << "diagonal (" << diagonal.x() << ", " << diagonal.y() << ", "
            << diagonal.z() << ") kg·m² (for mass " << mass << " kg)";
    throw std::invalid_argument(message.str());
  }
}

}  // namespace

struct MultibodyTree::Impl {
  // True while `data` and mass_matrix are those of the last SetState for the
  // current model parameters (not used by a free body: its state is
  // MultibodyTree::body_): SetState with the same state then does nothing.
  bool state_current = false;
  bool free_base = false;

  pinocchio::Model model;
  pinocchio::Data data;
  // The sensors' workspace (PointAcceleration, ParentWrench): the kinematics
  // at the state with given joint accelerations, apart from `data`, and the
  // external forces on each joint.
  pinocchio::Data query_data;
  PINOCCHIO_ALIGNED_STD_VECTOR(pinocchio::Force) query_forces;
  std::vector<pinocchio::FrameIndex> body_frames;
  std::vector<std::string> body_names;
  Eigen::VectorXd q;
  Eigen::VectorXd v;
  Eigen::MatrixXd mass_matrix;
  // The Jacobian of one joint at `data`'s state (LOCAL_WORLD_ALIGNED: the
  // joint origin's velocity and ω, in world axes), and which joint it is
  // (kNoJoint: none yet): a link's contacts come one after another, and each
  // reads it (JointJacobian).
  static constexpr pinocchio::JointIndex kNoJoint =
      std::numeric_limits<pinocchio::JointIndex>::max();
  pinocchio::Data::Matrix6x joint_jacobian;
  pinocchio::JointIndex jacobian_joint = kNoJoint;

  const pinocchio::Data::Matrix6x& JointJacobian(pinocchio::JointIndex joint) {
    if (joint != jacobian_joint) {
      joint_jacobian.setZero();
      pinocchio::getJointJacobian(model, data, joint, pinocchio::LOCAL_WORLD_ALIGNED,
                                  joint_jacobian);
      jacobian_joint = joint;
    }
    return joint_jacobian;
  }
  std::vector<BodyGeometry> geometries;
  std::vector<WorldGeometry> world_geometries;
  // Where the file's world frame sits in the scene's (Place).
  Eigen::Isometry3d X_W_file = Eigen::Isometry3d::Identity();
  Eigen::Isometry3d mjcf_root_pose = Eigen::Isometry3d::Identity();

  // Whether every joint's motion subspace S is fixed in the joint's frame,
  // with no bias acceleration (revolute, prismatic, spherical, translation,
  // free-flyer joints): then WorldNonlinearEffects applies (set by Finish).
  bool constant_motion_subspaces = false;

  static bool HasConstantMotionSubspace(const std::string& joint_type) {
    static const std::array<const char*, 15> kTypes = {
        "JointModelRX",        "JointModelRY",
        "JointModelRZ",        "JointModelRevoluteUnaligned",
        "JointModelRUBX",      "JointModelRUBY",
        "JointModelRUBZ",      "JointModelRevoluteUnboundedUnaligned",
        "JointModelPX",        "JointModelPY",
        "JointModelPZ",        "JointModelPrismaticUnaligned",
        "JointModelSpherical", "JointModelTranslation",
        "JointModelFreeFlyer"};
    return std::find(kTypes.begin(), kTypes.end(), joint_type) != kTypes.end();
  }

  // h(q, v) = C(q, v) v + g(q), the joint efforts that hold the tree at zero
  // acceleration: Newton–Euler in world coordinates (Featherstone, Rigid Body
  // Dynamics Algorithms, §5.3, with the base's acceleration a₀ = −g), on what
  // the world-convention CRBA left in `data`: each joint's world pose oMi and
  // world motion subspace J_i. For joint i with parent λ and u_i = J_i v_i:
  //   v_i = v_λ + u_i,   a_i = a_λ + v_i × u_i   (S fixed in the joint frame:
  //   d/dt J_i = v_i × J_i),   f_i = I_i a_i + v_i ×* (I_i v_i),
  // then from the leaves, h_i = J_iᵀ f_i and f_λ += f_i. Spatial vectors are
  // Pinocchio's (linear, angular) about the world origin. Also fills data.v
  // (each joint's velocity in its own frame), as nonLinearEffects does.
  void WorldNonlinearEffects(const Eigen::VectorXd& velocities) {
    data.ov[0].setZero();
    data.oa[0] = -model.gravity;
    for (pinocchio::JointIndex i = 1; i < model.joints.size(); ++i) {
      const pinocchio::JointIndex parent = model.parents[i];
      const int first = model.idx_vs[i], count = model.nvs[i];
      // (A one-dof joint, most of a robot's, without a general product.)
      const pinocchio::Motion joint_motion(
          count == 1 ? Eigen::Matrix<double, 6, 1>(data.J.col(first) * velocities[first])
                     : Eigen::Matrix<double, 6, 1>(data.J.middleCols(first, count) *
                                                   velocities.segment(first, count)));
      data.ov[i] = data.ov[parent] + joint_motion;
      data.oa[i] = data.oa[parent] + data.ov[i].cross(joint_motion);
      const pinocchio::Inertia inertia = data.oMi[i].act(model.inertias[i]);
      data.of[i] = inertia * data.oa[i] + data.ov[i].cross(inertia * data.ov[i]);
      data.v[i] = data.oMi[i].actInv(data.ov[i]);
    }
    for (pinocchio::JointIndex i = model.joints.size() - 1; i > 0; --i) {
      const int first = model.idx_vs[i], count = model.nvs[i];
      if (count == 1) {
        data.nle[first] = data.J.col(first).dot(data.of[i].toVector());
      } else {
        data.nle.segment(first, count).noalias() =
            data.J.middleCols(first, count).transpose() * data.of[i].toVector();
      }
      data.of[model.parents[i]] += data.of[i];
    }
  }

  // The world poses (data.oMf) of the bodies' frames from the joints' (oMi):
  // the only frames whose poses are read (body_pose). Pinocchio's
  // updateFramePlacements would place every frame (joints, fixed joints,
  // an MJCF file's sites and geoms), most of a walker's.
  void UpdateBodyFramePlacements() {
    for (const pinocchio::FrameIndex f : body_frames) {
      const pinocchio::Frame& frame = model.frames[f];
      data.oMf[f] = data.oMi[frame.parentJoint] * frame.placement;
    }
  }

  // Fills what Pinocchio's forward kinematics would from `body` (joint and
  // frame placements, joint velocities in their own frames, h), and q, v.
  // The joint Jacobians (data.J) are left to CalcMotionSubspaces.
  void SyncFreeBodyData(const FreeBodyState& body) {
    if (body.data_synced) return;
    const Eigen::Vector3d p_W = body.q.head<3>(), pdot_W = body.v.head<3>();
    q = body.q;
    v = body.v;
    data.oMi[kFreeTranslation] = pinocchio::SE3(Eigen::Matrix3d::Identity(), p_W);
    data.oMi[kFreeRotation] = pinocchio::SE3(body.R_WB, p_W);
    data.v[kFreeTranslation] = pinocchio::Motion(pdot_W, Eigen::Vector3d::Zero());
    data.v[kFreeRotation] =
        pinocchio::Motion(body.R_WB.transpose() * pdot_W, body.v.tail<3>());
    UpdateBodyFramePlacements();
    data.nle = body.nonlinear_effects;
    body.data_synced = true;
  }

  void Finish() {
    data = pinocchio::Data(model);
    query_data = pinocchio::Data(model);
    query_forces.assign(model.joints.size(), pinocchio::Force::Zero());
    joint_jacobian.setZero(6, model.nv);
    jacobian_joint = kNoJoint;
    for (pinocchio::FrameIndex f = 0; f < model.frames.size(); ++f) {
      if (model.frames[f].type != pinocchio::BODY) continue;
      body_frames.push_back(f);
      body_names.push_back(model.frames[f].name);
    }
    q = pinocchio::neutral(model);
    v = Eigen::VectorXd::Zero(model.nv);
    constant_motion_subspaces = true;
    for (pinocchio::JointIndex i = 1; i < model.joints.size(); ++i)
      constant_motion_subspaces &= HasConstantMotionSubspace(model.joints[i].shortname());
  }

  // Moves everything attached to the world (joints and frames whose parent is
  // the universe) by X_WB, before the geometry is built from the frames.
  void WeldBaseAt(const Eigen::Isometry3d& X_WB) {
    const pinocchio::SE3 pose(X_WB.linear(), X_WB.translation());
    for (pinocchio::JointIndex joint = 1; joint < model.joints.size(); ++joint) {
      if (model.parents[joint] == 0)
        model.jointPlacements[joint] = pose * model.jointPlacements[joint];
    }
    for (pinocchio::FrameIndex frame = 1; frame < model.frames.size(); ++frame) {
      if (model.frames[frame].parentJoint == 0) {
        model.frames[frame].placement = pose * model.frames[frame].placement;
      }
    }
  }

  // Collision primitives of the URDF's links, placed in their link frames.
  void LoadUrdfCollisionGeometry(const std::string& path) {
    pinocchio::GeometryModel geometry_model;
    try {
      pinocchio::urdf::buildGeom(model, path, pinocchio::COLLISION, geometry_model,
                                 PackageDirectories(path),
                                 std::make_shared<MeshVerticesLoader>());
    } catch (const std::exception& e) {
      throw std::runtime_error(path +
                               ": cannot load collision geometry: " + ParserMessage(e));
    }
    AddCollisionGeometry(path, geometry_model);
  }

  // The collision geoms of an MJCF file's bodies, placed in their body frames.
  void LoadMjcfCollisionGeometry(const std::string& path) {
    pinocchio::GeometryModel geometry_model;
    try {
      pinocchio::mjcf::buildGeom(model, path, pinocchio::COLLISION, geometry_model,
                                 std::make_shared<MeshVerticesLoader>());
    } catch (const std::exception& e) {
      throw std::runtime_error(path +
                               ": cannot load collision geometry: " + ParserMessage(e));
    }
    AddCollisionGeometry(path, geometry_model);
  }

  // Each object of `geometry_model` as a BodyGeometry of the link it is on,
  // or, on the world frame (an MJCF <worldbody> geom), as a WorldGeometry.
  void AddCollisionGeometry(const std::string& path,
                            const pinocchio::GeometryModel& geometry_model) {
    for (const pinocchio::GeometryObject& object : geometry_model.geometryObjects) {
      const Shape shape = CollisionShape(path, object);
      const Eigen::Isometry3d X_OG = ShapeFrame(*object.geometry);
      if (object.parentFrame == 0) {  // Pinocchio's universe: the file's world
        world_geometries.push_back({object.name,
                                    X_W_file * ToIsometry(object.placement) * X_OG, shape,
                                    std::nullopt, CollisionFilter{}});
        continue;
      }
      const auto frame =
          std::find(body_frames.begin(), body_frames.end(), object.parentFrame);
      if (frame == body_frames.end())
        throw std::runtime_error(path + ": " + object.name + ": attached to no link");
      if (std::holds_alternative<HalfSpace>(shape)) {
        throw std::runtime_error(path + ": " + object.name + ": a plane on link '" +
                                 model.frames[*frame].name +
                                 "' (a plane is fixed: make it a geom of <worldbody>)");
      }
      // GeometryObject::placement is relative to the parent joint.
      const Eigen::Isometry3d X_JB =
          ToIsometry(model.frames[object.parentFrame].placement);
      geometries.push_back({object.name, static_cast<int>(frame - body_frames.begin()),
                            X_JB.inverse() * ToIsometry(object.placement) * X_OG, shape,
                            std::nullopt, CollisionFilter{}});
    }
  }

  // Each height field as the union of its prisms (HeightFieldPrisms), world
  // geometries that carry the geom's name and contact attributes.
  void AddHeightFields(const std::vector<MjcfHeightFieldGeom>& height_fields) {
    for (const MjcfHeightFieldGeom& geom : height_fields) {
      for (HeightFieldPrism& prism :
           HeightFieldPrisms(geom.field, "geom '" + geom.name + "'")) {
        world_geometries.push_back(
            {geom.name, X_W_file * geom.X_FG * Eigen::Translation3d(prism.offset),
             std::move(prism.mesh), geom.contact.friction, geom.contact.filter});
      }
    }
  }

  // Each geometry's friction and filter, and a plane's extent for rays, from
  // `contacts`, by name.
  void SetGeometryContacts(const std::map<std::string, MjcfGeomContact>& contacts) {
    const auto set = [&](auto& geometry) {
      const auto found = contacts.find(geometry.name);
      if (found == contacts.end()) return;
      geometry.friction = found->second.friction;
      geometry.filter = found->second.filter;
      if (auto* plane = std::get_if<HalfSpace>(&geometry.shape))
        plane->ray_half_extent = found->second.plane_half_size;
    };
    for (BodyGeometry& geometry : geometries) set(geometry);
    for (WorldGeometry& geometry : world_geometries) set(geometry);
  }

  // The object's shape (ToShape), or std::runtime_error naming it.
  static Shape CollisionShape(const std::string& path,
                              const pinocchio::GeometryObject& object) {
    std::optional<Shape> shape;
    try {
      shape = ToShape(*object.geometry, object.meshPath);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(path + ": " + object.name + ": " + e.what());
    }
    if (!shape) {
      throw std::runtime_error(
          path + ": " + object.name +
          ": this shape cannot collide (spheres, capsules, cylinders, boxes, ellipsoids, "
          "planes and meshes can): make it one of those, or keep it for its mass alone "
          "(MJCF contype=\"0\" conaffinity=\"0\"; a URDF <visual>)");
    }
    return *shape;
  }

  // The robot's joints on a free joint of ours (AddFreeJoint) whose origin is
  // the model's world frame.
  void FloatBase() {
    pinocchio::Model base;
    AddFreeJoint(&base, "coulomb_floating_base");
    pinocchio::Model combined;
    pinocchio::appendModel(base, model, base.getFrameId("coulomb_floating_base_joint"),
                           pinocchio::SE3::Identity(), combined);
    model = std::move(combined);
  }

  // Whatever parser built `model`: floats it or welds it at X_WB, then
  // finishes it (the collision geometry is loaded after, on its frames).
  void Place(bool floating_base, const Eigen::Isometry3d& X_WB) {
    if (floating_base) FloatBase();
    free_base = floating_base;
    if (!floating_base) WeldBaseAt(X_WB);
    X_W_file = floating_base ? Eigen::Isometry3d::Identity() : X_WB;
    Finish();
  }
};

// Whether the first body of <worldbody> has a free joint.
bool RootBodyFloats(const boost::property_tree::ptree& root) {
  const auto body = root.get_child_optional("worldbody.body");
  if (!body) return false;
  const MjcfDefaults defaults(root);
  const boost::property_tree::ptree none;
  const std::string child_class = body->get("<xmlattr>.childclass", "main");
  for (const auto& [tag, element] : *body) {
    if (tag == "freejoint") return true;
    if (tag != "joint") continue;
    const auto& own = element.get_child("<xmlattr>", none);
    const std::string type =
        defaults.JointAttributes(own, own.get("class", child_class)).get("type", "hinge");
    if (type == "free") return true;
  }
  return false;
}

// An MJCF file's model for a robot of a scene, and where the file starts
// its free root body (identity without one).
struct MjcfRobot {
  pinocchio::Model model;
  Eigen::Isometry3d X_W_root = Eigen::Isometry3d::Identity();
};

// A root body's <freejoint/> is locked out (the scene's base says whether
// the robot floats) with the body at the model's origin: its pos and quat
// in the file are where MuJoCo starts it (X_W_root), which the scene's pose
// may say instead. Any other free joint, or a second body of the world, is
// refused: one robot per file.
// Pinocchio's parser takes a hinge's or a slide's range about its ref
// (range − ref), where MuJoCo's range bounds qpos itself, ref included: the
// qpos0 Pinocchio keeps (the refs) is added back.
void BoundQposAsMujoco(pinocchio::Model* model) {
  const auto qpos0 = model->referenceConfigurations.find("qpos0");
  if (qpos0 == model->referenceConfigurations.end()) return;
  for (pinocchio::JointIndex joint = 1; joint < model->joints.size(); ++joint) {
    if (model->nqs[joint] != 1 || model->nvs[joint] != 1) continue;
    const int q = model->idx_qs[joint];
    model->lowerPositionLimit[q] += qpos0->second[q];
    model->upperPositionLimit[q] += qpos0->second[q];
  }
}

MjcfRobot MjcfRobotModel(const std::string& path) {
  // Pinocchio's parser builds the first body of <worldbody> and its
  // subtree only: the others would be lost without a word.
  const boost::property_tree::ptree root = ReadMjcfRoot(path);
  // Pinocchio's parser stops at an undefined class with "unordered_map::at".
  MjcfDefaults(root).CheckClassesDefined(root);
  const auto world = root.get_child_optional("worldbody");
  const size_t roots = world ? world->count("body") : 0;
  if (roots > 1) {
    throw std::runtime_error(std::to_string(roots) +
                             " bodies in <worldbody> (one robot per entry of the "
                             "scene: name its body with `body:`)");
  }
  pinocchio::Model model;
  pinocchio::mjcf::buildModel(path, model);
  BoundQposAsMujoco(&model);
  std::vector<pinocchio::JointIndex> free_roots;
  for (pinocchio::JointIndex joint = 1; joint < model.joints.size(); ++joint) {
    if (model.joints[joint].shortname() != "JointModelFreeFlyer") continue;
    if (model.parents[joint] != 0 || !free_roots.empty()) {
      throw std::runtime_error("joint '" + model.names[joint] +
                               "': a second free body (one robot per MJCF file: free "
                               "bodies are bodies of the scene)");
    }
    free_roots.push_back(joint);
  }
  if (free_roots.empty()) return {model};
  // The parser keeps a free joint's pos and quat in its reference
  // configuration qpos0 (x y z, quaternion x y z w), and a placement that
  // MuJoCo ignores for a free joint: without it, locked at the neutral
  // configuration, the body sits at the model's origin.
  const pinocchio::JointIndex free_root = free_roots[0];
  MjcfRobot robot;
  const auto qpos0 = model.referenceConfigurations.find("qpos0");
  if (qpos0 != model.referenceConfigurations.end()) {
    const Eigen::Matrix<double, 7, 1> q =
        qpos0->second.segment<7>(model.idx_qs[free_root]);
    robot.X_W_root.linear() =
        Eigen::Quaterniond(q[6], q[3], q[4], q[5]).normalized().toRotationMatrix();
    robot.X_W_root.translation() = q.head<3>();
  }
  model.jointPlacements[free_root] = pinocchio::SE3::Identity();
  robot.model =
      pinocchio::buildReducedModel(model, free_roots, pinocchio::neutral(model));
  return robot;
}

MultibodyTree::MultibodyTree(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)),
      num_positions_(impl_->model.nq),
      num_velocities_(impl_->model.nv) {}
MultibodyTree::~MultibodyTree() = default;
MultibodyTree::MultibodyTree(MultibodyTree&&) noexcept = default;
MultibodyTree& MultibodyTree::operator=(MultibodyTree&&) noexcept = default;

MultibodyTree MultibodyTree::FreeBody(const std::string& name, double mass,
                                      const Eigen::Matrix3d& inertia_about_com) {
  ValidateMassProperties(name, mass, inertia_about_com);
  auto impl = std::make_unique<Impl>();
  pinocchio::Model& model = impl->model;
  const pinocchio::JointIndex rotation = AddFreeJoint(&model, name);
  model.appendBodyToJoint(
      rotation, pinocchio::Inertia(mass, Eigen::Vector3d::Zero(), inertia_about_com));
  model.addBodyFrame(name, rotation, pinocchio::SE3::Identity(),
                     static_cast<int>(model.getFrameId(name + "_joint")));
  impl->free_base = true;
  impl->Finish();
  MultibodyTree tree(std::move(impl));
  tree.SetFreeBodyForm(mass, inertia_about_com, Eigen::Vector3d::Zero());
  return tree;
}

void MultibodyTree::SetFreeBodyForm(double mass, const Eigen::Matrix3d& inertia_about_com,
                                    const Eigen::Vector3d& com) {
  Impl& m = *impl_;
  single_free_body_ = true;
  body_.mass = {mass, inertia_about_com, inertia_about_com.inverse(), com,
                com.isZero(0.0)};
  body_.body_placements.assign(1, Eigen::Isometry3d::Identity());
  body_.weight = mass * m.model.gravity.linear();
  body_.q = m.q;
  body_.R_WB = Eigen::Quaterniond(m.q[6], m.q[3], m.q[4], m.q[5]).toRotationMatrix();
  body_.state_current = false;
  m.mass_matrix.setZero(6, 6);
  UpdateFreeBodyMassMatrix();
}

void MultibodyTree::UpdateFreeBodyMassMatrix() {
  // M = Tᵀ diag(m I, I_B) T, T = [I, −R [c]×; 0, I] (FreeBodyState):
  //   [m I, −m R [c]×; m [c]× Rᵀ, I_B − m [c]× [c]×].
  const FreeBodyMass& body = body_.mass;
  Eigen::MatrixXd& mass_matrix = impl_->mass_matrix;
  mass_matrix.topLeftCorner<3, 3>() = body.mass * Eigen::Matrix3d::Identity();
  mass_matrix.bottomRightCorner<3, 3>() = body.inertia;
  if (body.com_at_origin) return;
  const Eigen::Matrix3d com_cross = CrossMatrix(body.com);
  mass_matrix.topRightCorner<3, 3>().noalias() = -body.mass * body_.R_WB * com_cross;
  mass_matrix.bottomLeftCorner<3, 3>() = mass_matrix.topRightCorner<3, 3>().transpose();
  mass_matrix.bottomRightCorner<3, 3>().noalias() -= body.mass * com_cross * com_cross;
}

void MultibodyTree::UseFreeBodyFormIfOneBody() {
  Impl& m = *impl_;
  const pinocchio::Model& model = m.model;
  // AddFreeJoint's two joints, every body on the second, the first at its
  // origin.
  if (!m.free_base || model.njoints != 3 || m.body_frames.empty() ||
      model.joints[kFreeTranslation].shortname() != "JointModelTranslation" ||
      model.joints[kFreeRotation].shortname() != "JointModelSpherical" ||
      !model.frames[m.body_frames[0]].placement.isIdentity(0.0))
    return;
  std::vector<Eigen::Isometry3d> placements;
  for (const pinocchio::FrameIndex f : m.body_frames) {
    const pinocchio::Frame& body = model.frames[f];
    if (body.parentJoint != kFreeRotation) return;
    placements.push_back(ToIsometry(body.placement));  // X_0b
  }
  const pinocchio::Inertia& inertia = model.inertias[kFreeRotation];
  if (model.inertias[kFreeTranslation].mass() != 0.0 || !(inertia.mass() > 0.0) ||
      !model.armature.isZero(0.0))
    return;
  SetFreeBodyForm(inertia.mass(), inertia.inertia().matrix(), inertia.lever());
  body_.body_placements = std::move(placements);
}

void MultibodyTree::UseGeneralForm() {
  if (!single_free_body_) return;
  Impl& m = SyncedImpl();  // Impl's q and v hold the state
  single_free_body_ = false;
  m.state_current = false;
  // Copies: SetState assigns Impl's q and v from its arguments.
  SetState(Eigen::VectorXd(m.q), Eigen::VectorXd(m.v));
}

Eigen::Vector3d MultibodyTree::WeldedBodyLinearVelocity(int body) const {
  const Eigen::Vector3d omega_B = body_.v.tail<3>();
  return body_.v.head<3>() +
         body_.R_WB * omega_B.cross(body_.body_placements[body].translation());
}

MultibodyTree MultibodyTree::FromUrdf(const std::string& path, bool floating_base,
                                      const Eigen::Isometry3d& X_WB) {
  if (!std::filesystem::is_regular_file(path)) {
    throw std::runtime_error(path + ": URDF file not found");
  }
  auto impl = std::make_unique<Impl>();
  // urdfdom prints its parse errors itself: they become part of ours.
  CapturedStderr urdfdom;
  try {
    pinocchio::urdf::buildModel(path, impl->model);
    impl->Place(floating_base, X_WB);  // floating: the root link on our free joint
    impl->LoadUrdfCollisionGeometry(path);
  } catch (const std::exception& e) {
    const std::string detail = CapturedStderr::FirstLine(urdfdom.Release());
    throw std::runtime_error(path + ": cannot load URDF: " + ParserMessage(e) +
                             (detail.empty() ? "" : " (" + detail + ")"));
  }
  std::fputs(urdfdom.Release().c_str(), stderr);  // warnings of a model that loaded
  MultibodyTree tree(std::move(impl));
  tree.UseFreeBodyFormIfOneBody();
  return tree;
}

MultibodyTree MultibodyTree::FromMjcf(const std::string& path, bool floating_base,
                                      const Eigen::Isometry3d& X_WB,
                                      bool with_world_geometries) {
  if (!std::filesystem::is_regular_file(path)) {
    throw std::runtime_error(path + ": MJCF file not found");
  }
  auto impl = std::make_unique<Impl>();
  std::optional<MjcfBodyFile> copy;
  // Messages about the copy name the file.
  const auto named = [&](const std::string& text) {
    return copy ? ReplaceAll(text, copy->path(), path) : text;
  };
  CapturedStderr parser;  // Pinocchio's MJCF parser may print what it skips
  try {
    copy.emplace(path, std::nullopt, false, /*take_height_fields=*/true);
    MjcfRobot robot = MjcfRobotModel(copy->path());
    impl->model = std::move(robot.model);
    impl->mjcf_root_pose = robot.X_W_root;
    impl->Place(floating_base, X_WB);
    impl->LoadMjcfCollisionGeometry(copy->path());
    impl->SetGeometryContacts(ReadMjcfGeomContacts(copy->path()));
    if (with_world_geometries) {
      impl->AddHeightFields(copy->height_fields());
    } else {
      impl->world_geometries.clear();
    }
  } catch (const std::exception& e) {
    const std::string detail = CapturedStderr::FirstLine(parser.Release());
    throw std::runtime_error(named(path + ": cannot load MJCF: " + ParserMessage(e) +
                                   (detail.empty() ? "" : " (" + detail + ")")));
  }
  std::fputs(named(parser.Release()).c_str(), stderr);
  MultibodyTree tree(std::move(impl));
  tree.UseFreeBodyFormIfOneBody();
  return tree;
}

bool MultibodyTree::MjcfRootFloats(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) {
    throw std::runtime_error(path + ": MJCF file not found");
  }
  try {
    return RootBodyFloats(ReadMjcfRoot(path));
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": cannot load MJCF: " + ParserMessage(e));
  }
}

MultibodyTree MultibodyTree::PlanarBody(const std::string& name, double mass,
                                        const Eigen::Matrix3d& inertia_about_com) {
  ValidateMassProperties(name, mass, inertia_about_com);
  auto impl = std::make_unique<Impl>();
  pinocchio::Model& model = impl->model;
  const auto x =
      model.addJoint(0, pinocchio::JointModelPX(), pinocchio::SE3::Identity(), "x");
  const auto z =
      model.addJoint(x, pinocchio::JointModelPZ(), pinocchio::SE3::Identity(), "z");
  const auto theta =
      model.addJoint(z, pinocchio::JointModelRY(), pinocchio::SE3::Identity(), "theta");
  model.appendBodyToJoint(
      theta, pinocchio::Inertia(mass, Eigen::Vector3d::Zero(), inertia_about_com));
  int previous = 0;
  for (pinocchio::JointIndex joint = 1; joint <= theta; ++joint) {
    previous = static_cast<int>(model.addJointFrame(joint, previous));
  }
  model.addBodyFrame(name, theta, pinocchio::SE3::Identity(), previous);
  impl->Finish();
  return MultibodyTree(std::move(impl));
}

bool MultibodyTree::AreAdjacent(int body_a, int body_b) const {
  const pinocchio::Model& model = impl_->model;
  const pinocchio::JointIndex a = model.frames[impl_->body_frames[body_a]].parentJoint;
  const pinocchio::JointIndex b = model.frames[impl_->body_frames[body_b]].parentJoint;
  return a == b || model.parents[a] == b || model.parents[b] == a;
}

bool MultibodyTree::IsWeldedToWorld(int body) const {
  return impl_->model.frames[impl_->body_frames[body]].parentJoint == 0;
}

MultibodyTree::JointRange MultibodyTree::FindJoint(const std::string& name) const {
  const pinocchio::Model& model = impl_->model;
  if (!model.existJointName(name)) {
    throw std::invalid_argument("no joint named '" + name + "'");
  }
  const pinocchio::JointIndex joint = model.getJointId(name);
  return {model.joints[joint].idx_q(), model.joints[joint].nq(),
          model.joints[joint].idx_v(), model.joints[joint].nv()};
}

MultibodyTree::JointIndex MultibodyTree::FindOneDofJoint(const std::string& name) const {
  const pinocchio::Model& model = impl_->model;
  if (!model.existJointName(name)) {
    throw std::invalid_argument("no joint named '" + name + "'");
  }
  const pinocchio::JointIndex joint = model.getJointId(name);
  if (model.joints[joint].nq() != 1 || model.joints[joint].nv() != 1) {
    throw std::invalid_argument("joint '" + name + "' is not a one-dof joint");
  }
  const int q_index = model.joints[joint].idx_q();
  const int v_index = model.joints[joint].idx_v();
  // Pinocchio marks "no limit" with ±max(double); keep ±∞ for the caller.
  const auto finite_or = [](double value, double otherwise) {
    return std::abs(value) < 1e300 ? value : otherwise;
  };
  const double inf = std::numeric_limits<double>::infinity();
  return {q_index, v_index, finite_or(model.lowerPositionLimit[q_index], -inf),
          finite_or(model.upperPositionLimit[q_index], inf),
          finite_or(model.effortLimit[v_index], inf)};
}

void MultibodyTree::SetJointArmature(const std::string& joint, double armature) {
  if (!(armature >= 0.0) || !std::isfinite(armature)) {
    throw std::invalid_argument("armature of joint '" + joint +
                                "' must be finite and ≥ 0, got " +
                                std::to_string(armature));
  }
  // Pinocchio's CRBA adds model.armature to the diagonal of M.
  impl_->model.armature[FindOneDofJoint(joint).velocity] = armature;
  impl_->state_current = false;
}

double MultibodyTree::joint_armature(const std::string& joint) const {
  return impl_->model.armature[FindOneDofJoint(joint).velocity];
}

double MultibodyTree::joint_damping(const std::string& joint) const {
  return impl_->model.damping[FindOneDofJoint(joint).velocity];
}

double MultibodyTree::joint_friction(const std::string& joint) const {
  return impl_->model.upperDryFrictionLimit[FindOneDofJoint(joint).velocity];
}

std::vector<std::string> MultibodyTree::OneDofJointNames() const {
  const pinocchio::Model& model = impl_->model;
  std::vector<std::string> names;
  for (pinocchio::JointIndex joint = 1; joint < model.joints.size(); ++joint) {
    if (model.joints[joint].nq() == 1 && model.joints[joint].nv() == 1) {
      names.push_back(model.names[joint]);
    }
  }
  return names;
}

namespace {

pinocchio::JointIndex JointWithVelocity(const pinocchio::Model& model, int velocity) {
  for (pinocchio::JointIndex joint = 1; joint < model.joints.size(); ++joint) {
    const int first = model.joints[joint].idx_v();
    if (first <= velocity && velocity < first + model.joints[joint].nv()) return joint;
  }
  throw std::out_of_range("no joint moves velocity " + std::to_string(velocity));
}

}  // namespace

const std::string& MultibodyTree::JointOfVelocity(int velocity) const {
  return impl_->model.names[JointWithVelocity(impl_->model, velocity)];
}

int MultibodyTree::BodyMovedBy(int velocity) const {
  const pinocchio::Model& model = impl_->model;
  const pinocchio::JointIndex joint = JointWithVelocity(model, velocity);
  for (int body = 0; body < num_bodies(); ++body) {
    const auto& supports =
        model.supports[model.frames[impl_->body_frames[body]].parentJoint];
    if (std::find(supports.begin(), supports.end(), joint) != supports.end()) return body;
  }
  return -1;
}

Eigen::VectorXd MultibodyTree::OneDofJointEntries(const Eigen::VectorXd& x,
                                                  bool velocities) const {
  const pinocchio::Model& model = impl_->model;
  Eigen::VectorXd entries(model.njoints);
  Eigen::Index count = 0;
  for (pinocchio::JointIndex joint = 1; joint < model.joints.size(); ++joint) {
    const auto& j = model.joints[joint];
    if (j.nq() == 1 && j.nv() == 1)
      entries[count++] = x[velocities ? j.idx_v() : j.idx_q()];
  }
  entries.conservativeResize(count);
  return entries;
}

const std::vector<BodyGeometry>& MultibodyTree::collision_geometries() const {
  return impl_->geometries;
}

const std::vector<WorldGeometry>& MultibodyTree::world_geometries() const {
  return impl_->world_geometries;
}

void MultibodyTree::DropWorldGeometries() { impl_->world_geometries.clear(); }

void MultibodyTree::DropGeometryFrictions() {
  for (BodyGeometry& geometry : impl_->geometries) geometry.friction.reset();
  for (WorldGeometry& geometry : impl_->world_geometries) geometry.friction.reset();
}

const Eigen::Isometry3d& MultibodyTree::mjcf_root_pose() const {
  return impl_->mjcf_root_pose;
}

int MultibodyTree::num_positions() const { return num_positions_; }
int MultibodyTree::num_velocities() const { return num_velocities_; }
int MultibodyTree::num_bodies() const {
  return static_cast<int>(impl_->body_frames.size());
}
const std::string& MultibodyTree::body_name(int body) const {
  return impl_->body_names[body];
}
bool MultibodyTree::has_free_base() const { return impl_->free_base; }

int MultibodyTree::FindBody(const std::string& name) const {
  for (int body = 0; body < num_bodies(); ++body) {
    if (impl_->body_names[body] == name) return body;
  }
  return -1;
}

Eigen::VectorXd MultibodyTree::NeutralConfiguration() const {
  return pinocchio::neutral(impl_->model);
}

void MultibodyTree::SetGravity(const Eigen::Vector3d& gravity) {
  impl_->model.gravity.linear(gravity);
  body_.weight = body_.mass.mass * gravity;
  body_.state_current = false;
  impl_->state_current = false;
}

Eigen::Vector3d MultibodyTree::gravity() const { return impl_->model.gravity.linear(); }

// SetState of a tree made by FreeBody: the closed form of FreeBodyState.
void MultibodyTree::SetFreeBodyState(const Eigen::VectorXd& new_q,
                                     const Eigen::VectorXd& new_v) {
  if (new_q.size() != 7 || new_v.size() != 6) {
    throw std::invalid_argument(
        "SetState of a free body: expected 7 positions and 6 "
        "velocities, got " +
        std::to_string(new_q.size()) + " and " + std::to_string(new_v.size()));
  }
  const Eigen::Map<const Eigen::Matrix<double, 7, 1>> q7(new_q.data());
  const Eigen::Map<const Eigen::Matrix<double, 6, 1>> v6(new_v.data());
  if (body_.state_current && q7 == body_.q && v6 == body_.v) return;
  body_.q = q7;
  body_.v = v6;
  body_.R_WB = Eigen::Quaterniond(q7[6], q7[3], q7[4], q7[5]).toRotationMatrix();
  const Eigen::Vector3d omega_B = v6.tail<3>();
  const FreeBodyMass& body = body_.mass;
  if (body.com_at_origin) {
    body_.nonlinear_effects.head<3>() = -body_.weight;
    body_.nonlinear_effects.tail<3>() = omega_B.cross(body.inertia * omega_B);
  } else {  // h = [f_h; ω × I_B ω + c × (Rᵀ f_h)] (FreeBodyState)
    const Eigen::Vector3d f_h =
        body.mass * (body_.R_WB * omega_B.cross(omega_B.cross(body.com))) - body_.weight;
    body_.nonlinear_effects.head<3>() = f_h;
    body_.nonlinear_effects.tail<3>() = omega_B.cross(body.inertia * omega_B) +
                                        body.com.cross(body_.R_WB.transpose() * f_h);
    UpdateFreeBodyMassMatrix();
  }
  body_.state_current = true;
  body_.data_synced = false;
}

void MultibodyTree::SetState(const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  if (single_free_body_) {
    SetFreeBodyState(q, v);
    return;
  }
  Impl& m = *impl_;
  if (m.state_current && q.size() == m.q.size() && v.size() == m.v.size() && q == m.q &&
      v == m.v) {
    return;
  }
  m.q = q;
  m.v = v;
  m.state_current = true;
  m.jacobian_joint = Impl::kNoJoint;  // of the state before
  // A model that cannot move has its poses only: Pinocchio's dynamics would
  // take blocks of its empty matrices (undefined behaviour).
  if (m.model.nv == 0) {
    pinocchio::forwardKinematics(m.model, m.data, q);
    m.UpdateBodyFramePlacements();
    return;
  }
  // CRBA in the world convention computes the joints' world poses oMi and
  // their motion subspaces J in world along with M; the nonlinear effects
  // their velocities v (in each joint's frame). Together they are what
  // forward kinematics and computeJointJacobians would compute again.
  pinocchio::crba(m.model, m.data, q, pinocchio::Convention::WORLD);
  m.mass_matrix = m.data.M.selfadjointView<Eigen::Upper>();
  if (m.constant_motion_subspaces) {
    m.WorldNonlinearEffects(v);
  } else {
    pinocchio::nonLinearEffects(m.model, m.data, q, v);
  }
  m.UpdateBodyFramePlacements();
}

const Eigen::MatrixXd& MultibodyTree::mass_matrix() const { return impl_->mass_matrix; }

Eigen::Ref<const Eigen::VectorXd> MultibodyTree::nonlinear_effects() const {
  if (single_free_body_) return body_.nonlinear_effects;
  return impl_->data.nle;
}

Eigen::Isometry3d MultibodyTree::body_pose(int body) const {
  if (single_free_body_) {  // body 0's frame is the spherical joint's
    Eigen::Isometry3d result = Eigen::Isometry3d::Identity();
    result.linear() = body_.R_WB;
    result.translation() = body_.q.head<3>();
    return body == 0 ? result : result * body_.body_placements[body];
  }
  return ToIsometry(impl_->data.oMf[impl_->body_frames[body]]);
}

Eigen::Isometry3d MultibodyTree::BodyPoseAt(const Eigen::VectorXd& q, int body) const {
  Eigen::Isometry3d result = Eigen::Isometry3d::Identity();
  if (single_free_body_) {  // q = [p_W, x, y, z, w]
    result.linear() = Eigen::Quaterniond(q[6], q[3], q[4], q[5]).toRotationMatrix();
    result.translation() = q.head<3>();
    return body == 0 ? result : result * body_.body_placements[body];
  }
  pinocchio::Data data(impl_->model);
  pinocchio::framesForwardKinematics(impl_->model, data, q);
  return ToIsometry(data.oMf[impl_->body_frames[body]]);
}

Eigen::Matrix<double, 3, Eigen::Dynamic> MultibodyTree::PointJacobian(
    int body, const Eigen::Vector3d& p_W) const {
  Eigen::Matrix<double, 3, Eigen::Dynamic> jacobian(3, num_velocities());
  CalcPointJacobian(body, p_W, &jacobian);
  return jacobian;
}

void MultibodyTree::CalcPointJacobian(
    int body, const Eigen::Vector3d& p_W,
    Eigen::Matrix<double, 3, Eigen::Dynamic>* jacobian) const {
  jacobian->resize(3, num_velocities_);
  if (single_free_body_) {
    *jacobian = FreeBodyPointJacobian(body_.q.head<3>(), body_.R_WB, p_W);
    return;
  }
  Impl& m = *impl_;
  // v_P = v_O + ω × (p − o) = (J_v − [p − o]× J_ω) v.
  const pinocchio::JointIndex joint = m.model.frames[m.body_frames[body]].parentJoint;
  const Eigen::Matrix3d r_cross = CrossMatrix(p_W - m.data.oMi[joint].translation());
  const pinocchio::Data::Matrix6x& joint_jacobian = m.JointJacobian(joint);
  jacobian->noalias() = joint_jacobian.topRows<3>();
  jacobian->noalias() -= r_cross * joint_jacobian.bottomRows<3>();
}

void MultibodyTree::CalcAngularJacobian(
    int body, Eigen::Matrix<double, 3, Eigen::Dynamic>* jacobian) const {
  jacobian->resize(3, num_velocities_);
  if (single_free_body_) {  // v = [ṗ_W, ω_B]: ω_W = R_WB ω_B
    jacobian->leftCols<3>().setZero();
    jacobian->rightCols<3>() = body_.R_WB;
    return;
  }
  Impl& m = *impl_;
  const pinocchio::JointIndex joint = m.model.frames[m.body_frames[body]].parentJoint;
  jacobian->noalias() = m.JointJacobian(joint).bottomRows<3>();
}

std::pair<Eigen::Vector3d, Eigen::Vector3d> MultibodyTree::PointAcceleration(
    int body, const Eigen::Vector3d& p_W, const Eigen::VectorXd& a) const {
  Impl& m = SyncedImpl();
  pinocchio::Data& data = m.query_data;
  pinocchio::forwardKinematics(m.model, data, m.q, m.v, a);
  // In the joint's frame: a_p = a_o + α × r + ω × (v_o + ω × r), (v_o, ω)
  // and (a_o, α) the joint's spatial velocity and acceleration.
  const pinocchio::JointIndex joint = m.model.frames[m.body_frames[body]].parentJoint;
  const pinocchio::SE3& X_WJ = data.oMi[joint];
  const Eigen::Vector3d r = X_WJ.actInv(p_W);
  const pinocchio::Motion &v = data.v[joint], &acceleration = data.a[joint];
  const Eigen::Vector3d v_p = v.linear() + v.angular().cross(r);
  return {X_WJ.rotation() * acceleration.angular(),
          X_WJ.rotation() * (acceleration.linear() + acceleration.angular().cross(r) +
                             v.angular().cross(v_p))};
}

MultibodyTree::Impl& MultibodyTree::SyncedImpl() const {
  if (single_free_body_) impl_->SyncFreeBodyData(body_);
  return *impl_;
}

void MultibodyTree::CheckCarriedByJoint(int body) const {
  if (!CarriedByJoint(body))
    throw std::invalid_argument(
        "body '" + impl_->model.frames[impl_->body_frames[body]].name +
        "' is welded to its parent link: no joint carries its subtree alone");
}

MultibodyTree::SubtreeMomentum MultibodyTree::Subtree(int body) const {
  Impl& m = SyncedImpl();
  // Body −1: every joint's, not the universe's (links welded to the world).
  if (body >= 0) CheckCarriedByJoint(body);
  const pinocchio::JointIndex root =
      body < 0 ? 0 : m.model.frames[m.body_frames[body]].parentJoint;
  const pinocchio::Data& data = m.data;  // the forward kinematics at (q, v)
  // Σ of each joint's inertia times its twist, both in world: the spatial
  // momentum (p, L_O) about the world's origin.
  pinocchio::Force momentum = pinocchio::Force::Zero();
  SubtreeMomentum subtree;
  Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();
  for (const pinocchio::JointIndex j : m.model.subtrees[root]) {
    if (j == 0) continue;
    const pinocchio::Inertia inertia_W = data.oMi[j].act(m.model.inertias[j]);
    momentum += inertia_W * data.oMi[j].act(data.v[j]);
    subtree.mass += inertia_W.mass();
    first_moment += inertia_W.mass() * inertia_W.lever();
  }
  if (!(subtree.mass > 0.0)) {
    subtree.com_W = data.oMi[root].translation();
    return subtree;
  }
  subtree.com_W = first_moment / subtree.mass;
  subtree.com_velocity_W = momentum.linear() / subtree.mass;
  subtree.angular_momentum_W =
      momentum.angular() - subtree.com_W.cross(momentum.linear());
  return subtree;
}

bool MultibodyTree::CarriedByJoint(int body) const {
  // Up the frames from the body's towards its joint's: another body's frame
  // on the way is the link it is welded to (Pinocchio merges their
  // inertias). A fixed joint's frame is not: an MJCF free base's locked free
  // joint (MjcfRobotModel) lies between its root body and our free joint,
  // its own parent frame after Pinocchio's buildReducedModel.
  const pinocchio::Model& model = impl_->model;
  const pinocchio::Frame& frame = model.frames[impl_->body_frames[body]];
  if (frame.parentJoint == 0) return false;
  pinocchio::FrameIndex f = frame.parentFrame;
  for (size_t step = 0; step < model.frames.size(); ++step) {
    const pinocchio::Frame& parent = model.frames[f];
    if (parent.type == pinocchio::BODY) return false;
    if (parent.type == pinocchio::JOINT || parent.parentFrame == f) return true;
    f = parent.parentFrame;
  }
  return false;
}

std::pair<Eigen::Vector3d, Eigen::Vector3d> MultibodyTree::ParentWrench(
    int body, const Eigen::VectorXd& a, const std::vector<PointForce>& forces,
    const Eigen::Vector3d& p_W) const {
  Impl& m = SyncedImpl();
  const pinocchio::Frame& frame = m.model.frames[m.body_frames[body]];
  CheckCarriedByJoint(body);
  pinocchio::Data& data = m.query_data;
  pinocchio::forwardKinematics(m.model, data, m.q, m.v, a);
  // External forces as spatial forces about each joint's origin, in its frame.
  PINOCCHIO_ALIGNED_STD_VECTOR(pinocchio::Force)& external = m.query_forces;
  std::fill(external.begin(), external.end(), pinocchio::Force::Zero());
  for (const PointForce& force : forces) {
    const pinocchio::JointIndex j = m.model.frames[m.body_frames[force.body]].parentJoint;
    external[j] +=
        data.oMi[j].actInv(pinocchio::Force(force.f_W, force.p_W.cross(force.f_W)));
  }
  // RNEA's backward pass leaves in f[j] the wrench the parent exerts on
  // joint j's subtree, about the joint's origin, in its frame.
  pinocchio::rnea(m.model, data, m.q, m.v, a, external);
  const pinocchio::Force f_W = data.oMi[frame.parentJoint].act(data.f[frame.parentJoint]);
  return {f_W.linear(), f_W.angular() - p_W.cross(f_W.linear())};
}

namespace {

// The last velocity index of `joint`, or of its nearest ancestor that has
// velocities; −1 if none has (the world).
int LastVelocityOfJoint(const pinocchio::Model& model, pinocchio::JointIndex joint) {
  while (joint > 0 && model.nvs[joint] == 0) joint = model.parents[joint];
  return joint > 0 ? model.idx_vs[joint] + model.nvs[joint] - 1 : -1;
}

}  // namespace

std::vector<int> MultibodyTree::VelocityParents() const {
  const pinocchio::Model& model = impl_->model;
  std::vector<int> parent(model.nv, -1);
  for (pinocchio::JointIndex joint = 1; joint < model.joints.size(); ++joint) {
    const int first = model.idx_vs[joint];
    for (int k = first; k < first + model.nvs[joint]; ++k) {
      parent[k] = k > first ? k - 1 : LastVelocityOfJoint(model, model.parents[joint]);
    }
  }
  return parent;
}

int MultibodyTree::BodyVelocityIndex(int body) const {
  const Impl& m = *impl_;
  return LastVelocityOfJoint(m.model, m.model.frames[m.body_frames[body]].parentJoint);
}

void MultibodyTree::CalcMotionSubspaces(
    Eigen::Matrix<double, 6, Eigen::Dynamic>* motion) const {
  Impl& m = *impl_;
  // data.J, in the world frame: SetState computes it, except for a free body,
  // which needs it only here.
  if (single_free_body_) {
    m.SyncFreeBodyData(body_);
    pinocchio::computeJointJacobians(m.model, m.data, m.q);
  }
  *motion = m.data.J;
}

Eigen::Vector3d MultibodyTree::KinematicsLinearVelocity(int body) const {
  // From the velocities of SetState's forward kinematics: no Jacobian needed
  // (this runs for every body each step, for the contact margin).
  const Impl& m = *impl_;
  return pinocchio::getFrameVelocity(m.model, m.data, m.body_frames[body],
                                     pinocchio::LOCAL_WORLD_ALIGNED)
      .linear();
}

Eigen::Vector3d MultibodyTree::KinematicsAngularVelocity(int body) const {
  const Impl& m = *impl_;
  const pinocchio::JointIndex joint = m.model.frames[m.body_frames[body]].parentJoint;
  return m.data.oMi[joint].rotation() * m.data.v[joint].angular();
}

double MultibodyTree::KineticEnergy() const {
  if (single_free_body_) {  // ½ m |v_com|² + ½ ωᵀ I_B ω, v_com = ṗ + R (ω × c)
    const Eigen::Vector3d omega_B = body_.v.tail<3>();
    const Eigen::Vector3d v_com =
        body_.v.head<3>() + body_.R_WB * omega_B.cross(body_.mass.com);
    return 0.5 * (body_.mass.mass * v_com.squaredNorm() +
                  omega_B.dot(body_.mass.inertia * omega_B));
  }
  const Impl& m = *impl_;
  // ½ vᵀ M v column by column: no temporary for M v (the step loop's energy
  // allocates nothing).
  const Eigen::VectorXd& v = m.v;
  double twice_energy = 0.0;
  for (Eigen::Index j = 0; j < v.size(); ++j)
    twice_energy += v[j] * impl_->mass_matrix.col(j).dot(v);
  return 0.5 * twice_energy;
}

double MultibodyTree::GravityPotentialEnergy() const {
  // A free body's COM is at p + R c (SetFreeBodyState): no kinematics.
  if (single_free_body_)
    return -body_.weight.dot(body_.q.head<3>() + body_.R_WB * body_.mass.com);
  // −Σ m_i gᵀ c_i over the joints' bodies, c_i their centres of mass in
  // world from SetState's poses oMi (no kinematics again).
  const Impl& m = *impl_;
  double energy = 0.0;
  for (pinocchio::JointIndex j = 1;
       j < static_cast<pinocchio::JointIndex>(m.model.njoints); ++j) {
    const pinocchio::Inertia& inertia = m.model.inertias[j];
    energy -=
        inertia.mass() * m.model.gravity.linear().dot(m.data.oMi[j].act(inertia.lever()));
  }
  return energy;
}

Eigen::VectorXd MultibodyTree::Integrate(const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& dq) const {
  Eigen::VectorXd result(q.size());
  Integrate(q, dq, &result);
  return result;
}

void MultibodyTree::Integrate(const Eigen::VectorXd& q, const Eigen::VectorXd& dq,
                              Eigen::VectorXd* result) const {
  result->resize(q.size());
  if (single_free_body_ && q.size() == 7 && dq.size() == 6) {
    *result = q;
    IntegrateFreeBody(*result, dq);
    return;
  }
  pinocchio::integrate(impl_->model, q, dq, *result);
}

void MultibodyTree::IntegrateFreeBody(Eigen::Ref<Eigen::VectorXd> q,
                                      const Eigen::Matrix<double, 6, 1>& dq) const {
  if (!single_free_body_ || q.size() != 7)
    throw std::invalid_argument("IntegrateFreeBody: not a free body's q");
  // p ⊕ δp = p + δp; the spherical joint's rotation in the body frame,
  // q_WB ⊗ exp(δθ) with exp(δθ) = [cos(θ/2); sin(θ/2) δθ/θ], θ = |δθ|
  // (cos(θ/2) and sin(θ/2)/θ by their Taylor series near 0), renormalized.
  const Eigen::Vector3d turn = dq.tail<3>();
  const double angle = turn.norm();
  const double angle_squared = angle * angle;  // series to O(θ⁶) < ε below 1e-2
  const double angle_fourth = angle_squared * angle_squared;
  const bool small = angle < 1e-2;
  const double sine_over_angle = small
                                     ? 0.5 - angle_squared / 48.0 + angle_fourth / 3840.0
                                     : std::sin(0.5 * angle) / angle;
  const double cosine =
      small ? 1.0 - angle_squared / 8.0 + angle_fourth / 384.0 : std::cos(0.5 * angle);
  const Eigen::Quaterniond exp_turn(cosine, sine_over_angle * turn.x(),
                                    sine_over_angle * turn.y(),
                                    sine_over_angle * turn.z());
  const Eigen::Quaterniond q_WB =
      (Eigen::Quaterniond(q[6], q[3], q[4], q[5]) * exp_turn).normalized();
  q.head<3>() += dq.head<3>();
  q.segment<4>(3) << q_WB.x(), q_WB.y(), q_WB.z(), q_WB.w();
}

}  // namespace coulomb
