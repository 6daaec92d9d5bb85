#pragma once

#include <string>
#include <vector>

#include "coulomb/sim/contact_model.h"
#include "coulomb/sim/multibody_system.h"

namespace coulomb {

// Checks of legal but dangerous set-ups, at a system's current state (after
// UpdateAllTrees), before it is stepped (docs/reliability.md).
//
// A crowd: bodies placed in one spot. A body (tree) whose geometries' bounding
// spheres (radius r) have, within r/2 + r'/2 of their centres, geometries of
// more than kMaxCrowd other trees cannot be separated by contact in a useful
// time, and its
// contacts grow as the square of the crowd (1000 spheres at one point: 499 500
// contacts, 200 s for one step on a laptop). Refused: throws
// std::invalid_argument naming a body of the crowd and its size.
inline constexpr int kMaxCrowd = 20;
void CheckNoCrowd(const MultibodySystem& system);

// A time step δt [s] in which a body can pass through another: a fall from
// rest (½ |g| δt²) or the initial speed of a body (|v| δt) longer than the
// smallest bounding radius of a simulated geometry; contacts may be missed.
// Returns one sentence per problem (none when δt is fine), with the δt that
// would resolve it.
std::vector<std::string> TimeStepWarnings(const MultibodySystem& system,
                                          double time_step);

// A run whose deepest penetration [m] (SimulationSummary::penetration_max)
// exceeds the largest bounding radius of a simulated geometry: bodies passed
// into or through each other, which no contact model does at a resolved
// time step (a fall or a speed too fast for δt, a load far too heavy for the
// contact's stiffness; or contacts found too late: a look-ahead [s] shorter
// than the default, which the sentence then names). Under the Lagged models
// it says why a shorter step, not a stiffer contact, is the cure: their
// friction is bounded by the impulse of the step's starting overlap (γ_n0,
// lagged_contact.h). One sentence, or none.
std::vector<std::string> PenetrationWarnings(const MultibodySystem& system,
                                             ContactModel model, double penetration_max,
                                             double lookahead, double default_lookahead);

}  // namespace coulomb
