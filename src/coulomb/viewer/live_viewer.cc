#include "coulomb/viewer/live_viewer.h"

#include <chrono>
#include <exception>
#include <future>

namespace coulomb {

LiveViewer::LiveViewer(const Simulation& simulation, const ViewerServerOptions& options)
    : live_(simulation) {
  std::promise<std::string> url;
  std::future<std::string> bound = url.get_future();
  server_ = std::thread([this, options, &url] {
    try {
      ServeViewer(live_, "", options, [&](const std::string& at) { url.set_value(at); });
    } catch (...) {
      url.set_exception(std::current_exception());
    }
  });
  try {
    url_ = bound.get();
  } catch (...) {
    server_.join();
    throw;
  }
}

LiveViewer::~LiveViewer() { Stop(); }

void LiveViewer::Wait() {
  if (server_.joinable()) server_.join();
}

void LiveViewer::Stop() {
  if (!server_.joinable()) return;
  while (!StopViewerServer(url_))  // bound, its loop not yet started
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_.join();
}

}  // namespace coulomb
