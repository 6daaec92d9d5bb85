#pragma once

#include <boost/property_tree/ptree.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace coulomb {

// The root <mujoco> element of the MJCF file at `path` (Boost's property
// tree: attributes under "<xmlattr>"), its <include>s expanded as MuJoCo
// expands them, in the form Pinocchio's parser reads as MuJoCo does: each
// geom's and site's class attributes written on it (ResolveMjcfGeomAndSiteClasses),
// orientations as quaternions (NormalizeMjcfOrientations), <frame>s
// flattened (FlattenMjcfFrames), joint angles in radians
// (ConvertMjcfJointAnglesToRadians) and inertias from geoms written as
// <inertial>s (WriteMjcfGeomInertias). Throws std::runtime_error naming the file
// when it (or an included file) cannot be read or has no <mujoco> element,
// or naming what is wrong in it.
boost::property_tree::ptree ReadMjcfRoot(const std::string& path);

// Whether an MJCF <body> element has mocap="true" (MjcfMocapBody).
inline bool IsMjcfMocapBody(const boost::property_tree::ptree& body) {
  return body.get("<xmlattr>.mocap", "false") == "true";
}

// MJCF's default classes, resolved as MuJoCo resolves them for the elements
// read here (joints, geoms, sites, tendons and actuators). The top <default> is class
// "main"; a nested <default class="c"> starts from its parent's attribute values and
// overrides those it sets. An element takes the values of its class (its
// own `class` attribute; for a joint or a geom, otherwise the `childclass`
// of the nearest enclosing body or frame; otherwise "main"), and its own
// attributes override them.
//
// MuJoCo keeps one set of actuator defaults per class, which every actuator
// shortcut (<motor>, <position>, <general>, …) in the class writes with its
// own meaning of the attributes. Here an actuator takes its class's values
// only when they were all set by elements of its own type; mixed types are
// refused by ActuatorAttributes.
class MjcfDefaults {
 public:
  using ptree = boost::property_tree::ptree;

  // `root`: the <mujoco> element. Throws std::runtime_error on a nested
  // <default> without a class, or a class defined twice.
  explicit MjcfDefaults(const ptree& root);

  // Throws std::runtime_error naming the class if an element of <worldbody>
  // or <actuator> names a class (class or childclass) that is not defined.
  void CheckClassesDefined(const ptree& root) const;

  // The attributes of a <joint> element, `class_name` being its class as
  // said above. Throws std::runtime_error on an unknown class.
  ptree JointAttributes(const ptree& own, const std::string& class_name) const;
  // The attributes of a <geom> element, the same way.
  ptree GeomAttributes(const ptree& own, const std::string& class_name) const;
  // The attributes of a <site>, the same way as a geom's.
  ptree SiteAttributes(const ptree& own, const std::string& class_name) const;
  // The attributes of a tendon (<fixed> or <spatial>), the same way (its
  // class is its own `class`, else "main").
  ptree TendonAttributes(const ptree& own, const std::string& class_name) const;
  // The attributes of an actuator element of type `type` (its tag). Throws
  // std::runtime_error on an unknown class, or a class whose actuator
  // defaults come from another actuator type.
  ptree ActuatorAttributes(const std::string& type, const ptree& own) const;

 private:
  struct Class {
    ptree joint;                          // <joint> attributes
    ptree geom;                           // <geom> attributes
    ptree tendon;                         // <tendon> attributes
    ptree site;                           // <site> attributes
    ptree actuator;                       // the actuator shortcuts' attributes
    std::set<std::string> actuator_tags;  // the shortcuts that set them
  };
  void ReadClass(const ptree& element, const std::string& name, Class inherited);
  const Class& Find(const std::string& class_name) const;

  std::map<std::string, Class> classes_;
};

// The finite numbers of an attribute's text ("0 0 -9.81"); `what` names the
// attribute in the std::runtime_error thrown for a non-number or a
// non-finite value.
std::vector<double> ParseMjcfNumbers(const std::string& text, const std::string& what);
// The same, exactly `count` of them (std::runtime_error naming `what`
// otherwise).
std::vector<double> ParseMjcfNumbers(const std::string& text, const std::string& what,
                                     size_t count);
// Numbers as an attribute's text, to round-trip through ParseMjcfNumbers.
std::string FormatMjcfNumbers(const std::vector<double>& numbers);

// `values` overridden, attribute by attribute, by `own` (both the
// "<xmlattr>" subtrees of elements).
boost::property_tree::ptree MergeAttributes(boost::property_tree::ptree values,
                                            const boost::property_tree::ptree& own);

}  // namespace coulomb
