#include "coulomb/sim/scene.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace coulomb {

std::string RobotDataDirectory() {
  const char* from_environment = std::getenv("COULOMB_ROBOT_DATA_DIR");
  const std::string directory =
      from_environment != nullptr ? from_environment : COULOMB_ROBOT_DATA_DIR;
  if (directory.empty() || !std::filesystem::is_directory(directory)) {
    throw std::runtime_error(
        "example-robot-data not found" +
        (directory.empty() ? std::string() : " at " + directory) +
        ": install it (pip install --no-deps example-robot-data==6.0.0; make venv does) "
        "or set COULOMB_ROBOT_DATA_DIR to its robots folder");
  }
  return directory;
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

int StepsInDuration(double duration, double time_step) {
  const double steps = std::round(duration / time_step);
  if (steps >= 1.0 && steps <= std::numeric_limits<int>::max())
    return static_cast<int>(steps);
  std::ostringstream message;
  message << duration << " s is ";
  if (steps < 1.0) {
    message << "shorter than half the time step (" << time_step
            << " s): the run would take no step";
  } else {
    message << "more than " << std::numeric_limits<int>::max() << " steps of "
            << time_step << " s, the most a run can take: run it in parts";
  }
  throw std::invalid_argument(message.str());
}

}  // namespace coulomb
