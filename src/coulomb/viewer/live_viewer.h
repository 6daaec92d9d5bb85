#pragma once

#include <string>
#include <thread>

#include "coulomb/viewer/live_run.h"
#include "coulomb/viewer/viewer_server.h"

namespace coulomb {

// A simulation's viewer while it runs: its LiveRun, served over HTTP
// (ServeViewer) on a thread of its own from construction until Stop. The
// thread that steps the simulation calls live().Update after steps, and the
// page follows them; live().Finish turns the page into the run's replay.
// The page shows what the simulation records (Simulation::recording).
class LiveViewer {
 public:
  // Returns once the server listens (url()); throws std::runtime_error
  // when the address cannot be bound.
  LiveViewer(const Simulation& simulation, const ViewerServerOptions& options);
  // Stops the server.
  ~LiveViewer();
  LiveViewer(const LiveViewer&) = delete;
  LiveViewer& operator=(const LiveViewer&) = delete;

  // http://HOST:PORT/, the port the server is bound to.
  const std::string& url() const { return url_; }
  LiveRun& live() { return live_; }
  // Blocks until the server stops (Stop from another thread).
  void Wait();
  // Stops the server and waits for its thread; the page loses its
  // connection. Idempotent.
  void Stop();

 private:
  LiveRun live_;
  std::thread server_;
  std::string url_;
};

}  // namespace coulomb
