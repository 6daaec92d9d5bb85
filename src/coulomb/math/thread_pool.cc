#include "coulomb/math/thread_pool.h"

#include <stdexcept>

namespace coulomb {
namespace {

// Busy-wait iterations of a worker before it sleeps (a few tens of
// microseconds), and of the caller between yields while chunks run.
constexpr int kSpinIterations = 1 << 15;

}  // namespace

void ThreadPool::CheckThreadCount(int threads, const std::string& what) {
  if (threads < 1 || threads > kMaxThreads) {
    throw std::invalid_argument(
        what + ": must be from 1 to " + std::to_string(kMaxThreads) +
        " (threads, the calling one included), got " + std::to_string(threads));
  }
}

ThreadPool::ThreadPool(int num_threads) : claimed_(num_threads) {
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

// Chunk c of num_threads() contiguous chunks of [0, count_).
void ThreadPool::RunChunk(int chunk) {
  const int chunks = num_threads();
  const int begin = static_cast<int>(static_cast<long>(count_) * chunk / chunks);
  const int end = static_cast<int>(static_cast<long>(count_) * (chunk + 1) / chunks);
  try {
    for (int index = begin; index < end; ++index) task_(index);
  } catch (...) {
    // Not thrown on from a worker (std::terminate) nor at once from the
    // caller, whose task the workers may still be running.
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }
}

bool ThreadPool::Claim(int chunk, std::uint64_t generation) {
  // Claimed in an earlier loop only: the swap makes it this loop's. A worker
  // that read an older generation fails here, since its chunk was claimed
  // in that loop before the caller could move on.
  std::atomic<std::uint64_t>& claimed = claimed_[chunk].generation;
  std::uint64_t last = claimed.load(std::memory_order_acquire);
  while (last < generation) {
    if (claimed.compare_exchange_weak(last, generation, std::memory_order_acq_rel,
                                      std::memory_order_acquire))
      return true;
  }
  return false;
}

void ThreadPool::Run(int count, TaskRef task) {
  if (workers_.empty() || count <= 1) {
    for (int index = 0; index < count; ++index) task(index);
    return;
  }
  const std::uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
  task_ = task;
  count_ = count;
  chunks_done_.store(0, std::memory_order_relaxed);
  generation_.store(generation, std::memory_order_seq_cst);
  // With the store above, a worker either sees the new generation before it
  // sleeps or is counted here (both sides sequentially consistent).
  if (sleeping_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    work_ready_.notify_all();
  }
  // The caller's own chunk first, then those no worker has started.
  int by_workers = 0;
  for (int chunk = 0; chunk < num_threads(); ++chunk) {
    if (Claim(chunk, generation)) {
      RunChunk(chunk);
    } else {
      ++by_workers;
    }
  }
  for (int spin = 0; chunks_done_.load(std::memory_order_acquire) < by_workers; ++spin) {
    if (spin >= kSpinIterations) std::this_thread::yield();
  }
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    error.swap(error_);
  }
  if (error) std::rethrow_exception(error);
}

void ThreadPool::WorkerLoop(int worker) {
  std::uint64_t seen = 0;  // the last loop this worker looked at
  while (true) {
    std::uint64_t generation = generation_.load(std::memory_order_acquire);
    for (int spin = 0; spin < kSpinIterations && generation == seen; ++spin) {
      if (stopping_.load(std::memory_order_relaxed)) return;
      generation = generation_.load(std::memory_order_acquire);
    }
    if (generation == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleeping_.fetch_add(1, std::memory_order_seq_cst);
      work_ready_.wait(lock, [&] {
        generation = generation_.load(std::memory_order_seq_cst);
        return stopping_.load() || generation != seen;
      });
      sleeping_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stopping_.load()) return;
    seen = generation;
    if (Claim(worker, generation)) {
      RunChunk(worker);
      chunks_done_.fetch_add(1, std::memory_order_acq_rel);
    }
  }
}

}  // namespace coulomb
