#pragma once

#include <string>
#include <string_view>

namespace coulomb {

// The viewer page's script and style sheet (viewer/src, bundled by esbuild
// at build time and linked into the binary by viewer_assets.S), and the
// HTML pages around them.
std::string_view ViewerScript();
std::string_view ViewerStyle();

// The page `coulomb view` serves: it loads viewer.js and viewer.css and
// reads replay/meta.json and replay/chunk/I from the same server.
std::string ServedViewerPage(const std::string& title);

// `text` with every "</" written "<\/", so that inside a <script> element
// it cannot close it early (the same in JSON and JavaScript strings).
std::string ScriptSafe(std::string_view text);

// One self-contained page: style, data (`data_elements`: the script
// elements coulomb-meta and coulomb-chunk-I) and script inlined.
std::string InlinedViewerPage(const std::string& title, const std::string& data_elements);

}  // namespace coulomb
