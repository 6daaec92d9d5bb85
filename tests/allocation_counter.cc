#include "allocation_counter.h"

#include <atomic>
#include <cstddef>

// AddressSanitizer owns malloc: under it the counter is off (see
// AllocationCountingEnabled) and the tests that need it skip themselves.
#if defined(__SANITIZE_ADDRESS__)
namespace coulomb::testing {
long AllocationCount() { return 0; }
bool AllocationCountingEnabled() { return false; }
}  // namespace coulomb::testing
#else

// glibc's allocator under its internal names: the replacements below count
// and forward to them.
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
}

namespace {
std::atomic<long> allocation_count{0};
}  // namespace

extern "C" {

void* malloc(std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}

void* calloc(std::size_t count, std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}

void* realloc(void* pointer, std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(pointer, size);
}

void* memalign(std::size_t alignment, std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(std::size_t alignment, std::size_t size) {
  return memalign(alignment, size);
}

int posix_memalign(void** pointer, std::size_t alignment, std::size_t size) {
  *pointer = memalign(alignment, size);
  return *pointer != nullptr || size == 0 ? 0 : 12;  // ENOMEM
}

}  // extern "C"

namespace coulomb::testing {

long AllocationCount() { return allocation_count.load(); }
bool AllocationCountingEnabled() { return true; }

}  // namespace coulomb::testing
#endif
