#pragma once

#include <map>
#include <string>

#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace coulomb {

// Helpers of the built-in scenes: poses and the key=value options that
// `coulomb run BUILTIN --set key=value` passes. Parse errors throw
// std::invalid_argument naming the key and the expected form.

// X_WB from a position and roll-pitch-yaw [rad], R = Rz(y) Ry(p) Rx(r).
Eigen::Isometry3d Pose(const Eigen::Vector3d& position,
                       const Eigen::Vector3d& rpy = Eigen::Vector3d::Zero());
// Throws if `options` is not empty (for scenes without options).
void RejectOptions(const std::string& scene,
                   const std::map<std::string, std::string>& options);
int ParseCount(const std::string& key, const std::string& text);        // > 0
double ParsePositive(const std::string& key, const std::string& text);  // > 0, finite
bool ParseBool(const std::string& key, const std::string& text);        // true | false

}  // namespace coulomb
