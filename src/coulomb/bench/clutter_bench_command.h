#pragma once

#include <string>
#include <vector>

namespace coulomb {

// `coulomb bench clutter [--duration S] [--max-bodies N]`: the scalability
// study of SAP §VI-C (issue #3). The built-in clutter scene with and without
// walls at 10, 20, 40, 80 and 160 bodies (up to --max-bodies), each run for
// --duration seconds of simulated time (default 10). Prints a Markdown
// table: contacts at the end, mean and max SAP iterations per step, mean
// iterations over the last half, wall time per step and its split between
// geometry (collision queries), assembly (free motion and the contact
// problem) and the contact solve. Returns the exit code (1 if a run failed).
int RunClutterBenchCommand(const std::vector<std::string>& arguments);

}  // namespace coulomb
