#pragma once

#include <boost/property_tree/ptree.hpp>
#include <map>
#include <string>

namespace coulomb {

// What an MJCF file says of its geoms beyond Pinocchio's model: the contact
// friction MuJoCo gives each one.
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

// The sliding friction μ of each geom of the MJCF file at `path` that sets
// `friction`, by its own attribute or its class (MjcfDefaults: its own
// class, its body's childclass, the top default), under its collision
// object's name (MjcfGeomName). Geoms that set none are absent: they take
// the scene's contact material (μ = 1 by default, MuJoCo's default too).
// Throws std::runtime_error naming the geom for a friction that is not one
// to three finite numbers ≥ 0, or for two geoms of one name (MuJoCo refuses
// repeated names).
std::map<std::string, double> ReadMjcfGeomFrictions(const std::string& path);

}  // namespace coulomb
