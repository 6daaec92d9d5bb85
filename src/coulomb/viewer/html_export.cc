#include "coulomb/viewer/html_export.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "coulomb/viewer/viewer_assets.h"

namespace coulomb {
namespace {

std::string Base64(const std::string& bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t left = bytes.size() - i;
    uint32_t word = static_cast<uint8_t>(bytes[i]) << 16;
    if (left > 1) word |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (left > 2) word |= static_cast<uint8_t>(bytes[i + 2]);
    text += kDigits[(word >> 18) & 63];
    text += kDigits[(word >> 12) & 63];
    text += left > 1 ? kDigits[(word >> 6) & 63] : '=';
    text += left > 2 ? kDigits[word & 63] : '=';
  }
  return text;
}

}  // namespace

void ExportViewerHtml(const ReplaySource& source, const std::string& title,
                      const std::string& path) {
  std::string data = "<script type=\"application/json\" id=\"coulomb-meta\">" +
                     ScriptSafe(source.Meta()) + "</script>\n";
  for (int index = 0;; ++index) {
    const std::optional<std::string> chunk = source.Chunk(index);
    if (!chunk) break;
    data += "<script type=\"text/plain\" id=\"coulomb-chunk-" + std::to_string(index) +
            "\">" + Base64(*chunk) + "</script>\n";
  }
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::binary);
    out << InlinedViewerPage(title, data);
    if (!out.flush()) {
      std::remove(partial.c_str());
      throw std::runtime_error(path + ": cannot write");
    }
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    std::remove(partial.c_str());
    throw std::runtime_error(path + ": cannot write (" + error.message() + ")");
  }
}

}  // namespace coulomb
