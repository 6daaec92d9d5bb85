#pragma once

#include <string>
#include <vector>

#include "coulomb/multibody/mjcf_sites.h"

namespace coulomb {

// An MJCF <sensor> element of the kinds read here, each measuring what MuJoCo's
// does (its sensordata entries, in its order):
//   jointpos, jointvel        a hinge's or slide's q, q̇ (`joint`)
//   jointactuatorfrc          the actuators' effort on that joint
//   actuatorpos, actuatorvel  an actuator's length (its gear times its joint's
//                             or tendon's) and its rate (`actuator`)
//   actuatorfrc               an actuator's force (`actuator`)
//   clock                     the simulation's time
//   tendonpos, tendonvel      a fixed tendon's L, L̇ (`tendon`)
//   framepos, framequat       a site's, a geom's, a body frame's or a body's
//                             inertial frame's position and orientation (w x
//                             y z) in world (objtype site, geom, xbody or body,
//                             `objname`; not a mesh geom, and a body's inertial
//                             frame only where its <inertial> has diaginertia)
//   framexaxis, frameyaxis, framezaxis  that frame's axes in world
//   framelinvel, frameangvel  that frame's origin's velocity and its angular
//                             velocity, in world
//     (these seven relative to another such frame with reftype site, geom,
//     xbody or body and `refname`)
//   framelinacc, frameangacc  that frame's origin's acceleration less gravity
//                             and its angular acceleration, in world
//   subtreecom, subtreelinvel, subtreeangmom  the centre of mass of a body and
//                             the bodies it carries (`body`), its velocity, and
//                             their angular momentum about it, in world
//   gyro, velocimeter         a site's angular and linear velocity in the site's
//                             frame (`site`)
//   rangefinder               the distance along the site's z axis to the nearest
//                             geometry, its own body's aside (−1 for none)
//   touch                     the normal contact forces on the site's body at
//                             points inside the site's volume, summed (`site`)
//   accelerometer             the site's acceleration less gravity, in its frame
//   force, torque             the wrench of the site's body's parent on it and its
//                             subtree, in the site's frame (torque about the site)
// `cutoff` > 0 clamps a value to ±cutoff (touch to [0, cutoff]), as MuJoCo
// does (which refuses one on a quaternion or an axis).
struct MjcfSensor {
  std::string name;  // its own, else "sensor<k>", k its index among the file's sensors
  std::string type;  // the tag above
  // The joint, tendon or actuator; for a frame, site or subtree sensor the
  // body ("": world).
  std::string object{};
  MjcfSite site{};       // a frame or site sensor's frame (X_BS identity for xbody)
  MjcfSite reference{};  // a frame sensor's reference frame (the world's if none)
  double cutoff = 0.0;
};

// The sensors of the MJCF file at `path` that are read (`read`, in file
// order), and each sensor that is not (`unread`: another kind, an objtype or
// reftype camera, a mesh geom, a body's inertial frame MuJoCo finds, a
// subtree of the world body), as "'com' (framepos)". Throws
// std::runtime_error naming the sensor for a missing or unknown site, body
// or object attribute, a reftype without a refname or the other way round,
// a reftype on a sensor that takes none, or a cutoff that is not a number.
struct MjcfSensors {
  std::vector<MjcfSensor> read;
  std::vector<std::string> unread;
};
MjcfSensors ReadMjcfSensors(const std::string& path);

}  // namespace coulomb
