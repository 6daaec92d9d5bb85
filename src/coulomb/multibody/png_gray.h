#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace coulomb {

// A PNG image read as MuJoCo reads a height field's PNG file: one 8-bit
// value per pixel, the gray sample of a gray image or the red one of a
// color image (alpha ignored), a 16-bit sample's high byte, a 1-, 2- or
// 4-bit gray sample scaled to 0–255 (v · 255 / (2^bits − 1)); rows from
// the image's top. Checked against mujoco 4.0's hfield_data
// (python/tests/test_mjcf.py).
struct PngGray {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> values;  // values[row · width + column]
};

// Reads `path` (the PNG specification: signature, IHDR, IDAT chunks
// inflated by zlib, scanlines unfiltered; each chunk's CRC checked).
// Throws std::runtime_error naming the file for a file that cannot be read,
// that is not a PNG, is truncated or corrupt, or is of a kind not read:
// palette colors and interlaced images (save the file as non-interlaced
// grayscale), more than `max_pixels` pixels.
PngGray ReadPngGray(const std::string& path, long long max_pixels);

}  // namespace coulomb
