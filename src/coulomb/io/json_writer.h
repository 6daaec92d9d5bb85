#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace coulomb {

// Writes one JSON object, key by key (values: strings, numbers, booleans,
// arrays of objects). Non-finite numbers become null
// (JSON has no NaN or infinity).
class JsonObjectWriter {
 public:
  void Add(const std::string& key, const std::string& value) {
    AddRaw(key, "\"" + Escape(value) + "\"");
  }
  void Add(const std::string& key, const char* value) { Add(key, std::string(value)); }
  void Add(const std::string& key, bool value) { AddRaw(key, value ? "true" : "false"); }
  void Add(const std::string& key, int value) { AddRaw(key, std::to_string(value)); }
  void Add(const std::string& key, double value) {
    if (!std::isfinite(value)) return AddRaw(key, "null");
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.17g", value);
    AddRaw(key, buffer);
  }
  void Add(const std::string& key, const std::vector<JsonObjectWriter>& objects) {
    std::string array = "[";
    for (size_t k = 0; k < objects.size(); ++k)
      array += (k > 0 ? ", " : "") + objects[k].str();
    AddRaw(key, array + "]");
  }
  std::string str() const { return "{" + body_ + "}"; }

 private:
  void AddRaw(const std::string& key, const std::string& json) {
    if (!body_.empty()) body_ += ", ";
    body_ += "\"" + Escape(key) + "\": " + json;
  }
  static std::string Escape(const std::string& text) {
    std::string escaped;
    for (char c : text) {
      if (c == '"' || c == '\\') {
        escaped += '\\';
        escaped += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
        escaped += buffer;
      } else {
        escaped += c;
      }
    }
    return escaped;
  }
  std::string body_;
};

}  // namespace coulomb
