// ReusableDense (vectors and matrices), ReusableLists, PackedMatrices, SampleRows and
// SegmentedArray: the
// values they hold behave as a VectorXd, a vector of vectors and separate matrices would,
// and their storage stays where it was when they shrink and grow back.
#include <gtest/gtest.h>

#include "coulomb/math/packed_matrices.h"
#include "coulomb/math/reusable_dense.h"
#include "coulomb/math/reusable_lists.h"
#include "coulomb/math/sample_rows.h"
#include "coulomb/math/segmented_array.h"

namespace coulomb {
namespace {

TEST(ReusableVector, ResizesKeepingItsLeadingValuesAndItsStorage) {
  ReusableVector v;
  v = Eigen::VectorXd::LinSpaced(8, 1.0, 8.0);
  const double* storage = v.data();
  v.resize(3);
  EXPECT_EQ(v, Eigen::Vector3d(1.0, 2.0, 3.0));
  v.resize(8);  // within the storage it had: same place, values still there
  EXPECT_EQ(v.data(), storage);
  EXPECT_EQ(v(7), 8.0);
  v.setZero(5);
  EXPECT_EQ(v.size(), 5);
  EXPECT_TRUE(v.isZero(0.0));
  EXPECT_EQ(v.data(), storage);
}

TEST(ReusableVector, CopiesOwnTheirValuesAndMovesTakeThem) {
  ReusableVector a;
  a = Eigen::Vector3d(1.0, 2.0, 3.0);
  ReusableVector b = a;
  b(0) = -1.0;
  EXPECT_EQ(a(0), 1.0);  // a deep copy
  EXPECT_NE(a.data(), b.data());
  const double* storage = b.data();
  ReusableVector c = std::move(b);
  EXPECT_EQ(c.data(), storage);
  EXPECT_EQ(c, Eigen::Vector3d(-1.0, 2.0, 3.0));
  EXPECT_EQ(b.size(), 0);
  a = c + c;  // any expression, resizing
  EXPECT_EQ(a, Eigen::Vector3d(-2.0, 4.0, 6.0));
  a = a.head(2);  // from a view of itself
  EXPECT_EQ(a, Eigen::Vector2d(-2.0, 4.0));
}

// A matrix, and one with three fixed rows (a contact's Jacobian on a tree):
// a shape whose size fits the storage it had is laid out there.
TEST(ReusableDense, MatricesTakeAnyShapeWithinTheirStorage) {
  ReusableMatrix m;
  const Eigen::MatrixXd wide = Eigen::MatrixXd::Random(3, 6);
  m = wide;
  EXPECT_EQ(m, wide);
  const double* storage = m.data();
  m.setZero(6, 2);  // 12 entries of the 18
  EXPECT_EQ(m.rows(), 6);
  EXPECT_EQ(m.cols(), 2);
  EXPECT_TRUE(m.isZero(0.0));
  EXPECT_EQ(m.data(), storage);
  m = wide.transpose();
  EXPECT_EQ(m, wide.transpose());
  EXPECT_EQ(m.data(), storage);

  ReusableDense<Eigen::Matrix<double, 3, Eigen::Dynamic>> rows3;
  EXPECT_EQ(rows3.rows(), 3);
  EXPECT_EQ(rows3.cols(), 0);
  rows3 = wide;
  const double* rows3_storage = rows3.data();
  rows3.setZero(3, 1);
  EXPECT_EQ(rows3.data(), rows3_storage);
  rows3.col(0) = Eigen::Vector3d(1.0, 2.0, 3.0);
  const Eigen::Vector3d product = rows3 * Eigen::VectorXd::Constant(1, 2.0);
  EXPECT_EQ(product, Eigen::Vector3d(2.0, 4.0, 6.0));
  auto moved = std::move(rows3);
  EXPECT_EQ(moved.data(), rows3_storage);
  EXPECT_EQ(rows3.rows(), 3);
  EXPECT_EQ(rows3.cols(), 0);
}

TEST(ReusableLists, KeepsTheStorageOfListsBeyondItsSize) {
  ReusableLists<int> lists;
  lists.Reset(4);
  for (int i = 0; i < 4; ++i) lists[i].assign(10, i);
  lists.resize(2);  // lists 0 and 1 keep their values
  EXPECT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[1], std::vector<int>(10, 1));
  int visited = 0;
  for (const std::vector<int>& list : lists) visited += static_cast<int>(list.size());
  EXPECT_EQ(visited, 20);
  lists.resize(4);  // lists 2 and 3 come back empty, their storage kept
  EXPECT_TRUE(lists[3].empty());
  EXPECT_GE(lists[3].capacity(), 10u);
  lists.Reset(3);
  EXPECT_TRUE(lists[0].empty());
  EXPECT_EQ(lists.size(), 3u);
}

TEST(PackedMatrices, HoldsSeparateMatricesInStorageThatDoesNotMove) {
  PackedMatrices matrices;
  matrices.LayOut({2, 3, 1}, {3, 2, 4});
  ASSERT_EQ(matrices.size(), 3);
  for (int k = 0; k < 3; ++k) matrices[k].setConstant(k);
  EXPECT_EQ(matrices[1].rows(), 3);
  EXPECT_EQ(matrices[1].cols(), 2);
  for (int k = 0; k < 3; ++k) {  // writing one touched no other
    EXPECT_TRUE((matrices[k].array() == k).all()) << k;
  }
  const double* storage = matrices[0].data();
  matrices.LayOut({1}, {5});
  matrices.LayOut({4, 2}, {2, 2});  // 12 values: within the 16 it had
  EXPECT_EQ(matrices[0].data(), storage);
  EXPECT_EQ(matrices[1].data(), storage + 8);
}

TEST(SampleRows, HoldsRowsOfOneWidthEndToEnd) {
  SampleRows rows;
  EXPECT_TRUE(rows.empty());
  EXPECT_EQ(rows.width(), 0);
  for (int s = 0; s < 5; ++s) rows.Append(3) = Eigen::Vector3d(s, 10 + s, 20 + s);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows.width(), 3);
  EXPECT_EQ(rows[2], Eigen::Vector3d(2, 12, 22));
  EXPECT_EQ(rows.back(), Eigen::Vector3d(4, 14, 24));
  EXPECT_EQ(rows.data()[3 * 4 + 1], 14.0);  // row-major: row 4, column 1
  EXPECT_THROW(rows.Append(2), std::invalid_argument);
  EXPECT_EQ(rows.size(), 5u);  // the refused row was not added
  EXPECT_THROW(rows.at(5), std::out_of_range);
  const SampleRows tail = rows.From(3);
  ASSERT_EQ(tail.size(), 2u);
  EXPECT_EQ(tail[0], rows[3]);
  EXPECT_EQ(tail[1], rows[4]);
  EXPECT_EQ(rows.From(9).size(), 0u);
  EXPECT_EQ(rows.From(9).width(), 3);  // no rows, but still their width
}

