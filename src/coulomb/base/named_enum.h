#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace coulomb {

// One spelling per enumerator, shared by every parser and printer of an
// enum (command line, scene files, JSON, Python). An enum opts in by
// specializing EnumNames with
//   static constexpr std::string_view kWhat = "solver";  // for messages
//   static constexpr std::array<std::pair<E, std::string_view>, N> kNames = {…};
// and then has ToString(E) and ParseEnum<E>(name).
template <class Enum>
struct EnumNames;

// The name of `value` ("unknown" for a value outside the table).
template <class Enum>
constexpr std::string_view EnumName(Enum value) {
  for (const auto& [entry, name] : EnumNames<Enum>::kNames) {
    if (entry == value) return name;
  }
  return "unknown";
}

// "a, b, c": the valid names, for error messages and --help.
template <class Enum>
std::string EnumNameList() {
  std::string list;
  for (const auto& [entry, name] : EnumNames<Enum>::kNames) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

// The enumerator spelled `name`; throws std::invalid_argument
// "unknown solver 'x' (use a, b, c)" otherwise.
template <class Enum>
Enum ParseEnum(std::string_view name) {
  for (const auto& [entry, spelling] : EnumNames<Enum>::kNames) {
    if (spelling == name) return entry;
  }
  throw std::invalid_argument("unknown " + std::string(EnumNames<Enum>::kWhat) + " '" +
                              std::string(name) + "' (use " + EnumNameList<Enum>() + ")");
}

}  // namespace coulomb
