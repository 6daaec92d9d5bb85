#pragma once

#include <memory>
#include <set>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// A contact point between geometries A and B (A's index < B's).
// normal_W: unit normal pointing from A into B; p_W: the midpoint between
// the two surfaces; phi: signed distance [m], negative when they overlap.
struct ContactPoint {
  int geometry_a = -1;
  int geometry_b = -1;
  Eigen::Vector3d p_W = Eigen::Vector3d::Zero();
  Eigen::Vector3d normal_W = Eigen::Vector3d::UnitZ();
  double phi = 0.0;
};

// The collision geometries of a scene and their pairwise contact query
// (narrow phase by Coal; Coal stays inside collision_world.cc).
//
// Each geometry belongs to a body `body` of tree `tree` (tree −1: the world,
// static) and sits at X_BG in that body's frame. Pairs on the same body, on
// two static bodies, or excluded explicitly are never tested. Contacts are
// reported while φ < margin, so approaching bodies are seen one step ahead.
// Flat contacts give their full manifold: Coal's contact patch (a polygon)
// turned into its vertices, each a contact point with the patch's φ, so that
// boxes rest on four corners instead of rocking on one.
class CollisionWorld {
 public:
  CollisionWorld();
  ~CollisionWorld();
  CollisionWorld(CollisionWorld&&) noexcept;
  CollisionWorld& operator=(CollisionWorld&&) noexcept;

  // Returns the new geometry's index. Throws on an invalid shape.
  int AddGeometry(const Shape& shape, int tree, int body, const Eigen::Isometry3d& X_BG);
  void ExcludePair(int geometry_a, int geometry_b);

  int num_geometries() const;
  int tree(int geometry) const;
  int body(int geometry) const;
  const Eigen::Isometry3d& pose_in_body(int geometry) const;
  const Shape& shape(int geometry) const;

  // Contacts for world poses X_WG (one per geometry), into `contacts` (cleared
  // first). A pair (a, b) is reported while φ < margin + reach[a] +
  // reach[b]: reach[g] ≥ 0 [m] is how far geometry g may move, so that
  // contacts are speculative only around moving geometry (an empty reach is
  // zero everywhere).
  void ComputeContacts(const std::vector<Eigen::Isometry3d>& X_WG, double margin,
                       std::vector<ContactPoint>* contacts,
                       const std::vector<double>& reach = {}) const;
  // The radius of a sphere about the geometry's frame origin that holds it
  // (infinite for a half-space).
  double bounding_radius(int geometry) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace coulomb
