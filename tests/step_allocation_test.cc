// Counts heap allocations per time step by replacing the global operator new
// in this test executable (this file is its only test).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include <gtest/gtest.h>

#include "coulomb/sim/builtin_scenes.h"
#include "coulomb/sim/time_stepper.h"

namespace {
std::atomic<long> allocation_count{0};
}  // namespace

void* operator new(std::size_t size) {
  ++allocation_count;
  if (void* pointer = std::malloc(size == 0 ? 1 : size)) return pointer;
  throw std::bad_alloc();
}
void operator delete(void* pointer) noexcept { std::free(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { std::free(pointer); }

namespace coulomb {
namespace {

TEST(StepAllocation, Probe) {
  Scene scene = MakeBuiltinScene("clutter", {{"bodies", "8"}});
  TimeStepper stepper(scene.parameters);
  for (int n = 0; n < 300; ++n) ASSERT_TRUE(stepper.Step(&scene.system).converged);
  for (int n = 0; n < 5; ++n) {
    const long before = allocation_count.load();
    const StepStatistics stats = stepper.Step(&scene.system);
    std::printf("step: %ld allocations, %d contacts, %d iterations\n",
                allocation_count.load() - before, stats.num_contacts,
                stats.sap_iterations);
  }
}

}  // namespace
}  // namespace coulomb
