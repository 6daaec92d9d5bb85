#pragma once

#include <map>
#include <string>

#include "coulomb/scenes/builtin_scenes.h"

namespace coulomb {

// The test cases of the irrotational contact paper (IRR §IX), with the
// parameters of ../shared/spec/scenes.md. All use k = 1e7 N/m on the moving
// body (the ground and the belt are rigid, so a pair has k = 1e7), stiction
// tolerance v_s = 1e-4 m/s and σ = 1e-3; each material carries both the Hunt
// & Crossley d (Lagged, Similar) and SAP's τ_d, so `--model` switches
// between models with the paper's comparable dissipation. Default model:
// lagged, the paper's reference.

// IRR §IX-A: a 1 kg box (5 cm sides) on a belt oscillating along x at 1 Hz
// with amplitude 0.2 m, x_belt = −0.2 cos(2π t) so that it starts at rest
// under the resting box (a belt already moving at 1.26 m/s would launch the
// box with SAP and Similar, a gliding artifact of its own); μ = 0.7, d = 500 s/m, τ_d =
// 1e-3 s (the extraction reads "τ_d = ×10⁻³ s"; 1e-3 chosen), δt = 0.01 s, 3 s. No
// options.
Scene ConveyorBeltScene(const std::map<std::string, std::string>& options);

// IRR §IX-B: a steel sphere (0.5 kg, 5 cm diameter) released with its
// bottom 5 cm above the ground and 2 m/s horizontal speed; μ = 0.5,
// d = 500 s/m, τ_d = 1e-3 s; δt = 2e-3 s, 0.4 s. It slides, then rolls.
Scene FallingSphereScene(const std::map<std::string, std::string>& options);

// IRR §IX-C, Painlevé: a 0.3 kg rod (capsule, 0.5 m long, 1 cm diameter) at
// 30° to the ground, its lower end touching and leading at 10 m/s; μ = 2.3.
// dissipation=true (default): d = 0.2 s/m, τ_d = 4e-6 s; false: none.
// δt = 1e-5 s, 0.1 s.
Scene SlidingRodScene(const std::map<std::string, std::string>& options);

}  // namespace coulomb
