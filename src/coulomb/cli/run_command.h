#pragma once

#include <string>
#include <vector>

namespace coulomb {

// `coulomb run [builtin-name] [--dt S] [--duration S] [--scheme NAME]
// [--rel-tol X] [--set key=value]... [--out DIR] [--json]`; returns the exit
// code: 0 success, 1 a step failed (the trajectory up to it is kept), 2 bad input.
int RunRunCommand(const std::vector<std::string>& arguments);

// `coulomb scenes`: the built-in scenes, one line each.
int RunScenesCommand(const std::vector<std::string>& arguments);

}  // namespace coulomb
