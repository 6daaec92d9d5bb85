#include <unistd.h>

#include <filesystem>

#include "fuzz_harness.h"

namespace coulomb::fuzz {

std::string ScratchPath(const std::string& suffix) {
  return (std::filesystem::temp_directory_path() /
          ("coulomb_fuzz_" + std::to_string(getpid()) + suffix))
      .string();
}

}  // namespace coulomb::fuzz
