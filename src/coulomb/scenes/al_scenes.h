#pragma once

#include <map>
#include <string>

#include "coulomb/scenes/builtin_scenes.h"

namespace coulomb {

// The dish pile of the augmented Lagrangian paper (AL §VII-A1, App. B): two
// bowls and a plate, 0.1 kg each, stacked on the ground under a 5 kg pot,
// slightly off-centre so the contacts are patches with a 50:1 mass ratio
// across them. Near-rigid SAP contact (k = ∞), μ = 0.5, δt = 1/240 s (the
// paper's), 0.5 s. Option dishes=cylinders (default: short cylinders, r =
// 7.5 cm, h = 4 cm for the bowls, 11 cm and 1.2 cm for the plate, 10 cm and
// 12 cm for the pot, stacked) or dishes=sdf (the paper's revolved 2-D SDFs,
// revolved_shell.h, of the same sizes, dropped 1 mm apart: the bowls nest).
Scene DishPileScene(const std::map<std::string, std::string>& options);

// AL §VII-D2: N Laikago quadrupeds (example-robot-data URDF, 18 dofs each,
// collision primitives) dropped from 10 cm above standing height on the
// ground, on a grid 1 m apart, limp; near-rigid contact, μ = 1, δt = 1/240 s,
// 0.5 s, joint limits off (the NCP solvers do not take them yet). Option
// robots=N (default 8).
Scene LaikagoDropScene(const std::map<std::string, std::string>& options);

// AL §VII-A1: an M48 steel nut (ISO 4032: 75 mm across flats, 38 mm high,
// ρ = 7850 kg/m³) threaded onto a fixed M48×5 bolt (80 mm, axis along z,
// 0.1 mm clearance), both as signed distance fields (threaded_fasteners.h),
// contacts clustered to at most 120. The nut starts centred on the bolt in
// phase with its thread and settles onto the flanks. Near-rigid SAP
// contact, δt = 1 ms, 1 s, contact margin 0.5 mm. Options: friction=μ
// (0.15; the thread self-locks above ≈ 0.031), torque=T [N·m] about the
// bolt's axis on the nut (0; T > 0 screws it up the bolt, against gravity),
// turn=θ [rad]: the nut starts turned by θ, P θ/2π higher (0).
Scene BoltNutScene(const std::map<std::string, std::string>& options);

}  // namespace coulomb
