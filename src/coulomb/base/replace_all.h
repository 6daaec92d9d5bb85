#pragma once

#include <string>
#include <string_view>

namespace coulomb {

// `text` with every occurrence of `from` (not empty) replaced by `to`, left
// to right, the replacements not searched again: a message about a
// temporary copy of a file made to name the file itself.
inline std::string ReplaceAll(std::string text, std::string_view from,
                              std::string_view to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace coulomb
