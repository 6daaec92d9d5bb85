#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace coulomb {

// Writes one JSON object, key by key (values: strings, numbers, booleans,
// arrays of numbers, strings or objects, and JSON text). Non-finite numbers
// become null (JSON has no NaN or infinity).
class JsonObjectWriter {
 public:
  void Add(const std::string& key, const std::string& value) {
    AddRaw(key, "\"" + Escape(value) + "\"");
  }
  void Add(const std::string& key, const char* value) { Add(key, std::string(value)); }
  void Add(const std::string& key, bool value) { AddRaw(key, value ? "true" : "false"); }
  void Add(const std::string& key, int value) { AddRaw(key, std::to_string(value)); }
  void Add(const std::string& key, double value) { AddRaw(key, Number(value)); }
  template <class Number>
  void Add(const std::string& key, const std::vector<Number>& values) {
    AddRaw(key, Array(values));
  }
  // A JSON array of numbers.
  template <class Number>
  static std::string Array(const std::vector<Number>& values) {
    std::string array = "[";
    for (size_t k = 0; k < values.size(); ++k) {
      array +=
          (k > 0 ? "," : "") + JsonObjectWriter::Number(static_cast<double>(values[k]));
    }
    return array + "]";
  }
  void Add(const std::string& key, const std::vector<std::string>& values) {
    std::string array = "[";
    for (size_t k = 0; k < values.size(); ++k)
      array += (k > 0 ? ", " : "") + ("\"" + Escape(values[k]) + "\"");
    AddRaw(key, array + "]");
  }
  // `json` must be a JSON value (e.g. the text of a JSON file).
  void AddJson(const std::string& key, const std::string& json) { AddRaw(key, json); }
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
  static std::string Number(double value) {
    if (!std::isfinite(value)) return "null";
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.17g", value);
    return buffer;
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
