#include "model_text.h"

#include <atomic>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace coulomb::testing {
namespace {

// A file of its own for each call (tests of one binary may run on threads).
std::filesystem::path TemporaryModelPath(const char* extension) {
  static std::atomic<int> counter{0};
  return std::filesystem::temp_directory_path() /
         ("model_text_" + std::to_string(getpid()) + "_" + std::to_string(counter++) +
          extension);
}

// Writes `text`, loads it with `load`, removes the file whatever happens.
template <typename Load>
MultibodyTree LoadFromText(const std::string& text, const char* extension, Load load) {
  const std::filesystem::path path = TemporaryModelPath(extension);
  std::ofstream(path) << text;
  struct Remove {
    const std::filesystem::path& path;
    ~Remove() { std::filesystem::remove(path); }
  } remove{path};
  return load(path.string());
}

}  // namespace

MultibodyTree MjcfTreeFromText(const std::string& text) {
  return LoadFromText(text, ".xml", [](const std::string& path) {
    return MultibodyTree::FromMjcf(path, MultibodyTree::MjcfRootFloats(path));
  });
}

MultibodyTree UrdfTreeFromText(const std::string& text, bool floating_base) {
  return LoadFromText(text, ".urdf", [floating_base](const std::string& path) {
    return MultibodyTree::FromUrdf(path, floating_base);
  });
}

}  // namespace coulomb::testing
