#include "coulomb/math/thread_pool.h"

#include <algorithm>
#include <stdexcept>

namespace coulomb {

void ThreadPool::CheckThreadCount(int threads, const std::string& what) {
  if (threads < 1 || threads > kMaxThreads) {
    throw std::invalid_argument(
        what + ": must be from 1 to " + std::to_string(kMaxThreads) +
        " (threads, the calling one included), got " + std::to_string(threads));
  }
}

ThreadPool::ThreadPool(int num_threads) {
  CheckThreadCount(num_threads, "ThreadPool");
  for (int worker = 1; worker < num_threads; ++worker) {
    workers_.emplace_back([this, worker] { WorkerLoop(worker); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true);
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

namespace {
// Busy-wait iterations before sleeping (a few tens of microseconds).
constexpr int kSpinIterations = 1 << 15;
}  // namespace

// Chunk c of num_threads() contiguous chunks of [0, count).
void ThreadPool::RunChunk(int chunk) const {
  const int chunks = num_threads();
  const int begin = static_cast<int>(static_cast<long>(count_) * chunk / chunks);
  const int end = static_cast<int>(static_cast<long>(count_) * (chunk + 1) / chunks);
  for (int index = begin; index < end; ++index) task_(index);
}

void ThreadPool::Run(int count, TaskRef task) {
  if (workers_.empty() || count <= 1) {
    for (int index = 0; index < count; ++index) task(index);
    return;
  }
  task_ = task;
  count_ = count;
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  work_ready_.notify_all();
  RunChunk(0);
  for (int spin = 0; spin < kSpinIterations; ++spin) {
    if (pending_.load(std::memory_order_acquire) == 0) return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  work_done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
}

void ThreadPool::WorkerLoop(int worker) {
  long seen = 0;
  while (true) {
    long generation = generation_.load(std::memory_order_acquire);
    for (int spin = 0; spin < kSpinIterations && generation == seen && !stopping_.load();
         ++spin) {
      generation = generation_.load(std::memory_order_acquire);
    }
    if (generation == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      work_ready_.wait(lock, [&] {
        generation = generation_.load(std::memory_order_acquire);
        return stopping_.load() || generation != seen;
      });
    }
    if (stopping_.load()) return;
    seen = generation;
    RunChunk(worker);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      work_done_.notify_one();
    }
  }
}

}  // namespace coulomb
