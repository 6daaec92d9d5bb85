#include "coulomb/multibody/mjcf_orientations.h"

#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "coulomb/multibody/mjcf_defaults.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

const std::set<std::string> kOriented = {"body",     "frame",  "geom", "site",
                                         "inertial", "camera", "light"};

struct Compiler {
  double radians_per_unit = M_PI / 180.0;
  std::string eulerseq = "xyz";
};

Compiler ReadCompiler(const ptree& root) {
  Compiler compiler;
  for (const auto& [section, content] : root) {
    if (section != "compiler") continue;
    if (content.get("<xmlattr>.angle", "degree") == "radian")
      compiler.radians_per_unit = 1;
    compiler.eulerseq = content.get("<xmlattr>.eulerseq", compiler.eulerseq);
  }
  if (compiler.eulerseq.size() != 3 ||
      compiler.eulerseq.find_first_not_of("xyzXYZ") != std::string::npos)
    throw std::runtime_error("<compiler eulerseq=\"" + compiler.eulerseq +
                             "\">: expected three of x, y, z, X, Y, Z");
  return compiler;
}

Eigen::Vector3d Unit(const Eigen::Vector3d& vector, const std::string& what) {
  if (!(vector.norm() > 0.0)) throw std::runtime_error(what + ": a zero vector");
  return vector.normalized();
}

Eigen::Quaterniond Euler(const std::vector<double>& angles, const Compiler& compiler) {
  Eigen::Quaterniond rotation = Eigen::Quaterniond::Identity();
  for (int k = 0; k < 3; ++k) {
    const char axis = compiler.eulerseq[k];
    const int index = std::tolower(axis) - 'x';
    const Eigen::Quaterniond turn(Eigen::AngleAxisd(compiler.radians_per_unit * angles[k],
                                                    Eigen::Vector3d::Unit(index)));
    rotation = std::islower(axis) ? rotation * turn : turn * rotation;
  }
  return rotation;
}

// The orientation the element's attributes give, if one of those above.
std::optional<Eigen::Quaterniond> Orientation(const ptree& attributes,
                                              const std::string& tag,
                                              const Compiler& compiler) {
  const auto text = [&](const char* name) {
    return attributes.get_optional<std::string>(name);
  };
  const std::string what = "<" + tag + "> ";
  if (const auto axisangle = text("axisangle")) {
    const std::vector<double> n = ParseMjcfNumbers(*axisangle, what + "axisangle", 4);
    return Eigen::Quaterniond(
        Eigen::AngleAxisd(compiler.radians_per_unit * n[3],
                          Unit(Eigen::Vector3d(n[0], n[1], n[2]), what + "axisangle")));
  }
  if (const auto euler = text("euler"))
    return Euler(ParseMjcfNumbers(*euler, what + "euler", 3), compiler);
  if (const auto xyaxes = text("xyaxes")) {
    const std::vector<double> n = ParseMjcfNumbers(*xyaxes, what + "xyaxes", 6);
    const Eigen::Vector3d x = Unit(Eigen::Vector3d(n[0], n[1], n[2]), what + "xyaxes");
    const Eigen::Vector3d y_given(n[3], n[4], n[5]);
    const Eigen::Vector3d y = Unit(y_given - x.dot(y_given) * x, what + "xyaxes");
    Eigen::Matrix3d R;
    R << x, y, x.cross(y);
    return Eigen::Quaterniond(R);
  }
  if (const auto quat = text("quat")) {
    const std::vector<double> n = ParseMjcfNumbers(*quat, what + "quat", 4);
    const Eigen::Vector4d wxyz(n[0], n[1], n[2], n[3]);
    if (!(wxyz.norm() > 0.0)) throw std::runtime_error(what + "quat: a zero vector");
    return Eigen::Quaterniond(n[0], n[1], n[2], n[3]);
  }
  if (const auto zaxis = text("zaxis")) {
    const std::vector<double> n = ParseMjcfNumbers(*zaxis, what + "zaxis", 3);
    return MjcfTurnFromZ(Unit(Eigen::Vector3d(n[0], n[1], n[2]), what + "zaxis"));
  }
  return std::nullopt;
}

void WriteQuaternion(const Eigen::Quaterniond& rotation, ptree* attributes) {
  const Eigen::Quaterniond q = rotation.normalized();
  for (const char* name : kMjcfOrientationAttributes) attributes->erase(name);
  attributes->put("quat", FormatMjcfNumbers({q.w(), q.x(), q.y(), q.z()}));
}

void Normalize(ptree* element, const Compiler& compiler) {
  for (auto& [tag, child] : *element) {
    if (tag.front() == '<' || !kOriented.count(tag)) continue;
    if (auto attributes = child.get_child_optional("<xmlattr>")) {
      if (const auto rotation = Orientation(*attributes, tag, compiler))
        WriteQuaternion(*rotation, &*attributes);
    }
    if (tag == "body" || tag == "frame") Normalize(&child, compiler);
  }
}

}  // namespace

Eigen::Quaterniond MjcfTurnFromZ(const Eigen::Vector3d& direction) {
  const Eigen::Vector3d z = Eigen::Vector3d::UnitZ(), n = direction.normalized();
  const Eigen::Vector3d axis = z.cross(n);
  const double sine = axis.norm();
  if (!(sine > 1e-15))  // along ±z: a half turn about x for −z, as MuJoCo's
    return Eigen::Quaterniond(
        Eigen::AngleAxisd(n.z() < 0.0 ? M_PI : 0.0, Eigen::Vector3d::UnitX()));
  return Eigen::Quaterniond(Eigen::AngleAxisd(std::atan2(sine, n.z()), axis / sine));
}

void NormalizeMjcfOrientations(ptree* root) {
  const Compiler compiler = ReadCompiler(*root);
  for (auto& [section, content] : *root)
    if (section == "worldbody") Normalize(&content, compiler);
}

}  // namespace coulomb
