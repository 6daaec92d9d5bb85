#include "coulomb/viewer/viewer_server.h"

#include <httplib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

#include "coulomb/viewer/viewer_assets.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

std::mutex servers_mutex;
std::map<httplib::Server*, std::string> servers;  // and the URL each listens at

// Sends `body` as it is. cpp-httplib compresses text bodies with brotli at
// its highest quality when the browser accepts it (25 s for the 14 MB meta
// data of a 10⁵-frame run), and a viewer on this machine gains nothing from
// compression; a sized content provider goes out uncompressed.
void SetContent(httplib::Response& response, std::string body, const char* type) {
  auto shared = std::make_shared<const std::string>(std::move(body));
  response.set_content_provider(
      shared->size(), type,
      [shared](size_t offset, size_t length, httplib::DataSink& sink) {
        return sink.write(shared->data() + offset, length);
      });
}

// A name of a file directly inside the run folder: no separators, no "..".
bool IsPlainName(const std::string& name) {
  return !name.empty() && name.find("..") == std::string::npos &&
         name.find('/') == std::string::npos && name.find('\\') == std::string::npos;
}

void ServeRunFile(const std::string& run_directory, const std::string& name,
                  httplib::Response& response) {
  if (!IsPlainName(name)) {
    response.status = 403;
    return;
  }
  const fs::path path = fs::path(run_directory) / name;
  if (run_directory.empty() || !fs::is_regular_file(path)) {
    response.status = 404;
    return;
  }
  // Streamed from the file: a run's trajectory.h5 may be larger than memory.
  auto in = std::make_shared<std::ifstream>(path, std::ios::binary);
  const bool json = path.extension() == ".json";
  response.set_content_provider(
      fs::file_size(path), json ? "application/json" : "application/octet-stream",
      [in](size_t offset, size_t length, httplib::DataSink& sink) {
        char buffer[1 << 16];
        in->seekg(static_cast<std::streamoff>(offset));
        in->read(buffer, static_cast<std::streamsize>(std::min(length, sizeof(buffer))));
        return in->gcount() > 0 && sink.write(buffer, static_cast<size_t>(in->gcount()));
      });
}

void AddRoutes(httplib::Server* server, const ReplaySource& source,
               const std::string& run_directory, const std::string& title) {
  server->Get("/", [title](const httplib::Request&, httplib::Response& response) {
    SetContent(response, ServedViewerPage(title), "text/html; charset=utf-8");
  });
  server->Get("/viewer.js", [](const httplib::Request&, httplib::Response& response) {
    SetContent(response, std::string(ViewerScript()), "text/javascript; charset=utf-8");
  });
  server->Get("/viewer.css", [](const httplib::Request&, httplib::Response& response) {
    SetContent(response, std::string(ViewerStyle()), "text/css; charset=utf-8");
  });
  server->Get("/replay/meta.json",
              [&source](const httplib::Request&, httplib::Response& response) {
                SetContent(response, source.Meta(), "application/json");
              });
  server->Get(R"(/replay/chunk/(\d{1,9}))", [&source](const httplib::Request& request,
                                                      httplib::Response& response) {
    const std::optional<std::string> chunk = source.Chunk(std::stoi(request.matches[1]));
    if (!chunk) {
      response.status = 404;
      return;
    }
    SetContent(response, std::move(*chunk), "application/octet-stream");
  });
  server->Get(R"(/run/(.*))", [run_directory](const httplib::Request& request,
                                              httplib::Response& response) {
    ServeRunFile(run_directory, request.matches[1], response);
  });
}

}  // namespace

void ServeViewer(const ReplaySource& source, const std::string& run_directory,
                 const ViewerServerOptions& options,
                 const std::function<void(const std::string& url)>& listening) {
  httplib::Server server;
  // SO_REUSEADDR alone: cpp-httplib's default adds SO_REUSEPORT, with which
  // a second viewer binds a port the first listens on, and the two then
  // share its connections.
  server.set_socket_options([](socket_t socket) {
    const int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  const std::string title = run_directory.empty() ? "live run" : run_directory;
  AddRoutes(&server, source, run_directory, title);
  // Every error in one line of text: what went wrong, by status.
  server.set_error_handler([](const httplib::Request&, httplib::Response& response) {
    const char* what = response.status == 403
                           ? "refused: only files directly inside the run folder\n"
                           : "not found\n";
    response.set_content(what, "text/plain");
  });
  const int port =
      options.port == 0
          ? server.bind_to_any_port(options.host)
          : (server.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port < 0) {
    throw std::runtime_error("cannot listen on " + options.host + ":" +
                             std::to_string(options.port) +
                             " (in use or not an address of this machine; try --port 0)");
  }
  const std::string host = options.host.find(':') != std::string::npos
                               ? "[" + options.host + "]"
                               : options.host;
  const std::string url = "http://" + host + ":" + std::to_string(port) + "/";
  {
    const std::lock_guard<std::mutex> lock(servers_mutex);
    servers.emplace(&server, url);
  }
  listening(url);
  server.listen_after_bind();
  const std::lock_guard<std::mutex> lock(servers_mutex);
  servers.erase(&server);
}

bool StopViewerServer(const std::string& url) {
  const std::lock_guard<std::mutex> lock(servers_mutex);
  for (const auto& [server, listening_at] : servers) {
    if (listening_at != url) continue;
    if (!server->is_running()) return false;
    server->stop();
  }
  return true;
}

}  // namespace coulomb
