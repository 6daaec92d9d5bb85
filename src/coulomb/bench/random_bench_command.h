#pragma once

#include <string>
#include <vector>

namespace coulomb {

// coulomb bench random [--count N] [--seed S]: SAP and CANAL on N random
// contact problems in five classes (docs/reliability.md): well conditioned,
// mass ratios up to 1e6, a rank-deficient J (contacts given twice), μ up to
// 2, and contacts up to 1e12 N/m or rigid. SAP's global convergence theorem
// (SAP §IV-C) says it converges on all of them; the table says whether it
// did, per class, with the worst e_m, and CANAL's failure rate on the same
// problems (their exact NCP), alone and with its ADMM fallback, with the
// worst natural-map residual after the fallback.
int RunRandomBenchCommand(const std::vector<std::string>& arguments);

}  // namespace coulomb
