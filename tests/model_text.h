#pragma once

// Robots and objects for tests, written as MJCF or URDF text: each loads the
// text through a temporary file (the loaders read files), removed again.

#include <string>

#include "coulomb/multibody/multibody_tree.h"

namespace coulomb::testing {

// MultibodyTree::FromMjcf of `text` (floating as in MuJoCo when its root
// body has a free joint).
MultibodyTree MjcfTreeFromText(const std::string& text);

// MultibodyTree::FromUrdf of `text`, floating or on a fixed base.
MultibodyTree UrdfTreeFromText(const std::string& text, bool floating_base);

}  // namespace coulomb::testing
