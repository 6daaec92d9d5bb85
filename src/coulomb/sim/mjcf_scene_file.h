#pragma once

#include <string>

namespace coulomb {

// Whether `path` names a MuJoCo MJCF file (it ends in ".xml"): such a file
// runs as a scene of its own.
bool IsMjcfFile(const std::string& path);

// The scene of the MJCF file at `path` run by itself, as YAML text for
// LoadSceneText(text, path): its robot (bodies, joints, actuators, and the
// geoms of its <worldbody>: the floor of a MuJoCo scene file), named after
// <mujoco model> (else the file); a file of several top-level bodies (a
// robot and the objects it handles, a table) gives each its robot entry
// (`body: NAME`, named after the body; the world geoms once). MuJoCo's time step
// and gravity from <option>, its joint damping implicit (unless <flag
// eulerdamp="disable"/>) and its geoms' frictions combined as MuJoCo
// combines them (the larger of a pair's), and the scene defaults for the
// rest (contact material, SAP; duration 1 s). With a `keyframe`, each
// robot that moves starts at that <key> of the file (its share of the
// key's qpos, qvel and ctrl) and each mocap body at its mpos and mquat, as
// MuJoCo's mj_resetDataKeyframe starts the whole model. Throws SceneFileError naming the
// file when it is missing or its <option> is invalid.
std::string MjcfSceneText(const std::string& path, const std::string& keyframe = "");

}  // namespace coulomb
