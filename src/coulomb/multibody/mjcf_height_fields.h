#pragma once

#include <string>
#include <vector>

#include <boost/property_tree/ptree.hpp>

#include "coulomb/multibody/mjcf_height_field_geom.h"

namespace coulomb {

// Removes the hfield assets and geoms from `root` (the <mujoco> element as
// ReadMjcfRoot leaves it, its geoms named), which Pinocchio's parser does
// not read, and returns the geoms. Throws std::runtime_error naming the
// geom or asset (`path` the file) for an hfield geom on a body (MuJoCo's
// are the world's), one naming no asset, a PNG file of a kind not read
// (ReadPngGray), an unreadable file, or a size or count that does not fit.
std::vector<MjcfHeightFieldGeom> TakeMjcfHeightFields(const std::string& path,
                                                      boost::property_tree::ptree* root);

}  // namespace coulomb
