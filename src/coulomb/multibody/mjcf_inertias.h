#pragma once

#include <boost/property_tree/ptree.hpp>
#include <string>

namespace coulomb {

// MuJoCo's inertias from geoms, written as each body's <inertial pos mass
// fullinertia>, so that Pinocchio's parser reads the inertia MuJoCo
// computes. Pinocchio's leaves out the geoms that collide with nothing
// (contype = conaffinity = 0: decorative parts, which have mass in MuJoCo)
// and gives a mesh no inertia of its own.
//
// A body takes its inertia from its geoms when <compiler inertiafromgeom>
// is "true", or "auto" (MuJoCo's default) and it has no <inertial>. Then
// each of its geoms whose group lies in <compiler inertiagrouprange>
// (default 0 5) adds a uniform solid of its shape: mass m_g = its `mass`,
// else `density` (1000 kg/m³) × volume; sphere, box, capsule, cylinder and
// ellipsoid in closed form (placed by pos and quat, or by fromto along its
// axis), a mesh as the convex hull of its file's vertices (scaled by its
// asset's `scale`: MuJoCo's inertia for a convex mesh); planes and height
// fields add nothing. The body's
//   m = Σ m_g,  c = Σ m_g c_g / m,
//   I_c = Σ [R_g I_g R_gᵀ + m_g (‖d_g‖² E − d_g d_gᵀ)],  d_g = c_g − c,
// in its frame. A body whose geoms have no mass is left as it is;
// inertiafromgeom "true" becomes "auto" once every body has its <inertial>.
// In place on the <mujoco> element `root` (frames flattened, orientations
// quaternions), meshes found beside `path` (the file's meshdir, else
// assetdir). Throws std::runtime_error naming the geom for a shape it
// cannot size or a mesh it cannot load.
void WriteMjcfGeomInertias(const std::string& path, boost::property_tree::ptree* root);
}  // namespace coulomb
