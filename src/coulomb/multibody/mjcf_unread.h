#pragma once

#include <string>
#include <vector>

namespace coulomb {

// What of an MJCF file changes MuJoCo's dynamics but is not read here, one
// line per kind, for a warning: equality constraints other than joint
// couplings and connects and welds of bodies or sites ("2 <equality>
// constraints (tendon, flex) are not read"),
// spatial tendons, fixed tendons' armature and explicit contact pairs;
// geoms' condim other than 3, and <option>'s fluid (density, viscosity, wind). Other
// contact parameters (solref, solimp) are not listed: the scene's contact materials
// replace them by design. Empty when there are none.
std::vector<std::string> UnreadMjcfElements(const std::string& path);

}  // namespace coulomb
