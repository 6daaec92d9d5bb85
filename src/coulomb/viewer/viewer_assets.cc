#include "coulomb/viewer/viewer_assets.h"

// Start and end of the bundled files (viewer_assets.S).
extern "C" const char coulomb_viewer_script[], coulomb_viewer_script_end[];
extern "C" const char coulomb_viewer_style[], coulomb_viewer_style_end[];

namespace coulomb {
namespace {

std::string EscapeHtml(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '<')
      escaped += "&lt;";
    else if (c == '>')
      escaped += "&gt;";
    else if (c == '&')
      escaped += "&amp;";
    else
      escaped += c;
  }
  return escaped;
}

std::string PageHead(const std::string& title) {
  return "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<link rel=\"icon\" href=\"data:,\">\n"
         "<title>Coulomb — " +
         EscapeHtml(title) + "</title>\n";
}

}  // namespace

std::string ScriptSafe(std::string_view text) {
  std::string safe(text);
  for (size_t at = safe.find("</"); at != std::string::npos;
       at = safe.find("</", at + 3)) {
    safe.replace(at, 2, "<\\/");
  }
  return safe;
}

std::string_view ViewerScript() {
  return {coulomb_viewer_script,
          static_cast<size_t>(coulomb_viewer_script_end - coulomb_viewer_script)};
}

std::string_view ViewerStyle() {
  return {coulomb_viewer_style,
          static_cast<size_t>(coulomb_viewer_style_end - coulomb_viewer_style)};
}

std::string ServedViewerPage(const std::string& title) {
  return PageHead(title) +
         "<link rel=\"stylesheet\" href=\"viewer.css\">\n</head>\n<body>\n"
         "<div id=\"app\"></div>\n<script "
         "src=\"viewer.js\"></script>\n</body>\n</html>\n";
}

std::string InlinedViewerPage(const std::string& title,
                              const std::string& data_elements) {
  // CSS cannot hold "</" outside strings and comments; the bundle has none.
  return PageHead(title) + "<style>\n" + std::string(ViewerStyle()) +
         "\n</style>\n</head>\n" + "<body>\n<div id=\"app\"></div>\n" + data_elements +
         "<script>\n" + ScriptSafe(ViewerScript()) + "\n</script>\n</body>\n</html>\n";
}

}  // namespace coulomb
