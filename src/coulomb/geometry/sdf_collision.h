#pragma once

#include <vector>

#include <Eigen/Geometry>

#include "coulomb/geometry/contact_clustering.h"
#include "coulomb/geometry/contact_point.h"
#include "coulomb/geometry/shape.h"

namespace coulomb {

// Contact of a pair in which at least one shape is an SDF shape (AL
// §VII-A1): every surface sample x of an SDF shape is tested against the
// other shape's signed distance φ (shape_signed_distance.h); with the other
// shape's outward gradient g there, the contact has
//   φ,  normal n = ∓g (from A into B),  p = x ∓ ½ φ g
// (p the midpoint between x and the other surface's nearest point x − φ g).
// When both are SDF shapes both sample sets are tested, so that neither
// one's features slip between the other's samples. Points with φ < margin
// are kept, then clustered to at most max_contacts (contact_clustering.h).
class SdfCollision {
 public:
  // One geometry of the pair: its index, shape, pose and BoundingRadius.
  struct Side {
    int geometry;
    const Shape& shape;
    const Eigen::Isometry3d& X_WG;
    double bounding_radius;
  };
  // Appends the contacts of a pair (a.geometry < b.geometry) to *contacts.
  // Reuses its buffers.
  void AddContacts(const Side& a, const Side& b, double margin, int max_contacts,
                   std::vector<ContactPoint>* contacts);

 private:
  // Tests the samples of `sampled` against `field`; `a_is_sampled` says
  // which side of the pair the samples are on.
  void TestSamples(const Side& sampled, const Side& field, bool a_is_sampled,
                   double margin);

  std::vector<ContactPoint> pair_points_;
  ContactClustering clustering_;
};

}  // namespace coulomb
