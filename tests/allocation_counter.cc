#include "allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

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

namespace coulomb::testing {

long AllocationCount() { return allocation_count.load(); }

}  // namespace coulomb::testing
