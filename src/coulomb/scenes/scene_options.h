#pragma once

#include <map>
#include <string>

#include "coulomb/sim/scene.h"

namespace coulomb {

// Helpers of the built-in scenes: the key=value options that
// `coulomb run BUILTIN --set key=value` passes. Parse errors throw
// std::invalid_argument naming the key and the expected form. (Pose() is in
// sim/scene.h.)

// Throws if `options` is not empty (for scenes without options).
void RejectOptions(const std::string& scene,
                   const std::map<std::string, std::string>& options);
// A count in [1, max]: scenes bound their sizes so that a typo cannot ask
// for more memory than the machine has.
int ParseCount(const std::string& key, const std::string& text, int max);
double ParseFinite(const std::string& key, const std::string& text);
double ParsePositive(const std::string& key, const std::string& text);  // > 0, finite
bool ParseBool(const std::string& key, const std::string& text);        // true | false

}  // namespace coulomb
