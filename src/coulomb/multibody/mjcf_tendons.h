#pragma once

#include <string>
#include <vector>

namespace coulomb {

// An MJCF <tendon><fixed>: a length L = Σ_k c_k q_k over one-dof joints
// (MuJoCo's fixed tendon; its velocity L̇ = Σ_k c_k q̇_k). An actuator on it
// applies c_k f to each joint for its force f (MuJoCo's moment arms).
struct MjcfFixedTendon {
  struct Joint {
    std::string name;
    double coefficient = 1.0;  // c_k, MuJoCo's coef [m/rad or m/m]
  };
  std::string name;  // "" when the file gives none
  std::vector<Joint> joints;
};

// The fixed tendons of the MJCF file at `path`, in file order (spatial
// tendons are not read: UnreadMjcfElements warns of them). Throws
// std::runtime_error naming the tendon for one without joints, a <joint>
// without its joint or coef attribute (MuJoCo requires both), a
// coefficient that is not a finite number,
// or two tendons of one name. Joint names are not checked here.
std::vector<MjcfFixedTendon> ReadMjcfFixedTendons(const std::string& path);

}  // namespace coulomb
