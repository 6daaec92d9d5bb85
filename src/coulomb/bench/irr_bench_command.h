#pragma once

#include <string>
#include <vector>

namespace coulomb {

// `coulomb bench irr [--case belt|sphere|rod|clutter|all] [--quick]`: the
// studies of the irrotational contact paper (IRR §IX–X) for SAP, Lagged and
// Similar: gliding on the conveyor belt, touch-down and slide→roll of the
// falling sphere, the jam of the sliding rod, a convergence study in δt per
// case against a Lagged reference at a 10× smaller step with the fitted
// order, and the clutter study (irr_clutter_bench.h). Prints Markdown
// tables; --quick drops the smallest steps. Returns the exit code.
int RunIrrBenchCommand(const std::vector<std::string>& arguments);

}  // namespace coulomb
