#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace coulomb {

// A fixed set of worker threads for data-parallel loops. ParallelFor(n, f)
// calls f(0), …, f(n − 1), each exactly once, and returns when all are done.
// Tasks must not depend on each other's order; a loop whose tasks write
// disjoint data gives identical results for any thread count.
//
// The indices are split into one contiguous chunk per thread, the same
// chunk for the same thread loop after loop (an iterative solver's worker
// finds its part of the data in its own cache). A worker runs its chunk
// when it wakes; the calling thread runs its own, then takes over every
// chunk that no worker has started: it never waits for a worker that is
// asleep or descheduled, only for chunks being run. A task that throws ends
// its chunk; ParallelFor rethrows the first such exception once every chunk
// is done (the pool stays usable).
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
  // Claims chunk `chunk` of the loop of `generation` (false: claimed already).
  bool Claim(int chunk, std::uint64_t generation);
  // Runs chunk `chunk`; an exception it throws is kept in error_ (the first).
  void RunChunk(int chunk);

  std::vector<std::thread> workers_;
  // The loop being run: written by the caller before it publishes the new
  // generation, read by whoever claimed a chunk of it (the caller waits for
  // every chunk before the next loop overwrites them).
  TaskRef task_;
  int count_ = 0;
  // The loops counted from 1; chunk c was last claimed in claimed_[c]'s loop
  // (one cache line each: the threads write them side by side).
  std::atomic<std::uint64_t> generation_{0};
  struct alignas(64) ClaimedChunk {
    std::atomic<std::uint64_t> generation{0};
  };
  std::vector<ClaimedChunk> claimed_;
  std::atomic<int> chunks_done_{0};  // by the workers, in this loop
  std::exception_ptr error_;         // the loop's first exception (under mutex_)
  // Workers asleep on work_ready_ (they spin a while first): the caller takes
  // the mutex and notifies only when there is one.
  std::atomic<int> sleeping_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable work_ready_;
};

}  // namespace coulomb
