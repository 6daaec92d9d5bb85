#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "coulomb/scenes/builtin_scenes.h"

namespace coulomb::testing {

// The built-in quadruped_drop scene, or nothing when example-robot-data is
// not installed (*why then says so, for GTEST_SKIP).
inline std::optional<Scene> TryQuadrupedDrop(std::string* why) {
  try {
    return MakeBuiltinScene("quadruped_drop");
  } catch (const std::runtime_error& e) {
    *why = std::string("example-robot-data is not installed (make venv installs it): ") +
           e.what();
    return std::nullopt;
  }
}

}  // namespace coulomb::testing
