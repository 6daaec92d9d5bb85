#include "coulomb/multibody/mjcf_inertias.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <stdexcept>
#include <vector>

#include <Eigen/Dense>

#include "coulomb/geometry/convex_mesh.h"
#include "coulomb/geometry/shape.h"
#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_frames.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// A uniform solid in its body's frame: mass [kg], centre of mass [m] and
// rotational inertia about it [kg·m²].
struct SolidMass {
  double mass = 0.0;
  Eigen::Vector3d com = Eigen::Vector3d::Zero();
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
};

// What the geoms of a file need from the rest of it.
struct InertiaSettings {
  bool from_geoms_always = false;  // inertiafromgeom="true"
  double lowest_group = 0, highest_group = 5;
  std::map<std::string, std::pair<std::string, Eigen::Vector3d>> meshes;  // file, scale
};

// Unit-density volume, centroid and inertia of an ellipsoid of semi-axes r.
UnitDensityMass Ellipsoid(const Eigen::Vector3d& r) {
  UnitDensityMass solid;
  solid.volume = 4.0 / 3.0 * std::numbers::pi * r.prod();
  const Eigen::Vector3d squares = r.cwiseAbs2();
  solid.inertia.diagonal() =
      solid.volume / 5.0 *
      Eigen::Vector3d(squares.y() + squares.z(), squares.x() + squares.z(),
                      squares.x() + squares.y());
  return solid;
}

// The geom's shape in its own frame, and that frame's pose in the body.
UnitDensityMass GeomSolid(const ptree& geom, const std::string& name,
                          const InertiaSettings& settings, Eigen::Isometry3d* X_BG) {
  const std::string type = geom.get("type", "sphere");
  std::vector<double> size =
      ParseMjcfNumbers(geom.get("size", "0"), "geom '" + name + "': size");
  if (size.size() > 3)
    throw std::runtime_error("geom '" + name + "': size has more than 3 numbers");
  size.resize(3, 0.0);
  *X_BG = MjcfElementPose(geom, "geom");
  double half_length = size[1];
  if (geom.count("fromto")) {  // placed along its axis from one end to the other
    const std::vector<double> ends =
        MjcfAttributeNumbers(geom, "fromto", "geom", {0, 0, 0, 0, 0, 0});
    const Eigen::Vector3d from(ends[0], ends[1], ends[2]), to(ends[3], ends[4], ends[5]);
    X_BG->translation() = 0.5 * (from + to);
    X_BG->linear() =
        Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), to - from)
            .toRotationMatrix();
    half_length = 0.5 * (to - from).norm();
  }
  if (type == "sphere") return UnitDensityMassProperties(Sphere{size[0]});
  if (type == "capsule")
    return UnitDensityMassProperties(Capsule{size[0], 2.0 * half_length});
  if (type == "cylinder")
    return UnitDensityMassProperties(Cylinder{size[0], 2.0 * half_length});
  const Eigen::Vector3d semi_axes = geom.count("fromto")
                                        ? Eigen::Vector3d(size[0], size[0], half_length)
                                        : Eigen::Vector3d(size[0], size[1], size[2]);
  if (type == "box") return UnitDensityMassProperties(Box{2.0 * semi_axes});
  if (type == "ellipsoid") return Ellipsoid(semi_axes);
  if (type == "mesh") {
    const auto mesh = settings.meshes.find(geom.get("mesh", ""));
    if (mesh == settings.meshes.end())
      throw std::runtime_error("geom '" + name + "': no <mesh> asset named '" +
                               geom.get("mesh", "") + "'");
    try {
      return UnitDensityMassProperties(
          LoadConvexMesh(mesh->second.first, mesh->second.second));
    } catch (const std::exception& e) {
      throw std::runtime_error("geom '" + name + "': " + e.what());
    }
  }
  return {};  // planes and height fields: no volume
}

// The geom's solid in its body's frame (zero mass if it has none).
SolidMass GeomMass(const ptree& geom, const std::string& name,
                   const InertiaSettings& settings) {
  const double group = geom.get("group", 0.0);
  if (group < settings.lowest_group || group > settings.highest_group) return {};
  Eigen::Isometry3d X_BG;
  const UnitDensityMass solid = GeomSolid(geom, name, settings, &X_BG);
  if (!(solid.volume > 0.0)) return {};
  const double mass =
      geom.count("mass")
          ? MjcfAttributeNumbers(geom, "mass", "geom", {0})[0]
          : MjcfAttributeNumbers(geom, "density", "geom", {1000})[0] * solid.volume;
  const Eigen::Matrix3d& R = X_BG.linear();
  return {mass, X_BG * solid.centroid,
          mass / solid.volume * R * solid.inertia * R.transpose()};
}

