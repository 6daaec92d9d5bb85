// The Coal adapter: the only translation unit that includes Coal.
#include "coulomb/geometry/collision_world.h"

#include <stdexcept>

#include <coal/collision.h>
#include <coal/contact_patch.h>
#include <coal/shape/geometric_shapes.h>

namespace coulomb {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

std::shared_ptr<coal::CollisionGeometry> MakeCoalShape(const Shape& shape) {
  return std::visit(
      Overloaded{[](const Sphere& s) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Sphere>(s.radius);
                 },
                 [](const Box& b) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Box>(b.size.x(), b.size.y(), b.size.z());
                 },
                 [](const Capsule& c) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Capsule>(c.radius, c.length);
                 },
                 [](const Cylinder& c) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Cylinder>(c.radius, c.length);
                 },
                 [](const HalfSpace&) -> std::shared_ptr<coal::CollisionGeometry> {
                   return std::make_shared<coal::Halfspace>(coal::Vec3s(0, 0, 1), 0.0);
                 }},
      shape);
}

coal::Transform3s ToCoal(const Eigen::Isometry3d& pose) {
  return coal::Transform3s(pose.linear(), pose.translation());
}

// Curved shapes' patches are sampled with this many points (Coal's default).
constexpr size_t kCurvedPatchSamples = 8;
// Points of a shape within this distance of the separating plane belong to
// the patch [m].
constexpr double kPatchTolerance = 1e-3;

}  // namespace

struct CollisionWorld::Impl {
  struct Geometry {
    std::shared_ptr<coal::CollisionGeometry> shape;
    int tree;
    int body;
    Eigen::Isometry3d X_BG;
  };
  std::vector<Geometry> geometries;
  std::set<std::pair<int, int>> excluded;

  bool Skip(int a, int b) const {
    const Geometry& ga = geometries[a];
    const Geometry& gb = geometries[b];
    if (ga.tree < 0 && gb.tree < 0) return true;  // both static
    if (ga.tree == gb.tree && ga.body == gb.body) return true;
    return excluded.count({a, b}) > 0;
  }
};

CollisionWorld::CollisionWorld() : impl_(std::make_unique<Impl>()) {}
CollisionWorld::~CollisionWorld() = default;
CollisionWorld::CollisionWorld(CollisionWorld&&) noexcept = default;
CollisionWorld& CollisionWorld::operator=(CollisionWorld&&) noexcept = default;

int CollisionWorld::AddGeometry(const Shape& shape, int tree, int body,
                                const Eigen::Isometry3d& X_BG) {
  ValidateShape(shape);
  impl_->geometries.push_back({MakeCoalShape(shape), tree, body, X_BG});
  return num_geometries() - 1;
}

void CollisionWorld::ExcludePair(int geometry_a, int geometry_b) {
  impl_->excluded.insert(
      {std::min(geometry_a, geometry_b), std::max(geometry_a, geometry_b)});
}

int CollisionWorld::num_geometries() const {
  return static_cast<int>(impl_->geometries.size());
}
int CollisionWorld::tree(int geometry) const { return impl_->geometries[geometry].tree; }
int CollisionWorld::body(int geometry) const { return impl_->geometries[geometry].body; }
const Eigen::Isometry3d& CollisionWorld::pose_in_body(int geometry) const {
  return impl_->geometries[geometry].X_BG;
}

void CollisionWorld::ComputeContacts(const std::vector<Eigen::Isometry3d>& X_WG,
                                     double margin,
                                     std::vector<ContactPoint>* contacts) const {
  contacts->clear();
  coal::CollisionRequest request(coal::CONTACT, 1);
  request.security_margin = margin;
  const coal::ContactPatchRequest patch_request(1, kCurvedPatchSamples, kPatchTolerance);
  coal::ContactPatchResult patches(patch_request);
  for (int a = 0; a < num_geometries(); ++a) {
    for (int b = a + 1; b < num_geometries(); ++b) {
      if (impl_->Skip(a, b)) continue;
      const coal::Transform3s pose_a = ToCoal(X_WG[a]);
      const coal::Transform3s pose_b = ToCoal(X_WG[b]);
      coal::CollisionResult result;
      coal::collide(impl_->geometries[a].shape.get(), pose_a,
                    impl_->geometries[b].shape.get(), pose_b, request, result);
      if (!result.isCollision()) continue;
      patches.clear();
      coal::computeContactPatch(impl_->geometries[a].shape.get(), pose_a,
                                impl_->geometries[b].shape.get(), pose_b, result,
                                patch_request, patches);
      for (size_t k = 0; k < patches.numContactPatches(); ++k) {
        const coal::ContactPatch& patch = patches.getContactPatch(k);
        // Coal: normal from A to B; penetration_depth is the signed distance.
        for (size_t i = 0; i < patch.size(); ++i) {
          contacts->push_back(
              {a, b, patch.getPoint(i), patch.getNormal(), patch.penetration_depth});
        }
      }
    }
  }
}

}  // namespace coulomb
