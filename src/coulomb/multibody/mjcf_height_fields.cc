#include "coulomb/multibody/mjcf_height_fields.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "coulomb/multibody/mjcf_defaults.h"
#include "coulomb/multibody/mjcf_frames.h"
#include "coulomb/multibody/mjcf_geoms.h"
#include "coulomb/multibody/png_gray.h"

namespace coulomb {
namespace {

using boost::property_tree::ptree;

// The largest grid read, 1024 × 1024 points: 2 million prisms, about 2 GB.
constexpr long long kMaxHeightFieldPoints = 1024LL * 1024;

void CheckGridSize(long long rows, long long cols, const std::string& what) {
  if (rows * cols > kMaxHeightFieldPoints)
    throw std::runtime_error(what + ": " + std::to_string(rows) + " × " +
                             std::to_string(cols) +
                             " elevations; at most 1048576 (1024 × 1024) are read");
}

// An element's attributes (none: empty).
ptree AttributesOf(const ptree& element) {
  const auto attributes = element.get_child_optional("<xmlattr>");
  return attributes ? *attributes : ptree();
}

// The raw elevations of a binary hfield file, row 0 at y = −half_y.
std::vector<double> ReadBinaryElevations(const std::string& file, int* rows, int* cols) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file + ": file not found");
  int32_t size[2] = {0, 0};
  in.read(reinterpret_cast<char*>(size), sizeof(size));
  const auto bytes = static_cast<long long>(std::filesystem::file_size(file));
  // nrow · ncol < 2^62; the file's float count is compared, not its byte
  // count, which for sides near 2^31 would overflow a long long.
  if (!in || size[0] < 1 || size[1] < 1 || bytes % 4 != 0 ||
      bytes / 4 - 2 != static_cast<long long>(size[0]) * size[1])
    throw std::runtime_error(file +
                             ": not a MuJoCo binary height field (int32 nrow, int32 "
                             "ncol, float32 data[nrow × ncol])");
  CheckGridSize(size[0], size[1], file);
  std::vector<float> data(static_cast<size_t>(size[0]) * size[1]);
  in.read(reinterpret_cast<char*>(data.data()),
          static_cast<std::streamsize>(data.size() * sizeof(float)));
  *rows = size[0];
  *cols = size[1];
  return {data.begin(), data.end()};
}

// The raw elevations of a PNG hfield file (PngGray's values), row 0 at
// y = −half_y: the image's top row is y = +half_y, as MuJoCo reads it.
std::vector<double> PngElevations(const std::string& file, int* rows, int* cols) {
  const PngGray image = ReadPngGray(file, kMaxHeightFieldPoints);
  *rows = image.height;
  *cols = image.width;
  std::vector<double> elevations;
  elevations.reserve(image.values.size());
  for (int r = image.height - 1; r >= 0; --r) {
    const auto row = image.values.begin() + static_cast<long>(r) * image.width;
    elevations.insert(elevations.end(), row, row + image.width);
  }
  return elevations;
}

// The raw elevations of an <hfield> asset, row 0 at y = −half_y.
std::vector<double> RawElevations(const ptree& asset, const std::string& what,
                                  const std::filesystem::path& asset_folder, int* rows,
                                  int* cols) {
  *rows = asset.get("nrow", 0);
  *cols = asset.get("ncol", 0);
  if (const auto file = asset.get_optional<std::string>("file")) {
    std::string extension = std::filesystem::path(*file).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(), ::tolower);
    if (extension == ".png")
      return PngElevations((asset_folder / *file).string(), rows, cols);
    return ReadBinaryElevations((asset_folder / *file).string(), rows, cols);
  }
  CheckGridSize(std::max(*rows, 0), std::max(*cols, 0), what);
  const std::size_t count =
      static_cast<std::size_t>(std::max(*rows, 0)) * std::max(*cols, 0);
  const auto text = asset.get_optional<std::string>("elevation");
  if (!text) return std::vector<double>(count, 0.0);
  const std::vector<double> given = ParseMjcfNumbers(*text, what + ": elevation");
  if (given.size() != count)
    throw std::runtime_error(what + ": elevation has " + std::to_string(given.size()) +
                             " numbers for nrow × ncol = " + std::to_string(count));
  std::vector<double> flipped(count);  // the attribute's first row is y = +half_y
  for (int r = 0; r < *rows; ++r)
    std::copy_n(given.begin() + static_cast<long>(r) * *cols, *cols,
                flipped.begin() + static_cast<long>(*rows - 1 - r) * *cols);
  return flipped;
}