// Σ of the solids about their common centre of mass.
SolidMass Combine(const std::vector<SolidMass>& parts) {
  SolidMass sum;
  for (const SolidMass& part : parts) {
    sum.mass += part.mass;
    sum.com += part.mass * part.com;
  }
  if (!(sum.mass > 0.0)) return {};
  sum.com /= sum.mass;
  for (const SolidMass& part : parts) {
    const Eigen::Vector3d d = part.com - sum.com;
    sum.inertia +=
        part.inertia +
        part.mass * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
  }
  return sum;
}

// The inertias of `body` and of the bodies in it.
void WriteBodyInertias(const InertiaSettings& settings, ptree* body) {
  static const ptree none;
  std::vector<SolidMass> parts;
  bool has_inertial = false;
  for (auto& [tag, child] : *body) {
    if (tag == "body") WriteBodyInertias(settings, &child);
    has_inertial |= tag == "inertial";
    if (tag == "geom") {
      const ptree& geom = child.get_child("<xmlattr>", none);
      parts.push_back(GeomMass(geom, geom.get("name", ""), settings));
    }
  }
  if (has_inertial && !settings.from_geoms_always) return;
  const SolidMass sum = Combine(parts);
  if (!(sum.mass > 0.0)) return;
  body->erase("inertial");
  ptree inertial;
  inertial.put("<xmlattr>.pos",
               FormatMjcfNumbers({sum.com.x(), sum.com.y(), sum.com.z()}));
  inertial.put("<xmlattr>.mass", FormatMjcfNumbers({sum.mass}));
  const Eigen::Matrix3d& I = sum.inertia;
  inertial.put("<xmlattr>.fullinertia",
               FormatMjcfNumbers({I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)}));
  body->push_front({"inertial", inertial});
}

// The file's compiler settings and mesh assets.
InertiaSettings ReadSettings(const std::string& path, const ptree& root) {
  static const ptree none;
  InertiaSettings settings;
  std::string mesh_directory;
  for (const auto& [section, content] : root) {
    if (section == "compiler") {
      const ptree& compiler = content.get_child("<xmlattr>", none);
      settings.from_geoms_always = compiler.get("inertiafromgeom", "auto") == "true";
      const std::vector<double> groups =
          MjcfAttributeNumbers(compiler, "inertiagrouprange", "compiler", {0, 5});
      settings.lowest_group = groups[0];
      settings.highest_group = groups[1];
      mesh_directory = compiler.get("meshdir", compiler.get("assetdir", ""));
    }
  }
  const std::filesystem::path folder =
      std::filesystem::absolute(path).parent_path() / mesh_directory;
  for (const auto& [section, content] : root) {
    if (section != "asset") continue;
    for (const auto& [tag, mesh] : content) {
      if (tag != "mesh") continue;
      const ptree& attributes = mesh.get_child("<xmlattr>", none);
      const std::string file = attributes.get("file", "");
      const std::vector<double> scale =
          MjcfAttributeNumbers(attributes, "scale", "mesh", {1, 1, 1});
      const std::string name =
          attributes.get("name", std::filesystem::path(file).stem().string());
      settings.meshes[name] = {(folder / file).string(),
                               Eigen::Vector3d(scale[0], scale[1], scale[2])};
    }
  }
  return settings;
}

}  // namespace

void WriteMjcfGeomInertias(const std::string& path, ptree* root) {
  const InertiaSettings settings = ReadSettings(path, *root);
  for (auto& [section, content] : *root) {
    if (section != "worldbody") continue;
    for (auto& [tag, body] : content)
      if (tag == "body") WriteBodyInertias(settings, &body);
  }
  if (!settings.from_geoms_always) return;
  for (auto& [section, content] : *root)
    if (section == "compiler") content.put("<xmlattr>.inertiafromgeom", "auto");
}

}  // namespace coulomb
