#pragma once

// Heap allocations counted at the C allocator (allocation_counter.cc replaces
// malloc, calloc, realloc, aligned_alloc, memalign and posix_memalign for the
// whole program, forwarding to glibc's own): every allocation is seen,
// operator new's (which calls malloc), Eigen's and those inside shared
// libraries such as libcoal. Link that file into a test executable of its own.
namespace coulomb::testing {

// Allocations since the program started.
long AllocationCount();
// False under AddressSanitizer, which replaces malloc itself.
bool AllocationCountingEnabled();

}  // namespace coulomb::testing