HeightField ReadHeightField(const ptree& asset, const std::string& what,
                            const std::filesystem::path& asset_folder) {
  HeightField field;
  std::vector<double> heights =
      RawElevations(asset, what, asset_folder, &field.rows, &field.cols);
  const std::vector<double> size =
      MjcfAttributeNumbers(asset, "size", "hfield", {0, 0, 0, 0});
  if (!(size[2] >= 0.0))
    throw std::runtime_error(what + ": size's elevation scale must be ≥ 0");
  const auto [low, high] = std::minmax_element(heights.begin(), heights.end());
  const double lowest = heights.empty() ? 0.0 : *low;
  const double range = heights.empty() ? 0.0 : *high - *low;
  for (double& height : heights)
    height = range > 0.0 ? (height - lowest) / range * size[2] : 0.0;
  field.heights = std::move(heights);
  field.half_size = Eigen::Vector2d(size[0], size[1]);
  field.base_depth = size[3];
  return field;
}

// The <hfield> assets (their attributes) by name, taken out of `root`.
std::map<std::string, ptree> TakeAssets(ptree* root) {
  std::map<std::string, ptree> assets;
  for (auto& [section, content] : *root) {
    if (section != "asset") continue;
    for (auto it = content.begin(); it != content.end();) {
      if (it->first != "hfield") {
        ++it;
        continue;
      }
      const ptree attributes = AttributesOf(it->second);
      std::string name = attributes.get("name", "");
      if (name.empty() && attributes.count("file"))  // MuJoCo's: the file's stem
        name = std::filesystem::path(attributes.get<std::string>("file")).stem().string();
      assets[name] = attributes;
      it = content.erase(it);
    }
  }
  return assets;
}

std::filesystem::path AssetFolder(const ptree& root) {
  for (const auto& [section, compiler] : root)
    if (section == "compiler") return compiler.get("<xmlattr>.meshdir", "");
  return {};
}

void RefuseOnBodies(const std::string& path, const ptree& element) {
  for (const auto& [tag, child] : element) {
    if (tag == "body") {
      for (const auto& [inner, geom] : child) {
        if (inner == "geom" && geom.get("<xmlattr>.type", "") == "hfield")
          throw std::runtime_error(path + ": geom '" + geom.get("<xmlattr>.name", "") +
                                   "': an hfield geom of body '" +
                                   child.get("<xmlattr>.name", "") +
                                   "' (MuJoCo's height fields are fixed: make it a "
                                   "geom of <worldbody>)");
      }
      RefuseOnBodies(path, child);
    }
  }
}

}  // namespace

std::vector<MjcfHeightFieldGeom> TakeMjcfHeightFields(const std::string& path,
                                                      ptree* root) {
  const std::map<std::string, ptree> assets = TakeAssets(root);
  const std::filesystem::path folder = AssetFolder(*root);
  std::vector<MjcfHeightFieldGeom> geoms;
  const auto world = root->get_child_optional("worldbody");
  if (!world) return geoms;
  RefuseOnBodies(path, *world);
  for (auto it = world->begin(); it != world->end();) {
    const ptree attributes = AttributesOf(it->second);
    if (it->first != "geom" || attributes.get("type", "") != "hfield") {
      ++it;
      continue;
    }
    MjcfHeightFieldGeom geom;
    geom.name = attributes.get("name", "");
    const std::string what = path + ": geom '" + geom.name + "'";
    const std::string asset_name = attributes.get("hfield", "");
    const auto asset = assets.find(asset_name);
    if (asset == assets.end())
      throw std::runtime_error(what + ": no <hfield> asset named '" + asset_name + "'");
    geom.field =
        ReadHeightField(asset->second, path + ": hfield '" + asset_name + "'", folder);
    geom.X_FG = MjcfElementPose(attributes, "geom");
    geom.contact = ReadMjcfGeomContact(attributes, geom.name);
    geoms.push_back(std::move(geom));
    it = world->erase(it);
  }
  return geoms;
}

}  // namespace coulomb
