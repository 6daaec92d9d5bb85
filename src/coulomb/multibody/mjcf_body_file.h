#pragma once

#include <optional>
#include <string>
#include <vector>

#include "coulomb/multibody/mjcf_height_field_geom.h"

namespace coulomb {

// The names of the bodies directly under an MJCF file's <worldbody>, in file
// order ("" for a body without one): each is a robot of the scene (or, if
// nothing in it moves, fixed geometry). Throws std::runtime_error naming
// the file when it cannot be read.
std::vector<std::string> ReadMjcfTopLevelBodies(const std::string& path);

// One top-level body of an MJCF file and what of the file belongs to it, as
// an MJCF file of its own that the readers of one robot per file read (a
// temporary file, removed with this object); or, without a body, the whole
// file. Either way its <include>s are expanded (Pinocchio's parser does not
// expand them) and its meshes found where the original file finds them. MuJoCo's world is
// shared: <default>, <asset> (meshes found where the original file finds them), <option>
// and the geoms of <worldbody> itself are kept; of <actuator>, <equality> and
// <contact><exclude>, what names only this body's joints and bodies (or the world). What
// names another body is left out and listed in `left_out` (a scene warning), as is the
// <keyframe> of a file of several bodies, whose qpos spans all of them. Bodies and geoms
// without a name are given one (NameUnnamedBodiesAndGeoms); the rest is ReadMjcfRoot's
// form. With `take_height_fields`, the copy leaves out the file's height
// fields, which Pinocchio's parser does not read, and holds them in
// height_fields() (TakeMjcfHeightFields), for the copy Pinocchio reads.
//
// With `keep_placement`, a body without a joint of its own (a table, a
// robot's fixed base) stays where the file puts it, nested in a massless
// body named kMjcfAnchorBody; otherwise it sits at the origin, for the
// scene's pose to place it.
inline constexpr char kMjcfAnchorBody[] = "coulomb_anchor";
class MjcfBodyFile {
 public:
  // Throws std::runtime_error naming the file when it cannot be read or
  // written, or when `body` is not a top-level body of it.
  MjcfBodyFile(const std::string& path, const std::optional<std::string>& body,
               bool keep_placement, bool take_height_fields = false);
  ~MjcfBodyFile();
  MjcfBodyFile(const MjcfBodyFile&) = delete;
  MjcfBodyFile& operator=(const MjcfBodyFile&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<std::string>& left_out() const { return left_out_; }
  // Whether this is the whole file (no body named, or the only one).
  bool whole_file() const { return whole_file_; }
  const std::vector<MjcfHeightFieldGeom>& height_fields() const { return height_fields_; }

 private:
  std::string path_;
  std::vector<MjcfHeightFieldGeom> height_fields_;
  std::vector<std::string> left_out_;
  bool whole_file_ = false;
};

}  // namespace coulomb
