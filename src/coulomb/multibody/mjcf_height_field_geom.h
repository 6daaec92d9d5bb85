#pragma once

#include <string>

#include <Eigen/Geometry>

#include "coulomb/geometry/height_field.h"
#include "coulomb/multibody/mjcf_geom_contact.h"

namespace coulomb {

// A geom of type hfield of an MJCF file's <worldbody>: its name, its pose
// in the file's world frame, its <hfield> asset as a HeightField, and its
// contact attributes. MuJoCo's hfield asset: size = (half_x, half_y,
// elevation_z, base_z); elevations from `elevation` (nrow × ncol numbers,
// its first row at y = +half_y, as an image's top) or a binary `file`
// (int32 nrow, int32 ncol, float32 data, its first row at y = −half_y) or a
// PNG `file` (ReadPngGray's values, its top row at y = +half_y), files found
// as meshes are, through meshdir; or zero; each normalized to [0, 1]
// ((e − min)/(max − min), all 0 when they are equal) and scaled by
// elevation_z.
struct MjcfHeightFieldGeom {
  std::string name;
  Eigen::Isometry3d X_FG = Eigen::Isometry3d::Identity();
  HeightField field;
  MjcfGeomContact contact;
};

}  // namespace coulomb
