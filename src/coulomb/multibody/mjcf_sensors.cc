#include "coulomb/multibody/mjcf_sensors.h"

#include <optional>
#include <set>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_frames.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

const std::set<std::string> kOnJoints{"jointpos", "jointvel", "jointactuatorfrc"};
const std::set<std::string> kOnTendons{"tendonpos", "tendonvel"};
const std::set<std::string> kOnActuators{"actuatorpos", "actuatorvel", "actuatorfrc"};
// Those relative to a reference frame (reftype, refname) first.
const std::set<std::string> kRelative{"framepos",   "framequat",  "framexaxis",
                                      "frameyaxis", "framezaxis", "framelinvel",
                                      "frameangvel"};
const std::set<std::string> kOnFrames{"framepos",    "framequat",   "framexaxis",
                                      "frameyaxis",  "framezaxis",  "framelinvel",
                                      "frameangvel", "framelinacc", "frameangacc"};
const std::set<std::string> kOnSubtrees{"subtreecom", "subtreelinvel", "subtreeangmom"};
const std::set<std::string> kOnSites{
    "gyro", "velocimeter", "touch", "accelerometer", "force", "torque", "rangefinder"};
// Those on the whole model, on no object.
const std::set<std::string> kOnModel{"clock", "e_potential", "e_kinetic"};

// The names of the bodies of `element` and those in it.
void CollectBodies(const ptree& element, std::set<std::string>* bodies) {
  for (const auto& [tag, child] : element) {
    if (tag != "body") continue;
    bodies->insert(child.get("<xmlattr>.name", ""));
    CollectBodies(child, bodies);
  }
}

class SensorReader {
 public:
  explicit SensorReader(const ptree& root)
      : sites_(ReadMjcfSites(root)),
        geoms_(ReadMjcfGeomFrames(root)),
        inertials_(ReadMjcfInertialFrames(root)) {
    if (const auto world = root.get_child_optional("worldbody"))
      CollectBodies(*world, &bodies_);
  }

  // The sensor `tag` with `attributes`, the k-th of the file's; nullopt
  // (and a line in *unread) for one not read.
  std::optional<MjcfSensor> Read(const std::string& tag, const ptree& attributes, int k,
                                 std::vector<std::string>* unread) const {
    MjcfSensor sensor{.name = attributes.get("name", "sensor" + std::to_string(k)),
                      .type = tag};
    const std::string named = "'" + sensor.name + "' (" + tag + ")";
    const std::string what = "sensor " + named;
    const bool frame = kOnFrames.count(tag) > 0;
    const std::string objtype = attributes.get("objtype", "");
    const std::string reftype = attributes.get("reftype", "");
    if (attributes.count("reftype") != attributes.count("refname"))
      throw std::runtime_error(what + ": reftype and refname go together");
    if (!(kOnJoints.count(tag) || kOnTendons.count(tag) || frame ||
          kOnActuators.count(tag) || kOnModel.count(tag) || kOnSites.count(tag) ||
          kOnSubtrees.count(tag)) ||
        (frame && !Readable(objtype, attributes.get("objname", ""))) ||
        (!reftype.empty() && !Readable(reftype, attributes.get("refname", "")))) {
      unread->push_back(named);
      return std::nullopt;
    }
    if (!reftype.empty() && !kRelative.count(tag))
      throw std::runtime_error(what + ": takes no reftype (MuJoCo refuses it too)");
    const std::vector<double> cutoff =
        ParseMjcfNumbers(attributes.get("cutoff", "0"), what + " cutoff");
    if (cutoff.size() != 1 || cutoff[0] < 0.0)
      throw std::runtime_error(what + ": cutoff must be one number ≥ 0");
    sensor.cutoff = cutoff[0];
    if (kOnJoints.count(tag) || kOnTendons.count(tag)) {
      sensor.object =
          Required(attributes, kOnJoints.count(tag) ? "joint" : "tendon", what);
    } else if (kOnActuators.count(tag)) {
      sensor.object = Required(attributes, "actuator", what);
    } else if (kOnSubtrees.count(tag)) {
      const std::string body = Required(attributes, "body", what);
      sensor.object = body == "world" ? "" : Body(body, what);  // "": every body
    } else if (frame) {
      sensor.site = Frame(objtype, Required(attributes, "objname", what), what);
      sensor.object = sensor.site.body;
    } else if (!kOnModel.count(tag)) {
      sensor.site = Site(Required(attributes, "site", what), what);
      sensor.object = sensor.site.body;
    }
    if (!reftype.empty())
      sensor.reference = Frame(reftype, attributes.get<std::string>("refname"), what);
    return sensor;
  }

 private:
  static std::string Required(const ptree& attributes, const std::string& name,
                              const std::string& what) {
    const std::string value = attributes.get(name, "");
    if (value.empty()) throw std::runtime_error(what + ": " + name + " missing");
    return value;
  }

  // Whether the frame of object `name` of `type` (an objtype or reftype) is
  // read: a site's, a body's, a geom's but a mesh's (whose frame MuJoCo moves
  // to the mesh's centroid and principal axes), and a body's inertial frame
  // where the file gives it with diaginertia (else MuJoCo finds the
  // principal axes). A name not in the file counts as read: Frame refuses it.
  bool Readable(const std::string& type, const std::string& name) const {
    if (type == "site" || type == "xbody") return true;
    if (type == "geom") {
      const auto geom = geoms_.find(name);
      return geom == geoms_.end() || geom->second.type != "mesh";
    }
    return type == "body" && (inertials_.count(name) || !bodies_.count(name));
  }

  // The frame of a site, a geom, a body's inertial frame (objtype body) or
  // a body (xbody): the world's for "world".
  MjcfSite Frame(const std::string& type, const std::string& name,
                 const std::string& what) const {
    if (type == "site") return Find(sites_, "site", name, what);
    if (type == "geom") return Find(geoms_, "geom", name, what);
    if (type == "body") return Find(inertials_, "body", name, what);
    return MjcfSite{.body = name == "world" ? "" : Body(name, what)};
  }

  std::string Body(const std::string& name, const std::string& what) const {
    if (!bodies_.count(name))
      throw std::runtime_error(what + ": no body named '" + name + "'");
    return name;
  }

  static const MjcfSite& Find(const std::map<std::string, MjcfSite>& frames,
                              const std::string& kind, const std::string& name,
                              const std::string& what) {
    const auto frame = frames.find(name);
    if (frame == frames.end())
      throw std::runtime_error(what + ": no " + kind + " named '" + name + "'");
    return frame->second;
  }
  const MjcfSite& Site(const std::string& name, const std::string& what) const {
    return Find(sites_, "site", name, what);
  }

  std::map<std::string, MjcfSite> sites_;
  std::map<std::string, MjcfSite> geoms_;
  std::map<std::string, MjcfSite> inertials_;
  std::set<std::string> bodies_;
};

}  // namespace

MjcfSensors ReadMjcfSensors(const std::string& path) {
  const ptree root = ReadMjcfRoot(path);
  const SensorReader reader(root);
  MjcfSensors sensors;
  int k = 0;
  for (const auto& [section, content] : root) {
    if (section != "sensor") continue;
    for (const auto& [tag, element] : content) {
      if (tag.front() == '<') continue;
      static const ptree none;
      if (auto sensor = reader.Read(tag, element.get_child("<xmlattr>", none), k++,
                                    &sensors.unread))
        sensors.read.push_back(std::move(*sensor));
    }
  }
  return sensors;
}

}  // namespace coulomb
