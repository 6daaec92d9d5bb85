#pragma once

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "coulomb/geometry/shape.h"

namespace coulomb {

// A solid given by its signed distance φ(p) [m] in its geometry frame G:
// negative inside, zero on the surface, positive outside, with ∇φ the
// outward unit normal on the surface. Fields here are exact on and near the
// surface and a lower bound on the distance far from it (they combine
// pieces by max/min), which is what contact needs: a point with φ < margin
// is never missed.
//
// Besides φ, a field carries its surface samples: points on the zero level
// set with their outward normals. Contact between two SDF shapes tests each
// one's samples against the other's φ (sdf_collision.h), so the samples'
// spacing is the contact's resolution.
class SignedDistanceField {
 public:
  virtual ~SignedDistanceField() = default;

  // φ at p_G [m]; *gradient (if not null) receives ∇φ, a unit vector
  // wherever the field is a true distance.
  virtual double Evaluate(const Eigen::Vector3d& p_G,
                          Eigen::Vector3d* gradient) const = 0;

  // Surface points (φ = 0 to round-off) and their outward unit normals, in G.
  const std::vector<Eigen::Vector3d>& sample_points() const { return sample_points_; }
  const std::vector<Eigen::Vector3d>& sample_normals() const { return sample_normals_; }
  // The samples' bounding box in G: a point farther than d outside it has
  // φ > d, up to the samples' spacing (contact queries pad it by their margin).
  const Eigen::AlignedBox3d& sample_bounds() const { return sample_bounds_; }

 protected:
  // Takes the candidate points (a display surface's vertices, say), projects
  // each onto the zero level set by two steps p ← p − φ(p) ∇φ(p) and keeps
  // those then within `tolerance` [m] of it.
  void SetSurfaceSamples(const std::vector<Eigen::Vector3d>& candidates,
                         double tolerance);

 private:
  std::vector<Eigen::Vector3d> sample_points_;
  std::vector<Eigen::Vector3d> sample_normals_;
  Eigen::AlignedBox3d sample_bounds_;
};

// The SdfShape of a field and its closed display surface (outward
// triangles); throws std::invalid_argument if the surface is not a solid.
SdfShape MakeSdfShape(std::string description,
                      std::shared_ptr<const SignedDistanceField> field,
                      std::shared_ptr<const TriangleMesh> surface);

}  // namespace coulomb
