#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace coulomb {

// A fixed set of worker threads for data-parallel loops. ParallelFor(n, f)
// calls f(0), …, f(n − 1), each exactly once, split into contiguous chunks
// over the workers and the calling thread, and returns when all are done.
// Tasks must not depend on each other's order; a loop whose tasks write
// disjoint data gives identical results for any thread count.
class ThreadPool {
 public:
  // The most threads a pool takes. Beyond it a request is taken for a
  // mistake: a pool of 100 000 threads takes minutes to start, and no
  // machine has the cores to run them.
  static constexpr int kMaxThreads = 256;
  // Throws std::invalid_argument unless 1 ≤ threads ≤ kMaxThreads, naming
  // `what` (the option or parameter the count came from).
  static void CheckThreadCount(int threads, const std::string& what);

  // num_threads ≥ 1 counts the calling thread: 1 runs everything inline.
  // Throws std::invalid_argument outside [1, kMaxThreads].
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }
  // task: any callable f(int). Passed by reference, not wrapped in a
  // std::function (which allocates for captures over 16 bytes): an iterative
  // solver calls this twice per iteration inside the step loop.
  template <typename Task>
  void ParallelFor(int count, const Task& task) {
    Run(count, TaskRef{&task, [](const void* f, int index) {
                         (*static_cast<const Task*>(f))(index);
                       }});
  }

 private:
  // A non-owning reference to the caller's callable.
  struct TaskRef {
    const void* callable = nullptr;
    void (*call)(const void*, int) = nullptr;
    void operator()(int index) const { call(callable, index); }
  };
  void Run(int count, TaskRef task);
  void WorkerLoop(int worker);
  void RunChunk(int chunk) const;

  std::vector<std::thread> workers_;
  // Hand-off: the caller publishes task_/count_ and bumps generation_;
  // workers and the caller spin briefly on the atomics (a loop in an iterative
  // solver runs thousands of times per second), then sleep on the condition
  // variables; generation_ changes and the last decrement of pending_ are
  // signalled under mutex_, so no wake-up is lost.
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  TaskRef task_;
  int count_ = 0;
  std::atomic<long> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace coulomb
