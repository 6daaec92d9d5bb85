#pragma once

#include <boost/property_tree/ptree.hpp>

namespace coulomb {

// A file's joint angles in radians, as Pinocchio's parser must read them.
// Under <compiler angle="degree"> (MuJoCo's default) MuJoCo converts the
// angles of hinge and ball joints only: their range, ref and springref;
// Pinocchio's parser converts every joint's range, so that a slide's range
// of 0.04 m became 0.04° = 0.0007 m. Here each joint's range, ref and
// springref (its own, or its class's: MjcfDefaults) are written on it, a
// hinge's or a ball's in radians, and the compiler says angle="radian"
// (placed first, for a parser that reads in order). Orientations must be
// quaternions already (NormalizeMjcfOrientations). In place on the
// <mujoco> element `root`; a file in radians is left as it is. Throws
// std::runtime_error naming the joint for an angle that is not numbers.
void ConvertMjcfJointAnglesToRadians(boost::property_tree::ptree* root);

}  // namespace coulomb
