#pragma once

#include <functional>
#include <string>

#include "coulomb/viewer/replay_source.h"

namespace coulomb {

struct ViewerServerOptions {
  std::string host = "127.0.0.1";  // only this machine, unless asked
  int port = 8000;                 // 0: any free port
};

// Serves the viewer of `source` over HTTP (cpp-httplib) until the process
// ends: / (the page), /viewer.js, /viewer.css, /replay/meta.json,
// /replay/chunk/I, and /run/NAME for the plain files directly inside
// `run_directory` (trajectory.h5, stats.json; empty: none). Nothing else:
// names with "..", "/" or "\" are refused (403), other paths are 404.
// Calls listening(url) once the socket is bound. Throws std::runtime_error
// when the address cannot be bound.
void ServeViewer(const ReplaySource& source, const std::string& run_directory,
                 const ViewerServerOptions& options,
                 const std::function<void(const std::string& url)>& listening);

// Stops the ServeViewer that listens at `url` (as passed to its
// `listening`), if one does, and it returns. False while that server has
// yet to start its loop (it is bound, but would not see a stop): ask again.
bool StopViewerServer(const std::string& url);

}  // namespace coulomb
