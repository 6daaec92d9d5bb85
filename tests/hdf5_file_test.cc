// Growing datasets (io/hdf5_file.h): a writer keeps each dataset it appends
// to open with its extent; a reader that opens the file after any flush sees
// exactly the rows appended so far, in order, whatever the order in which
// the datasets grew.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "coulomb/io/hdf5_file.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;

// The rows a dataset should hold, kept by the test beside the file.
struct ExpectedRows {
  size_t cols;  // 0: a vector
  std::vector<double> values;
  size_t rows() const { return values.size() / std::max<size_t>(cols, 1); }
};

void ExpectFileHolds(const std::string& path,
                     const std::map<std::string, ExpectedRows>& expected) {
  const Hdf5File reader(path, Hdf5File::Mode::kRead);
  for (const auto& [dataset, rows] : expected) {
    const std::vector<size_t> extent = reader.Dimensions(dataset);
    ASSERT_EQ(extent.size(), rows.cols == 0 ? 1u : 2u) << dataset;
    ASSERT_EQ(extent[0], rows.rows()) << dataset;
    EXPECT_EQ(reader.ReadRows(dataset, 0, rows.rows()), rows.values) << dataset;
  }
}

TEST(Hdf5File, RowsAppendedInAnyOrderAreReadBackAfterEveryFlush) {
  const fs::path folder = fs::temp_directory_path() /
                          ("coulomb_hdf5_file_test_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const std::string path = (folder / "growing.h5").string();
  std::map<std::string, ExpectedRows> expected = {{"/bodies/a/position", {3, {}}},
                                                  {"/bodies/b/position", {3, {}}},
                                                  {"/bodies/b/velocity", {6, {}}},
                                                  {"/time", {0, {}}}};
  std::mt19937 random(7);
  std::uniform_int_distribution<int> row_count(0, 9);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const auto append_some = [&](Hdf5File* file, const std::string& dataset) {
    ExpectedRows& rows = expected.at(dataset);
    std::vector<double> batch(row_count(random) * std::max<size_t>(rows.cols, 1));
    for (double& x : batch) x = value(random);
    const size_t count = batch.size() / std::max<size_t>(rows.cols, 1);
    file->AppendRows(dataset, batch.data(), count, rows.cols);
    rows.values.insert(rows.values.end(), batch.begin(), batch.end());
  };
  {
    Hdf5File writer(path, Hdf5File::Mode::kCreateGrowing);
    for (const auto& [dataset, rows] : expected) append_some(&writer, dataset);
    writer.StartSingleWriter();  // reopens the datasets the writer holds open
    std::vector<std::string> order;
    for (const auto& [dataset, rows] : expected) order.push_back(dataset);
    for (int flush = 0; flush < 6; ++flush) {
      std::shuffle(order.begin(), order.end(), random);
      for (int pass = 0; pass < 3; ++pass) {
        for (const std::string& dataset : order) append_some(&writer, dataset);
      }
      writer.Flush();
      ExpectFileHolds(path, expected);  // read while the writer holds it open
    }
    EXPECT_THROW(writer.AppendRows("/bodies/a/position", nullptr, 0, 4),
                 std::runtime_error);
  }
  ExpectFileHolds(path, expected);
  for (const auto& [dataset, rows] : expected) EXPECT_GT(rows.rows(), 20u) << dataset;
  fs::remove_all(folder);
}

}  // namespace
}  // namespace coulomb
