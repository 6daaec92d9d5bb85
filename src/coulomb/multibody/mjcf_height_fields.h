#pragma once

#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <boost/property_tree/ptree.hpp>

#include "coulomb/geometry/height_field.h"
#include "coulomb/multibody/mjcf_geoms.h"

namespace coulomb {

// A geom of type hfield of an MJCF file's <worldbody>: its name, its pose
// in the file's world frame, its <hfield> asset as a HeightField, and its
// contact attributes. MuJoCo's hfield asset: size = (half_x, half_y,
// elevation_z, base_z); elevations from `elevation` (nrow × ncol numbers,
// its first row at y = +half_y, as an image's top) or a binary `file`
// (int32 nrow, int32 ncol, float32 data, its first row at y = −half_y; found
// as meshes are, through meshdir), or zero; each normalized to [0, 1]
// ((e − min)/(max − min), all 0 when they are equal) and scaled by
// elevation_z.
struct MjcfHeightFieldGeom {
  std::string name;
  Eigen::Isometry3d X_FG = Eigen::Isometry3d::Identity();
  HeightField field;
  MjcfGeomContact contact;
};

// Removes the hfield assets and geoms from `root` (the <mujoco> element as
// ReadMjcfRoot leaves it, its geoms named), which Pinocchio's parser does
// not read, and returns the geoms. Throws std::runtime_error naming the
// geom or asset (`path` the file) for an hfield geom on a body (MuJoCo's
// are the world's), one naming no asset, a PNG file (not read: convert it
// to the binary form), an unreadable file, or a size or count that does not
// fit.
std::vector<MjcfHeightFieldGeom> TakeMjcfHeightFields(const std::string& path,
                                                      boost::property_tree::ptree* root);

}  // namespace coulomb
