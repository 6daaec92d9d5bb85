#pragma once

#include <memory>
#include <set>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/geometry/collision_filter.h"
#include "coulomb/geometry/contact_point.h"
#include "coulomb/geometry/shape.h"

namespace coulomb {

// How far a geometry may move before its contacts are next queried [m]: a
// reference point of it (its body's origin) by the vector `translation`, and
// every point of the geometry by at most `turn` more than that point (from
// rotation).
struct GeometryMotion {
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  double turn = 0.0;

  // The most any point of the geometry moves: |translation| + turn.
  double reach() const { return translation.norm() + turn; }
};

// The collision geometries of a scene and their pairwise contact query
// (narrow phase by Coal; Coal stays inside collision_world.cc).
//
// Each geometry belongs to a body `body` of tree `tree` (tree −1: the world,
// body 0 its own, static; bodies from 1 the kinematic ones) and sits at X_BG
// in that body's frame. A static geometry (tree −1, body 0) never moves: the
// broad phase files it by its pose at the first query after geometries were
// added, in a tree of static boxes (static_box_tree.h), and takes its motion
// as none; a geometry that moves belongs to a tree or a kinematic body. Pairs on the same
// body, on two static bodies, excluded explicitly, or whose CollisionFilters do not
// collide are never tested. Contacts are
// reported while φ < margin, so approaching bodies are seen one step ahead.
// Flat contacts give their full manifold: Coal's contact patch (a polygon)
// turned into its vertices, each a contact point with the patch's φ, so that
// boxes rest on four corners instead of rocking on one. Pairs of boxes,
// spheres and half-spaces, and ellipsoids and capsules on a half-space, get
// the same patch in closed form
// (closed_form_patch.h), Coal where it does not apply. A pair with an SDF
// shape (threaded fasteners, sampled meshes) is handled by sdf_collision.h
// instead of Coal, its contacts clustered to at most max_sdf_contacts().
class CollisionWorld {
 public:
  // AL §VII-A1 clusters the bolt–nut contacts to 120.
  static constexpr int kDefaultMaxSdfContacts = 120;

  CollisionWorld();
  ~CollisionWorld();
  CollisionWorld(CollisionWorld&&) noexcept;
  CollisionWorld& operator=(CollisionWorld&&) noexcept;

  // Returns the new geometry's index. Throws on an invalid shape.
  int AddGeometry(const Shape& shape, int tree, int body, const Eigen::Isometry3d& X_BG);
  void ExcludePair(int geometry_a, int geometry_b);
  // The geometry's filter (CollisionFilter: by default, it collides with all).
  void SetCollisionFilter(int geometry, const CollisionFilter& filter);

  int num_geometries() const;
  // Inline: asked for each contact's two geometries at every step.
  int tree(int geometry) const { return owners_[geometry].tree; }
  int body(int geometry) const { return owners_[geometry].body; }
  // Whether `geometry` is the world's own (tree −1, body 0): it never moves
  // (the contract of the broad phase's tree of fixed geometry). A kinematic
  // body's geometry (tree −1, body > 0) moves.
  bool is_fixed(int geometry) const {
    return owners_[geometry].tree < 0 && owners_[geometry].body == 0;
  }
  // Whether `geometry` is on body `body` of tree `tree`.
  bool OnBody(int geometry, int tree, int body) const {
    return owners_[geometry].tree == tree && owners_[geometry].body == body;
  }
  const Eigen::Isometry3d& pose_in_body(int geometry) const;
  const Shape& shape(int geometry) const;

  // Contacts for world poses X_WG (one per geometry), into `contacts` (cleared
  // first), with speculative contacts from motion[g] (GeometryMotion; empty:
  // none moves). A pair is tested only if its two bounding spheres, each
  // swept along its translation and grown by its turn, come within `margin`
  // of each other (wherever along its path either geometry stops, they may
  // meet), and reported while φ < margin + reach_a + reach_b: bodies that
  // fall side by side, or a resting body beside a fast one, have no contact.
  void ComputeContacts(const std::vector<Eigen::Isometry3d>& X_WG, double margin,
                       std::vector<ContactPoint>* contacts,
                       const std::vector<GeometryMotion>& motion = {}) const;
  // The pairs of geometries the last ComputeContacts passed to its narrow
  // phase: those its broad phase (bounding spheres, boxes, separating axes)
  // could not tell apart beyond the margin.
  int num_candidate_pairs() const;
  // Contacts kept per SDF pair after clustering (≥ 1; throws otherwise).
  void set_max_sdf_contacts(int max_contacts);
  int max_sdf_contacts() const;
  // Pairs of boxes, spheres and half-spaces by their closed-form patches
  // (closed_form_patch.h; the default), or, switched off, through Coal's
  // GJK/EPA and contact patch: the reference they are checked against.
  void set_closed_form_patches(bool enabled);

  // The radius of a sphere about the geometry's frame origin that holds it
  // (infinite for a half-space).
  double bounding_radius(int geometry) const;

 private:
  // Drops the contacts of a tree's body with the world's geometry (its own
  // or a kinematic body's) that repeat an earlier one: the same two bodies,
  // point and normal (to 1e-9). Two geometries of the world that share a
  // face's edge (a height field's prisms under a box's face) give their
  // shared points twice; a point of the world's surface is one contact.
  void DropRepeatedWorldContacts(std::vector<ContactPoint>* contacts) const;
  // The contacts that may repeat another (a body's on two or more of the
  // world's geometries) into Impl's world_contact_order: by the two bodies
  // (the world's body, then the tree's), then along x, so that repeats lie
  // next to each other.
  void OrderContactsThatMayRepeat(const std::vector<ContactPoint>& contacts) const;
  // A contact of a tree's body with the world's geometry: its geometries as
  // (the world's, the tree's).
  std::pair<int, int> WorldAndTreeGeometries(const ContactPoint& c) const;

  struct Owner {
    int tree;
    int body;
  };
  struct Impl;
  std::unique_ptr<Impl> impl_;
  // By geometry, for the inline accessors; the broad phase keeps a copy in
  // its compact per-geometry records, which it reads pair after pair.
  std::vector<Owner> owners_;
};

}  // namespace coulomb
