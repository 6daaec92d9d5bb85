#include "coulomb/multibody/png_gray.h"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

// A PNG image written here as the specification defines the format: raw
// scanlines, each filtered forward by filter type r mod 5 (none, sub, up,
// average, Paeth: the byte minus its predictor from the raw bytes to its
// left a, above b and above-left c), deflated by zlib and split over two
// IDAT chunks, each chunk with its CRC.
struct PngImage {
  int width, height, bit_depth, color_type, channels;
  std::vector<std::vector<unsigned char>> rows;  // raw scanlines

  size_t step() const { return std::max(1, channels * bit_depth / 8); }
};

int PaethPredictor(int a, int b, int c) {
  const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
  return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
}

void AppendChunk(std::string* file, const std::string& type, const std::string& data) {
  const auto put32 = [&](uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) file->push_back(char(value >> shift));
  };
  put32(static_cast<uint32_t>(data.size()));
  const std::string body = type + data;
  *file += body;
  put32(static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), body.size())));
}

std::string Encode(const PngImage& image, int interlace = 0) {
  std::string filtered;
  for (size_t r = 0; r < image.rows.size(); ++r) {
    const std::vector<unsigned char>& x = image.rows[r];
    const int filter = static_cast<int>(r % 5);
    filtered.push_back(char(filter));
    for (size_t i = 0; i < x.size(); ++i) {
      const int a = i >= image.step() ? x[i - image.step()] : 0;
      const int b = r > 0 ? image.rows[r - 1][i] : 0;
      const int c = r > 0 && i >= image.step() ? image.rows[r - 1][i - image.step()] : 0;
      const int predictor[5] = {0, a, b, (a + b) / 2, PaethPredictor(a, b, c)};
      filtered.push_back(char(x[i] - predictor[filter]));
    }
  }
  std::string deflated(compressBound(filtered.size()), '\0');
  uLongf size = deflated.size();
  compress(reinterpret_cast<Bytef*>(deflated.data()), &size,
           reinterpret_cast<const Bytef*>(filtered.data()), filtered.size());
  deflated.resize(size);
  std::string header;
  for (const uint32_t value : {uint32_t(image.width), uint32_t(image.height)})
    for (int shift = 24; shift >= 0; shift -= 8) header.push_back(char(value >> shift));
  header += {char(image.bit_depth), char(image.color_type), 0, 0, char(interlace)};
  std::string file = "\x89PNG\r\n\x1a\n";
  AppendChunk(&file, "IHDR", header);
  AppendChunk(&file, "IDAT", deflated.substr(0, deflated.size() / 2));
  AppendChunk(&file, "tEXt", std::string("Comment\0ignored", 15));
  AppendChunk(&file, "IDAT", deflated.substr(deflated.size() / 2));
  AppendChunk(&file, "IEND", "");
  return file;
}

std::string Write(const std::string& bytes, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// An image of the given kind, its bytes random (odd seeds) or in steps
// (even ones), and the value MuJoCo reads of each pixel:
// the first sample (gray or red), its high byte, a sub-byte gray scaled.
PngImage RandomImage(int width, int height, int bit_depth, int color_type, int channels,
                     std::vector<uint8_t>* expected, unsigned seed) {
  std::mt19937 random(seed);
  PngImage image{width, height, bit_depth, color_type, channels, {}};
  const size_t bytes = (static_cast<size_t>(width) * channels * bit_depth + 7) / 8;
  for (int r = 0; r < height; ++r) {
    std::vector<unsigned char> row(bytes);
    for (size_t i = 0; i < bytes; ++i)  // random, or in steps (Paeth's ties)
      row[i] = static_cast<unsigned char>(seed % 2 ? random() : (i / 3 + r) % 4 * 60);
    for (int c = 0; c < width; ++c) {
      if (bit_depth >= 8) {
        expected->push_back(row[static_cast<size_t>(c) * channels * (bit_depth / 8)]);
      } else {
        const int bit = c * bit_depth, top = (1 << bit_depth) - 1;
        const int value = (row[bit / 8] >> (8 - bit_depth - bit % 8)) & top;
        expected->push_back(static_cast<uint8_t>(value * 255 / top));
      }
    }
    image.rows.push_back(row);
  }
  return image;
}

TEST(PngGray, ReadsEveryFilterBitDepthAndColorTypeAsMujocoDoes) {
  struct Kind {
    int bit_depth, color_type, channels;
  };
  const Kind kinds[] = {{8, 0, 1},  {16, 0, 1}, {1, 0, 1},  {2, 0, 1},
                        {4, 0, 1},  {8, 2, 3},  {16, 2, 3}, {8, 4, 2},
                        {16, 4, 2}, {8, 6, 4},  {16, 6, 4}};
  unsigned seed = 1;
  for (const Kind& kind : kinds) {
    for (int pattern = 0; pattern < 2; ++pattern) {
      std::vector<uint8_t> expected;
      const PngImage image = RandomImage(13, 11, kind.bit_depth, kind.color_type,
                                         kind.channels, &expected, ++seed);
      const std::string path = Write(Encode(image), "coulomb_png_gray_test.png");
      const PngGray read = ReadPngGray(path, 1000);
      EXPECT_EQ(read.width, 13);
      EXPECT_EQ(read.height, 11);
      EXPECT_EQ(read.values, expected)
          << "bit depth " << kind.bit_depth << ", color type " << kind.color_type
          << ", seed " << seed;
    }
  }
}

TEST(PngGray, RefusesFilesItCannotReadNamingThem) {
  std::vector<uint8_t> expected;
  const PngImage image = RandomImage(6, 4, 8, 0, 1, &expected, 3);
  const std::string good = Encode(image);
  const auto refused = [&](const std::string& bytes, const std::string& message,
                           long long max_pixels = 1000) {
    const std::string path = Write(bytes, "coulomb_png_bad.png");
    try {
      ReadPngGray(path, max_pixels);
      ADD_FAILURE() << "read: " << message;
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find(path + ": " + message), std::string::npos)
          << error.what();
    }
  };
  refused("GIF89a", "not a PNG file");
  refused(good.substr(0, good.size() - 20), "truncated PNG");
  std::string corrupt = good;
  corrupt[40] = static_cast<char>(corrupt[40] ^ 1);  // inside the first IDAT
  refused(corrupt, "corrupt PNG (a chunk's CRC does not match)");
  refused(good, "4 × 6 pixels; at most 20 are read", 20);
  PngImage huge = image;  // a header's sides are written as uint32_t
  huge.width = huge.height = std::numeric_limits<int>::max();  // PNG's largest: 2^31 − 1
  refused(Encode(huge), "2147483647 × 2147483647 pixels; at most 1000 are read");
  huge.width = huge.height = -1;  // 2^32 − 1, beyond PNG's limit
  refused(Encode(huge), "corrupt PNG (bad IHDR)");
  PngImage palette = image;
  palette.color_type = 3;
  refused(Encode(palette), "palette PNG not read; save it as grayscale");
  refused(Encode(image, 1), "interlaced PNG not read; save it without interlacing");
  PngImage short_rows = image;
  short_rows.rows.pop_back();  // 3 rows for the header's 4
  refused(Encode(short_rows), "corrupt PNG (its image data does not inflate to 4 rows)");
  const std::string missing = Write("", "coulomb_png_missing.png");
  std::filesystem::remove(missing);
  EXPECT_THROW(ReadPngGray(missing, 1000), std::runtime_error);
}

}  // namespace
}  // namespace coulomb
