#include "coulomb/multibody/png_gray.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace coulomb {
namespace {

constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
// The largest width or height a PNG may declare (PNG specification, IHDR:
// "zero is an invalid value", at most 2^31 − 1), so that their product fits
// a long long.
constexpr std::uint32_t kMaxSide = 0x7fffffff;

std::uint32_t BigEndian32(const unsigned char* bytes) {
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
         (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
}

// The image header's fields that decoding reads.
struct Header {
  std::uint32_t width = 0, height = 0;
  int bit_depth = 0, color_type = 0, channels = 0;
};

// Channels per pixel of a color type the reader accepts (0 if refused).
int ChannelsOf(int color_type, int bit_depth) {
  const bool byte_sized = bit_depth == 8 || bit_depth == 16;
  switch (color_type) {
    case 0:
      return byte_sized || bit_depth == 1 || bit_depth == 2 || bit_depth == 4 ? 1 : 0;
    case 2:
      return byte_sized ? 3 : 0;
    case 4:
      return byte_sized ? 2 : 0;
    case 6:
      return byte_sized ? 4 : 0;
    default:
      return 0;
  }
}

Header ReadHeader(const unsigned char* data, std::uint32_t length,
                  const std::string& path) {
  if (length != 13)
    throw std::runtime_error(path + ": corrupt PNG (IHDR of the wrong size)");
  Header header;
  header.width = BigEndian32(data);
  header.height = BigEndian32(data + 4);
  header.bit_depth = data[8];
  header.color_type = data[9];
  if (header.color_type == 3)
    throw std::runtime_error(path + ": palette PNG not read; save it as grayscale");
  if (data[12] != 0)
    throw std::runtime_error(path +
                             ": interlaced PNG not read; save it without interlacing");
  header.channels = ChannelsOf(header.color_type, header.bit_depth);
  if (header.channels == 0 || data[10] != 0 || data[11] != 0 || header.width == 0 ||
      header.height == 0 || header.width > kMaxSide || header.height > kMaxSide)
    throw std::runtime_error(path + ": corrupt PNG (bad IHDR)");
  return header;
}

// Paeth's predictor (PNG specification, filter type 4).
int Paeth(int left, int up, int up_left) {
  const int estimate = left + up - up_left;
  const int to_left = std::abs(estimate - left), to_up = std::abs(estimate - up),
            to_up_left = std::abs(estimate - up_left);
  if (to_left <= to_up && to_left <= to_up_left) return left;
  return to_up <= to_up_left ? up : up_left;
}

// Undoes the filter of each of `rows` scanlines of `stride` bytes (each
// after its filter-type byte) in place; `step` bytes per pixel (≥ 1).
void Unfilter(std::vector<unsigned char>* bytes, size_t rows, size_t stride, size_t step,
              const std::string& path) {
  for (size_t r = 0; r < rows; ++r) {
    unsigned char* line = bytes->data() + r * (stride + 1);
    const int filter = line[0];
    unsigned char* x = line + 1;
    const unsigned char* up = r > 0 ? x - (stride + 1) : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= step ? x[i - step] : 0;
      const int b = up ? up[i] : 0;
      const int c = up && i >= step ? up[i - step] : 0;
      int predicted = 0;
      switch (filter) {
        case 0:
          break;
        case 1:
          predicted = a;
          break;
        case 2:
          predicted = b;
          break;
        case 3:
          predicted = (a + b) / 2;
          break;
        case 4:
          predicted = Paeth(a, b, c);
          break;
        default:
          throw std::runtime_error(path + ": corrupt PNG (unknown filter type " +
                                   std::to_string(filter) + ")");
      }
      x[i] = static_cast<unsigned char>(x[i] + predicted);
    }
  }
}

// The 8-bit value of pixel `column` of an unfiltered scanline `x`.
std::uint8_t PixelValue(const unsigned char* x, size_t column, const Header& header) {
  if (header.bit_depth >= 8) {  // gray or red: the pixel's first sample, high byte first
    return x[column * header.channels * (header.bit_depth / 8)];
  }
  const int bits = header.bit_depth;
  const size_t bit = column * bits;
  const int shift = 8 - bits - static_cast<int>(bit % 8);
  const int value = (x[bit / 8] >> shift) & ((1 << bits) - 1);
  return static_cast<std::uint8_t>(value * 255 / ((1 << bits) - 1));
}

}  // namespace

PngGray ReadPngGray(const std::string& path, long long max_pixels) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": file not found");
  const std::vector<unsigned char> file((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  if (file.size() < 8 || !std::equal(kSignature, kSignature + 8, file.begin()))
    throw std::runtime_error(path + ": not a PNG file");
  Header header;
  std::vector<unsigned char> compressed;
  bool ended = false;
  for (size_t at = 8; !ended;) {
    if (file.size() - at < 12) throw std::runtime_error(path + ": truncated PNG");
    const std::uint32_t length = BigEndian32(&file[at]);
    if (length > file.size() - at - 12)
      throw std::runtime_error(path + ": truncated PNG");
    const unsigned char* type = &file[at + 4];
    const unsigned char* data = type + 4;
    const uLong crc = crc32(0L, type, length + 4);
    if (crc != BigEndian32(data + length))
      throw std::runtime_error(path + ": corrupt PNG (a chunk's CRC does not match)");
    const std::string name(type, type + 4);
    if (at == 8 && name != "IHDR")
      throw std::runtime_error(path + ": corrupt PNG (no IHDR)");
    if (name == "IHDR") header = ReadHeader(data, length, path);
    if (name == "IDAT") compressed.insert(compressed.end(), data, data + length);
    ended = name == "IEND";
    at += 12 + length;
  }
  if (static_cast<long long>(header.width) * header.height > max_pixels)
    throw std::runtime_error(path + ": " + std::to_string(header.height) + " × " +
                             std::to_string(header.width) + " pixels; at most " +
                             std::to_string(max_pixels) + " are read");
  const size_t stride =
      (static_cast<size_t>(header.width) * header.channels * header.bit_depth + 7) / 8;
  std::vector<unsigned char> bytes(header.height * (stride + 1));
  uLongf inflated = bytes.size();
  if (uncompress(bytes.data(), &inflated, compressed.data(), compressed.size()) != Z_OK ||
      inflated != bytes.size())
    throw std::runtime_error(path + ": corrupt PNG (its image data does not inflate to " +
                             std::to_string(header.height) + " rows)");
  const size_t step = std::max<size_t>(1, header.channels * header.bit_depth / 8);
  Unfilter(&bytes, header.height, stride, step, path);
  PngGray image{static_cast<int>(header.width), static_cast<int>(header.height), {}};
  image.values.reserve(static_cast<size_t>(header.width) * header.height);
  for (size_t r = 0; r < header.height; ++r)
    for (size_t c = 0; c < header.width; ++c)
      image.values.push_back(PixelValue(bytes.data() + r * (stride + 1) + 1, c, header));
  return image;
}

}  // namespace coulomb
