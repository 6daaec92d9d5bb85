// Fuzzes the MJCF path of a scene (robot_file_harness.h): Pinocchio's MJCF
// parser and model building, our checks of the file and of the model, the
// geoms, and the file run as a scene by itself (its bodies split into
// robots, its <option>).
#include "robot_file_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return coulomb::fuzz::LoadRobotFile(data, size, "mjcf", ".xml");
}
