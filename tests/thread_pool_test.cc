#include "coulomb/math/thread_pool.h"

#include <atomic>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

TEST(ThreadPool, RunsEveryIndexExactlyOnceForAnySplit) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int count : {0, 1, 2, 7, 1000}) {
      std::vector<std::atomic<int>> visits(count);
      for (int repeat = 0; repeat < 3; ++repeat) {  // the pool is reused
        pool.ParallelFor(count, [&visits](int i) { visits[i].fetch_add(1); });
      }
      for (int i = 0; i < count; ++i)
        EXPECT_EQ(visits[i].load(), 3) << threads << " " << i;
    }
  }
  EXPECT_THROW(ThreadPool(0), std::invalid_argument);
}

TEST(ThreadPool, HandsOverLoopAfterLoopWithoutLosingOrRepeatingAnIndex) {
  // Thousands of short loops back to back, as an iterative solver runs them:
  // the chunks of one loop must never be claimed again in the next, nor
  // left out, whether the workers spin, sleep or lag behind the caller. More
  // threads than cores (8) puts workers to sleep and deschedules them.
  for (int threads : {2, 8}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> visits(64);
    long expected_sum = 0;
    std::atomic<long> sum{0};
    for (int loop = 0; loop < 20000; ++loop) {
      const int count = 1 + loop % 64;  // fewer and more indices than chunks
      pool.ParallelFor(count, [&](int i) {
        visits[i].fetch_add(1, std::memory_order_relaxed);
        sum.fetch_add(loop * 64 + i, std::memory_order_relaxed);
      });
      for (int i = 0; i < count; ++i) expected_sum += loop * 64 + i;
    }
    EXPECT_EQ(sum.load(), expected_sum) << threads;
    for (int i = 0; i < 64; ++i) {
      // Index i is in the loops whose count exceeds it.
      int loops_with_i = 0;
      for (int loop = 0; loop < 20000; ++loop) loops_with_i += (1 + loop % 64) > i;
      EXPECT_EQ(visits[i].load(), loops_with_i) << threads << " " << i;
    }
  }
}

TEST(ThreadPool, ReturnsOnlyWhenTheSlowestIndexIsDone) {
  // One index takes far longer than the rest: ParallelFor must wait for it
  // whichever thread claimed it, and see what it wrote.
  ThreadPool pool(2);
  for (int repeat = 0; repeat < 50; ++repeat) {
    std::vector<double> out(16, 0.0);
    const int slow = repeat % 16;
    pool.ParallelFor(16, [&](int i) {
      double x = 1.0;
      const int work = i == slow ? 200000 : 10;
      for (int k = 0; k < work; ++k) x = x * 0.999999 + 1e-9;
      out[i] = x + i;
    });
    for (int i = 0; i < 16; ++i) EXPECT_GT(out[i], static_cast<double>(i)) << i;
  }
}

TEST(ThreadPool, RethrowsATasksExceptionOnceEveryChunkIsDone) {
  ThreadPool pool(2);
  for (int throwing : {0, 99}) {  // in chunk 0 (the caller's), in chunk 1
    std::vector<std::atomic<int>> visits(100);
    EXPECT_THROW(pool.ParallelFor(100,
                                  [&](int i) {
                                    if (i == throwing) throw std::runtime_error("task");
                                    visits[i].fetch_add(1);
                                  }),
                 std::runtime_error);
    // The other chunk ran whole, and the pool goes on as before.
    const int other = throwing == 0 ? 50 : 0;
    for (int i = other; i < other + 50; ++i) EXPECT_EQ(visits[i].load(), 1) << i;
    std::atomic<int> sum{0};
    pool.ParallelFor(100, [&](int i) { sum.fetch_add(i); });
    EXPECT_EQ(sum.load(), 4950);
  }
}

TEST(ThreadPool, RefusesMoreThreadsThanItsBoundBeforeStartingAny) {
  // A mistyped count (100 000) would take minutes to start, not a clear error.
  EXPECT_THROW(ThreadPool(ThreadPool::kMaxThreads + 1), std::invalid_argument);
  EXPECT_THROW(ThreadPool::CheckThreadCount(100000, "threads"), std::invalid_argument);
  EXPECT_NO_THROW(ThreadPool::CheckThreadCount(ThreadPool::kMaxThreads, "threads"));
}

}  // namespace
}  // namespace coulomb
