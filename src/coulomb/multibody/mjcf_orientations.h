#pragma once

#include <boost/property_tree/ptree.hpp>

#include <Eigen/Geometry>

namespace coulomb {

// MJCF's ways of giving an element's orientation, each replaced by the unit
// quaternion `quat` (w x y z) it stands for, as MuJoCo's compiler reads it:
// * axisangle="x y z a": a turn by a about the axis, normalized (Pinocchio's
//   parser leaves the axis as written);
// * euler="a b c": turns about the axes of <compiler eulerseq> (default
//   "xyz"), a lowercase axis one of the rotating frame (R ← R R_axis), an
//   uppercase axis one of the fixed frame (R ← R_axis R) (Pinocchio's parser
//   takes every axis as a rotating one);
// * xyaxes="x y": the frame's x axis, and its y axis made orthogonal to x;
// * zaxis="z": the shortest turn taking (0, 0, 1) to z;
// angles in <compiler angle> (degrees by default). Done for the bodies,
// frames, geoms, sites, inertials, cameras and lights of <worldbody>, in
// place on the <mujoco> element `root` (ResolveMjcfGeomAndSiteClasses first: a
// geom's class may orient it). Throws std::runtime_error naming the
// attribute for a wrong count of numbers, a zero axis or quaternion, or an
// unknown eulerseq.
void NormalizeMjcfOrientations(boost::property_tree::ptree* root);

// The shortest turn taking (0, 0, 1) to `direction` (nonzero), a half turn
// about x for −z, as MuJoCo's compiler turns a zaxis or a fromto.
Eigen::Quaterniond MjcfTurnFromZ(const Eigen::Vector3d& direction);

// The attributes that orient an element.
inline constexpr const char* kMjcfOrientationAttributes[] = {"quat", "axisangle", "euler",
                                                             "xyaxes", "zaxis"};

}  // namespace coulomb
