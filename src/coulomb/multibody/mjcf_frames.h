#pragma once

#include <boost/property_tree/ptree.hpp>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "coulomb/multibody/mjcf_sites.h"

namespace coulomb {

// MJCF's <frame> elements (MuJoCo 3) taken out of <worldbody>: each frame's
// children (bodies, geoms, sites, cameras, lights, frames) put in its place
// in its parent, their poses composed with the frame's (pos ← p_f + R_f pos,
// quat ← q_f q; a geom's fromto ends moved alike), and the frame's
// childclass given to the bodies in it that have none, as MuJoCo composes
// them. Pinocchio's parser skips frames, and what is in them. In place on
// the <mujoco> element `root`, whose orientations are quaternions
// (NormalizeMjcfOrientations). Throws std::runtime_error naming the
// attribute of a pos, quat or fromto of the wrong size.
void FlattenMjcfFrames(boost::property_tree::ptree* root);

// The numbers of attribute `name` in an element's attributes (`tag` names
// the element in errors), `otherwise` (their count) when it is absent.
// Throws std::runtime_error for another count or a non-number.
std::vector<double> MjcfAttributeNumbers(const boost::property_tree::ptree& attributes,
                                         const std::string& name, const std::string& tag,
                                         std::vector<double> otherwise);

// An element's pose in its parent from its pos and quat (w x y z, normalized;
// the form NormalizeMjcfOrientations leaves): X_PE.
Eigen::Isometry3d MjcfElementPose(const boost::property_tree::ptree& attributes,
                                  const std::string& tag);

// ReadMjcfSites of a file's root element (ReadMjcfRoot).
std::map<std::string, MjcfSite> ReadMjcfSites(const boost::property_tree::ptree& root);
// The named geoms of a file's root element (ReadMjcfRoot) as frames: the
// body each is on ("" for the world's), its pose there (pos and orientation,
// or fromto as a site's), its type (its size is not read). Throws
// std::runtime_error naming the geom for a fromto that is not six numbers or
// whose ends coincide.
std::map<std::string, MjcfSite> ReadMjcfGeomFrames(
    const boost::property_tree::ptree& root);
// The inertial frames of a file's root element's (ReadMjcfRoot) bodies that
// give one (an <inertial> with pos, orientation and diaginertia, which
// MuJoCo takes as its principal frame), by body name.
std::map<std::string, MjcfSite> ReadMjcfInertialFrames(
    const boost::property_tree::ptree& root);

}  // namespace coulomb
