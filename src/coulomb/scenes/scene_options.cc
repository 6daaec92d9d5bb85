#include "coulomb/scenes/scene_options.h"

#include <cmath>
#include <stdexcept>

namespace coulomb {

void RejectOptions(const std::string& scene,
                   const std::map<std::string, std::string>& options) {
  if (!options.empty()) {
    throw std::invalid_argument(scene + ": unknown option '" + options.begin()->first +
                                "' (this scene has none)");
  }
}

int ParseCount(const std::string& key, const std::string& text, int max) {
  size_t used = 0;
  int value = -1;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || value <= 0 || value > max) {
    throw std::invalid_argument(key + ": expected an integer from 1 to " +
                                std::to_string(max) + ", got '" + text + "'");
  }
  return value;
}

double ParseFinite(const std::string& key, const std::string& text) {
  size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value)) {
    throw std::invalid_argument(key + ": expected a number, got '" + text + "'");
  }
  return value;
}

double ParsePositive(const std::string& key, const std::string& text) {
  const double value = ParseFinite(key, text);
  if (!(value > 0.0)) {
    throw std::invalid_argument(key + ": expected a positive number, got '" + text + "'");
  }
  return value;
}

bool ParseBool(const std::string& key, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw std::invalid_argument(key + ": expected true or false, got '" + text + "'");
}

}  // namespace coulomb