TEST(SampleRows, ClearingKeepsTheStorageForTheNextRows) {
  SampleRows rows;
  for (int s = 0; s < 100; ++s) rows.Append(7).setConstant(s);
  const double* storage = rows.data();
  rows.clear();
  EXPECT_TRUE(rows.empty());
  EXPECT_EQ(rows.width(), 0);
  for (int s = 0; s < 50; ++s) rows.Append(14).setConstant(-s);  // a new width is fine
  EXPECT_EQ(rows.data(), storage);
  EXPECT_EQ(rows[49], Eigen::VectorXd::Constant(14, -49.0));
}

TEST(SampleRows, GrowingKeepsEveryRowAndCopiesAreIndependent) {
  SampleRows rows;
  for (int s = 0; s < 20000; ++s)
    rows.Append(5).setLinSpaced(s, s + 4);  // grows ~10 times
  ASSERT_EQ(rows.size(), 20000u);
  for (int s = 0; s < 20000; s += 997) {
    EXPECT_EQ(rows[s], Eigen::VectorXd::LinSpaced(5, s, s + 4)) << s;
  }
  SampleRows copy = rows;
  copy.Append(5).setConstant(-1.0);
  EXPECT_EQ(rows.size(), 20000u);
  EXPECT_NE(copy.data(), rows.data());
  EXPECT_EQ(copy[123], rows[123]);
  const double* storage = copy.data();
  const SampleRows moved = std::move(copy);
  EXPECT_EQ(moved.data(), storage);  // the buffer is handed over, not copied
  EXPECT_EQ(moved.size(), 20001u);
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  copy = moved;               // and usable again
  EXPECT_EQ(copy.back(), Eigen::VectorXd::Constant(5, -1.0));
}

// An element with a count of the live ones, to see SegmentedArray construct
// and destroy each exactly once.
struct Counted {
  static inline int live = 0;
  explicit Counted(int v) : value(v) { ++live; }
  Counted(const Counted& other) : value(other.value) { ++live; }
  Counted& operator=(const Counted&) = default;
  ~Counted() { --live; }
  int value;
};

TEST(SegmentedArray, AppendingNeverMovesAnElement) {
  SegmentedArray<Counted> array;
  std::vector<const Counted*> addresses;
  const int n = 64 * 63 + 5;  // into the seventh segment
  for (int i = 0; i < n; ++i) {
    array.push_back(Counted(i));
    addresses.push_back(&array[i]);
  }
  ASSERT_EQ(array.size(), static_cast<size_t>(n));
  EXPECT_EQ(Counted::live, n);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(array[i].value, i);
    ASSERT_EQ(&array[i], addresses[i]) << i;  // where it was written
  }
  // Segment k holds 64 · 2^k elements: 0–63, 64–191, 192–447, … contiguously.
  EXPECT_EQ(&array[63] + 1, addresses[63] + 1);
  EXPECT_EQ(&array[64 + 127], &array[64] + 127);
  EXPECT_EQ(&array[192 + 255], &array[192] + 255);
  {
    const SegmentedArray<Counted> copy = array;
    EXPECT_EQ(Counted::live, 2 * n);
    EXPECT_EQ(copy[n - 1].value, n - 1);
    EXPECT_NE(&copy[0], &array[0]);
  }
  EXPECT_EQ(Counted::live, n);
  array.clear();
  EXPECT_TRUE(array.empty());
  EXPECT_EQ(Counted::live, 0);
  array.push_back(Counted(7));
  EXPECT_EQ(&array[0], addresses[0]);  // the segments were kept
  SegmentedArray<Counted> moved = std::move(array);
  EXPECT_EQ(&moved[0], addresses[0]);
  EXPECT_EQ(Counted::live, 1);
}

}  // namespace
}  // namespace coulomb
