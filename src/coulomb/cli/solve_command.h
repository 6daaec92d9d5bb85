#pragma once

#include <string>
#include <vector>

namespace coulomb {

// `coulomb solve PROBLEM.hdf5|DIRECTORY|--example [options]`; returns the exit
// code: 0 converged, 1 a solve did not converge, 2 bad input.
int RunSolveCommand(const std::vector<std::string>& arguments);

}  // namespace coulomb
