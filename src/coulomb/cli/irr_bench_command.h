#pragma once

#include <string>
#include <vector>

namespace coulomb {

// `coulomb bench irr [--case belt|sphere|rod|all] [--quick]`: the studies of
// the irrotational contact paper (IRR §IX) for SAP, Lagged and Similar —
// gliding on the conveyor belt, touch-down and slide→roll of the falling
// sphere, the jam of the sliding rod, and a convergence study in δt per case
// against a Lagged reference at a 10× smaller step with the fitted order.
// Prints Markdown tables. --quick drops the smallest steps. Returns the exit
// code.
int RunIrrBenchCommand(const std::vector<std::string>& arguments);

}  // namespace coulomb
