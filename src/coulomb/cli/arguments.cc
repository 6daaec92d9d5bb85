#include "coulomb/cli/arguments.h"

#include <cmath>
#include <optional>

namespace coulomb {
namespace {

// Converts the whole of `text` with `parse` (std::stod, std::stoi, …), or
// nothing if it is not entirely a number.
template <typename Parse>
auto ParseWhole(const std::string& text, Parse&& parse)
    -> std::optional<decltype(parse(text, nullptr))> {
  size_t used = 0;
  try {
    const auto value = parse(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

double Arguments::DoubleValue(const std::string& name) {
  const std::string text = Value(name);
  const auto value = ParseWhole(
      text, [](const std::string& s, size_t* used) { return std::stod(s, used); });
  if (!value || !std::isfinite(*value)) {
    throw UsageError(name + ": expected a finite number, got '" + text + "'");
  }
  return *value;
}

int Arguments::IntValue(const std::string& name) {
  const std::string text = Value(name);
  const auto value = ParseWhole(
      text, [](const std::string& s, size_t* used) { return std::stoi(s, used); });
  if (!value) throw UsageError(name + ": expected an integer, got '" + text + "'");
  return *value;
}

int Arguments::IntValueAtLeast(const std::string& name, int minimum) {
  const int value = IntValue(name);
  if (value < minimum) throw UsageError(name + " must be ≥ " + std::to_string(minimum));
  return value;
}

int Arguments::IntValueInRange(const std::string& name, int minimum, int maximum) {
  const int value = IntValue(name);
  if (value < minimum || value > maximum) {
    throw UsageError(name + " must be from " + std::to_string(minimum) + " to " +
                     std::to_string(maximum) + ", got " + std::to_string(value));
  }
  return value;
}

double Arguments::PositiveValue(const std::string& name) {
  const double value = DoubleValue(name);
  if (!(value > 0.0)) throw UsageError(name + " must be positive");
  return value;
}

double Arguments::NonNegativeValue(const std::string& name) {
  const double value = DoubleValue(name);
  if (!(std::isfinite(value) && value >= 0.0))
    throw UsageError(name + " must be a finite number ≥ 0");
  return value;
}

double Arguments::FractionValue(const std::string& name) {
  const double value = DoubleValue(name);
  if (!(value > 0.0 && value < 1.0)) {
    throw UsageError(name + " must be in (0, 1), got " + std::to_string(value));
  }
  return value;
}

}  // namespace coulomb
