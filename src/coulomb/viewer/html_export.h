#pragma once

#include <string>

#include "coulomb/viewer/replay_source.h"

namespace coulomb {

// Writes the viewer of `source` as one self-contained HTML file (script,
// style and every chunk inlined, base64): it plays from file:// with no
// server and no network. Written next to `path` and renamed into place.
// Throws std::runtime_error naming the file when it cannot be written.
void ExportViewerHtml(const ReplaySource& source, const std::string& title,
                      const std::string& path);

}  // namespace coulomb
