#pragma once

#include <string>
#include <vector>

#include "coulomb/sim/simulation.h"

namespace coulomb {

// A robot's sensors (Trajectory::sensors) and their readings at each frame
// (Trajectory::sensor_samples): frames × the sensors' summed dimensions,
// row-major. trajectory.h5 keeps them under /sensors/ROBOT
// (TrajectoryWriter; ReadRobotSensorRecords reads them back).
struct RobotSensorRecord {
  std::string robot;
  std::vector<RecordedSensor> sensors;
  std::vector<double> readings;
};

}  // namespace coulomb
