#pragma once

#include <limits>
#include <optional>
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
  // Its own forces (its class's, or its own attributes): a spring
  // f = −k (L − L_rest) − d L̇ along it, dry friction, and limits.
  double stiffness = 0.0;               // k [N/m]
  double damping = 0.0;                 // d [N·s/m]
  std::optional<double> spring_length;  // L_rest; none: its length at springref
  double friction = 0.0;                // frictionloss [N]
  double lower = -std::numeric_limits<double>::infinity();  // range, when limited
  double upper = std::numeric_limits<double>::infinity();
};

// The fixed tendons of the MJCF file at `path`, in file order (spatial
// tendons are not read: UnreadMjcfElements warns of them), with their
// classes' attributes (MjcfDefaults). Throws std::runtime_error naming the
// tendon for one without joints, a <joint> without its joint or coef
// attribute (MuJoCo requires both), a coefficient that is not a finite
// number, a negative stiffness, damping or frictionloss, a springlength
// dead band (two lengths), a range with lower ≥ upper,
// or two tendons of one name. Joint names are not checked here.
std::vector<MjcfFixedTendon> ReadMjcfFixedTendons(const std::string& path);

}  // namespace coulomb
