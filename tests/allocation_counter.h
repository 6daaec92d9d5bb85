#pragma once

// Heap allocations counted by a replaced global operator new
// (allocation_counter.cc): link that file into a test executable of its own,
// since the replacement applies to the whole program.
namespace coulomb::testing {

// Calls of operator new since the program started.
long AllocationCount();

}  // namespace coulomb::testing
