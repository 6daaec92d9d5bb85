#pragma once

// The libFuzzer entry point every harness in tests/fuzz defines. Built with
// clang's -fsanitize=fuzzer (make fuzz) libFuzzer drives it; in the regular
// build replay_main.cc runs it on every file of the corpora given (ctest).
//
// A harness returns normally when the input was accepted or refused with the
// documented exception; anything else (another exception, a crash, a
// sanitizer report) is a finding. FailOnUnexpected turns an unexpected
// exception into an abort that names it, so libFuzzer saves the input.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace coulomb::fuzz {

[[noreturn]] inline void FailOnUnexpected(const char* where,
                                          const std::exception& error) {
  std::fprintf(stderr, "%s: unexpected %s\n", where, error.what());
  std::abort();
}

// A scratch file path of this process (libFuzzer's -jobs run processes).
std::string ScratchPath(const std::string& suffix);

}  // namespace coulomb::fuzz
