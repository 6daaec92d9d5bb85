#include "coulomb/cli/view_command.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "coulomb/cli/arguments.h"
#include "coulomb/viewer/html_export.h"
#include "coulomb/viewer/recorded_run.h"
#include "coulomb/viewer/viewer_server.h"

namespace coulomb {

bool ParseViewerServerOption(const std::string& flag, Arguments* arguments,
                             ViewerServerOptions* options) {
  if (flag == "--port") {
    options->port = arguments->IntValueAtLeast(flag, 0);
    if (options->port > 65535) throw UsageError("--port must be ≤ 65535");
    return true;
  }
  if (flag == "--host") {
    options->host = arguments->Value(flag);
    const bool plain =
        !options->host.empty() &&
        options->host.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-") ==
            std::string::npos;
    if (!plain)
      throw UsageError("--host: expected a host name or address, got '" + options->host +
                       "'");
    return true;
  }
  return false;
}

void OpenInBrowser(const std::string& url) {
  const bool display =
      std::getenv("DISPLAY") != nullptr || std::getenv("WAYLAND_DISPLAY") != nullptr;
  if (!display || std::system("command -v xdg-open >/dev/null 2>&1") != 0) return;
  // url is ours: http://HOST:PORT/ with a checked host.
  if (std::system(("xdg-open '" + url + "' >/dev/null 2>&1 &").c_str()) != 0) return;
}

int RunViewCommand(const std::vector<std::string>& list) {
  Arguments arguments(list);
  ViewerServerOptions server;
  std::string directory, export_path;
  while (!arguments.Done()) {
    const std::string flag = arguments.Next();
    if (ParseViewerServerOption(flag, &arguments, &server)) continue;
    if (flag == "--export") {
      export_path = arguments.Value(flag);
    } else if (flag.starts_with("--")) {
      throw UsageError("unknown option " + flag);
    } else if (directory.empty()) {
      directory = flag;
    } else {
      throw UsageError("more than one run folder given: " + directory + ", " + flag);
    }
  }
  if (directory.empty()) {
    throw UsageError(
        "which run? coulomb view DIR (a folder written by coulomb run --out DIR)");
  }
  const RecordedRun run(directory);
  if (!export_path.empty()) {
    ExportViewerHtml(run, directory, export_path);
    std::printf("wrote %s (%.1f MB): open it in a browser, no server needed\n",
                export_path.c_str(), std::filesystem::file_size(export_path) / 1e6);
    return 0;
  }
  ServeViewer(run, directory, server, [&](const std::string& url) {
    std::printf("viewing %s at %s (Ctrl-C to stop)\n", directory.c_str(), url.c_str());
    std::fflush(stdout);
    OpenInBrowser(url);
  });
  return 0;
}

}  // namespace coulomb
