#include "coulomb/cli/arguments.h"

#include <cmath>

namespace coulomb {

double Arguments::DoubleValue(const std::string& name) {
  const std::string text = Value(name);
  size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !std::isfinite(value)) {
    throw UsageError(name + ": expected a finite number, got '" + text + "'");
  }
  return value;
}

int Arguments::IntValue(const std::string& name) {
  const std::string text = Value(name);
  size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size())
    throw UsageError(name + ": expected an integer, got '" + text + "'");
  return value;
}

}  // namespace coulomb
