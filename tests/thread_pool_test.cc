#include "coulomb/math/thread_pool.h"

#include <atomic>
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

TEST(ThreadPool, RefusesMoreThreadsThanItsBoundBeforeStartingAny) {
  // A mistyped count (100 000) would take minutes to start, not a clear error.
  EXPECT_THROW(ThreadPool(ThreadPool::kMaxThreads + 1), std::invalid_argument);
  EXPECT_THROW(ThreadPool::CheckThreadCount(100000, "threads"), std::invalid_argument);
  EXPECT_NO_THROW(ThreadPool::CheckThreadCount(ThreadPool::kMaxThreads, "threads"));
}

}  // namespace
}  // namespace coulomb
