#pragma once

#include <string>
#include <vector>

namespace coulomb {

// A pair of bodies of an MJCF file's <contact><exclude body1 body2/>:
// MuJoCo computes no contact between their geoms.
struct MjcfExcludedPair {
  std::string body_a;
  std::string body_b;
};

// The excluded pairs of the MJCF file at `path`, in file order. Throws
// std::runtime_error for an <exclude> that lacks body1 or body2.
std::vector<MjcfExcludedPair> ReadMjcfContactExcludes(const std::string& path);

}  // namespace coulomb
