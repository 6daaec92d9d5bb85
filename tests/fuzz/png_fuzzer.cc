// Fuzzes the PNG reader of height fields (multibody/png_gray.h). Each
// complete chunk's CRC is rewritten to match before the bytes are read, so
// that mutations reach the header's checks, zlib's inflate and the
// scanlines' filters instead of stopping at the first CRC. Accepted: an
// image, or std::runtime_error naming the file.
#include <zlib.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "coulomb/multibody/png_gray.h"
#include "fuzz_harness.h"

namespace {

// Rewrites the CRC of every chunk that fits in `bytes` after the signature.
void FixChunkCrcs(std::string* bytes) {
  for (size_t at = 8; at + 12 <= bytes->size();) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>((*bytes)[i]); };
    const uint32_t length = (uint32_t{byte(at)} << 24) | (uint32_t{byte(at + 1)} << 16) |
                            (uint32_t{byte(at + 2)} << 8) | uint32_t{byte(at + 3)};
    if (length > bytes->size() - at - 12) return;
    const uint32_t crc = static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(bytes->data() + at + 4), length + 4));
    for (int k = 0; k < 4; ++k)
      (*bytes)[at + 8 + length + k] = static_cast<char>(crc >> (24 - 8 * k));
    at += 12 + length;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  FixChunkCrcs(&bytes);
  const std::string path = coulomb::fuzz::ScratchPath(".png");
  std::ofstream(path, std::ios::binary) << bytes;
  try {
    coulomb::ReadPngGray(path, 1 << 16);
  } catch (const std::runtime_error& error) {
    if (std::string(error.what()).rfind(path + ": ", 0) != 0)
      coulomb::fuzz::FailOnUnexpected("ReadPngGray", error);
  } catch (const std::exception& error) {
    coulomb::fuzz::FailOnUnexpected("ReadPngGray", error);
  }
  return 0;
}
