#pragma once

#include <map>
#include <string>

#include "coulomb/scenes/builtin_scenes.h"

namespace coulomb {

// The dish pile of the augmented Lagrangian paper (AL §VII-A1, App. B) from
// primitives: two bowl-like short cylinders (r = 7.5 cm, h = 4 cm) and a
// plate-like thin one (r = 11 cm, h = 1.2 cm), 0.1 kg each, stacked on the
// ground under a 5 kg pot (r = 10 cm, h = 12 cm), slightly off-centre so the
// contacts are patches with a 50:1 mass ratio across them. Near-rigid SAP
// contact (k = ∞), μ = 0.5, δt = 1/240 s (the paper's), 0.5 s. No options.
Scene DishPileScene(const std::map<std::string, std::string>& options);

// AL §VII-D2: N Laikago quadrupeds (example-robot-data URDF, 18 dofs each,
// collision primitives) dropped from 10 cm above standing height on the
// ground, on a grid 1 m apart, limp; near-rigid contact, μ = 1, δt = 1/240 s,
// 0.5 s, joint limits off (the NCP solvers do not take them yet). Option
// robots=N (default 8).
Scene LaikagoDropScene(const std::map<std::string, std::string>& options);

}  // namespace coulomb
