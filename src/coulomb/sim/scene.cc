#include "coulomb/sim/scene.h"

#include <cstdlib>

namespace coulomb {

std::string RobotDataDirectory() {
  const char* from_environment = std::getenv("COULOMB_ROBOT_DATA_DIR");
  return from_environment != nullptr ? from_environment : COULOMB_ROBOT_DATA_DIR;
}

Eigen::Isometry3d Pose(const Eigen::Vector3d& position, const Eigen::Vector3d& rpy) {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() = (Eigen::AngleAxisd(rpy.z(), Eigen::Vector3d::UnitZ()) *
                   Eigen::AngleAxisd(rpy.y(), Eigen::Vector3d::UnitY()) *
                   Eigen::AngleAxisd(rpy.x(), Eigen::Vector3d::UnitX()))
                      .toRotationMatrix();
  pose.translation() = position;
  return pose;
}

}  // namespace coulomb
