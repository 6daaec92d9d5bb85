#pragma once

#include <string>
#include <vector>

namespace coulomb {

// `coulomb bench ncp [--case dish_pile|bolt_nut] [--cases N] [--threads N]`:
// the single-step test of the AL paper (AL §VII-A1, B1) on the dish pile
// (after 0.5 s of settling, SAP) or the nut on the bolt (10 places along
// the bolt, each settled for 50 ms): N (default 100) cases of the step's
// contact problem, each with a random external wrench on every body, solved by CANAL,
// SubADMM and PGS (and SAP for reference). Prints the median natural-map residual against
// iterations and against wall time, and the median time to reach 1e-4, 1e-6, 1e-8, as
// Markdown tables. Returns the exit code.
int RunNcpBenchCommand(const std::vector<std::string>& arguments);

// `coulomb bench laikago [--threads N]`: AL §VII-D2. 8 and 27 Laikago
// quadrupeds dropped on the ground; SubADMM (split per tree) against ADMM
// without the split (one factorization of the whole system), 100 iterations
// per step: median wall time per step with contacts and the median NCP
// residual they reach. Returns the exit code.
int RunLaikagoBenchCommand(const std::vector<std::string>& arguments);

}  // namespace coulomb
