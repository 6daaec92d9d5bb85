// Fuzzes the URDF path of a scene (robot_file_harness.h): urdfdom,
// Pinocchio's model building, the link geometries and our checks.
#include "robot_file_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return coulomb::fuzz::LoadRobotFile(data, size, "urdf", ".urdf");
}
