#pragma once

#include <Eigen/Dense>
#include <boost/property_tree/ptree.hpp>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "coulomb/multibody/mjcf_geom_contact.h"

namespace coulomb {

// What an MJCF file says of its geoms' contacts beyond Pinocchio's model:
// the friction MuJoCo gives each one, and which geoms it collides with.
//
// MuJoCo's `friction` attribute holds three coefficients, sliding, torsional
// and rolling; Coulomb's contacts have sliding friction only, μ, the first.
// A geom without a name is known by the name Pinocchio's parser gives its
// collision object (MjcfGeomName).

// The name of a geom's collision object: its own name, or, for a geom
// without one, its body's name ("universe" for <worldbody>) followed by
// "Geom_" and the geom's index among the body's <geom> elements.
std::string MjcfGeomName(const std::string& own_name, const std::string& body_name,
                         int index);

// Gives every body and geom of <worldbody> (`worldbody`, changed in place)
// that has no name one that no other body or geom has: "body_<id>" for a
// body (id its MuJoCo body id, the world's 0), MjcfGeomName's for a geom
// (suffixed with '_' while taken). Pinocchio's parser merges, or refuses,
// bodies without a name nested in one another or side by side.
void NameUnnamedBodiesAndGeoms(boost::property_tree::ptree* worldbody);

// Writes on every geom and site of <worldbody> (in the <mujoco> element
// `root`, in place) the attributes its class gives it (MjcfDefaults: its own
// class, its body's or frame's childclass, the top default), its own
// overriding them, as MuJoCo resolves them; an orientation or a fromto of its
// own replaces its class's orientation and fromto. Pinocchio's parser reads a
// geom class's type and size but neither its mass nor its pos nor its
// orientation. Throws std::runtime_error naming a class not defined.
void ResolveMjcfGeomAndSiteClasses(boost::property_tree::ptree* root);

// Throws std::runtime_error naming the geom for a size that is not
// positive where its type reads it (a sphere's radius, a capsule's or a
// cylinder's radius and half-length, a box's or an ellipsoid's half-sizes;
// the radius alone with fromto), absent ones counting 0, as MuJoCo refuses
// them. On the <mujoco> element `root`, its classes resolved.
void CheckMjcfGeomSizes(const boost::property_tree::ptree& root);

// One geom's, from its attributes (its classes resolved); `name` for errors,
// which are ReadMjcfGeomContacts'.
MjcfGeomContact ReadMjcfGeomContact(const boost::property_tree::ptree& attributes,
                                    const std::string& name);

// Those of every geom of the MJCF file at `path`, under its collision
// object's name (MjcfGeomName). Throws std::runtime_error naming the geom
// for a friction that is not one to three finite numbers ≥ 0, a contype or
// conaffinity that is not an integer in [0, 2³²), or for two geoms of one
// name (MuJoCo refuses repeated names).
std::map<std::string, MjcfGeomContact> ReadMjcfGeomContacts(const std::string& path);

}  // namespace coulomb
