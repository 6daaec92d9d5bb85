#include "coulomb/viewer/viewer_server.h"

#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "coulomb/viewer/viewer_assets.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

std::mutex servers_mutex;
std::set<httplib::Server*> servers;

// A name of a file directly inside the run folder: no separators, no "..".
bool IsPlainName(const std::string& name) {
  return !name.empty() && name.find("..") == std::string::npos &&
         name.find('/') == std::string::npos && name.find('\\') == std::string::npos;
}

void ServeRunFile(const std::string& run_directory, const std::string& name,
                  httplib::Response& response) {
  if (!IsPlainName(name)) {
    response.status = 403;
    response.set_content("refused: only files directly inside the run folder\n",
                         "text/plain");
    return;
  }
  const fs::path path = fs::path(run_directory) / name;
  if (run_directory.empty() || !fs::is_regular_file(path)) {
    response.status = 404;
    response.set_content("no such file in the run folder\n", "text/plain");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const bool json = path.extension() == ".json";
  response.set_content(bytes.str(),
                       json ? "application/json" : "application/octet-stream");
}

void AddRoutes(httplib::Server* server, const ReplaySource& source,
               const std::string& run_directory, const std::string& title) {
  server->Get("/", [title](const httplib::Request&, httplib::Response& response) {
    response.set_content(ServedViewerPage(title), "text/html; charset=utf-8");
  });
  server->Get("/viewer.js", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(std::string(ViewerScript()), "text/javascript; charset=utf-8");
  });
  server->Get("/viewer.css", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(std::string(ViewerStyle()), "text/css; charset=utf-8");
  });
  server->Get("/replay/meta.json",
              [&source](const httplib::Request&, httplib::Response& response) {
                response.set_content(source.Meta(), "application/json");
              });
  server->Get(R"(/replay/chunk/(\d{1,9}))", [&source](const httplib::Request& request,
                                                      httplib::Response& response) {
    const std::optional<std::string> chunk = source.Chunk(std::stoi(request.matches[1]));
    if (!chunk) {
      response.status = 404;
      return;
    }
    response.set_content(*chunk, "application/octet-stream");
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
  const std::string title = run_directory.empty() ? "live run" : run_directory;
  AddRoutes(&server, source, run_directory, title);
  server.set_error_handler([](const httplib::Request&, httplib::Response& response) {
    if (response.body.empty()) response.set_content("not found\n", "text/plain");
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
  {
    const std::lock_guard<std::mutex> lock(servers_mutex);
    servers.insert(&server);
  }
  const std::string host = options.host.find(':') != std::string::npos
                               ? "[" + options.host + "]"
                               : options.host;
  listening("http://" + host + ":" + std::to_string(port) + "/");
  server.listen_after_bind();
  const std::lock_guard<std::mutex> lock(servers_mutex);
  servers.erase(&server);
}

void StopViewerServers() {
  const std::lock_guard<std::mutex> lock(servers_mutex);
  for (httplib::Server* server : servers) server->stop();
}

}  // namespace coulomb
