#pragma once

#include <string>
#include <vector>

namespace coulomb {

// `coulomb bench solve [--fclib-dir DIR] [--repetitions N] [--max-bodies N]`:
// times SAP solves over the FCLIB files and random problems of growing size,
// dense vs sparse Cholesky, and prints a table. Returns the exit code.
int RunBenchCommand(const std::vector<std::string>& arguments);

}  // namespace coulomb
