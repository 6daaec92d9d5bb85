#include "coulomb/math/block_sparse_cholesky.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

// A random SPD matrix with a random block pattern (some blocks isolated),
// returned dense together with its pattern.
struct RandomBlockMatrix {
  BlockSparsityPattern pattern;
  Eigen::MatrixXd dense;
};

// Blocks of min_size…max_size rows: 1…6 mixes the fixed-size 6 × 6 kernels
// with the dynamic ones; 6…6 is a scene of free rigid bodies.
RandomBlockMatrix MakeRandomBlockMatrix(int num_blocks, double coupling_probability,
                                        unsigned seed, int min_size = 1,
                                        int max_size = 6) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> size(min_size, max_size);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  RandomBlockMatrix result;
  result.pattern.block_sizes.resize(num_blocks);
  result.pattern.neighbors.resize(num_blocks);
  std::vector<int> offsets;
  int n = 0;
  for (int& s : result.pattern.block_sizes) {
    s = size(random);
    offsets.push_back(n);
    n += s;
  }
  // H = Σ_couplings Bᵀ B + I: every coupling is a rank-3 term on two blocks,
  // so H is SPD with exactly the pattern's structure.
  result.dense = Eigen::MatrixXd::Identity(n, n);
  for (int i = 0; i < num_blocks; ++i) {
    for (int j = 0; j < i; ++j) {
      if (unit(random) > coupling_probability) continue;
      result.pattern.AddCoupling(i, j);
      Eigen::MatrixXd b = Eigen::MatrixXd::Zero(3, n);
      b.middleCols(offsets[i], result.pattern.block_sizes[i]).setRandom();
      b.middleCols(offsets[j], result.pattern.block_sizes[j]).setRandom();
      result.dense += b.transpose() * b;
    }
  }
  return result;
}

// With `columns`, only the blocks stored in the marked columns.
void Load(const RandomBlockMatrix& matrix, BlockSparseCholesky* cholesky,
          const std::vector<char>* columns = nullptr) {
  cholesky->SetZero(columns);
  const auto add = [&](int i, int j) {
    const BlockSparseCholesky::BlockHandle handle = cholesky->Handle(i, j);
    if (columns != nullptr && !(*columns)[cholesky->ColumnOf(handle)]) return;
    const auto rows = Eigen::seqN(cholesky->block_offset(i), cholesky->block_size(i));
    const auto cols = Eigen::seqN(cholesky->block_offset(j), cholesky->block_size(j));
    cholesky->AddToBlock(handle, matrix.dense(rows, cols));
  };
  for (int i = 0; i < matrix.pattern.num_blocks(); ++i) {
    add(i, i);
    for (int j : matrix.pattern.neighbors[i]) {
      if (j < i) add(i, j);
    }
  }
}

class BlockSparseCholeskyRandom : public ::testing::TestWithParam<unsigned> {};

// Factors the pattern's matrix and solves a random right-hand side.
void ExpectSolvesLikeDenseCholesky(const RandomBlockMatrix& matrix) {
  BlockSparseCholesky cholesky(matrix.pattern);
  Load(matrix, &cholesky);
  ASSERT_TRUE(cholesky.Factor());
  const Eigen::VectorXd b = Eigen::VectorXd::Random(matrix.dense.rows());
  Eigen::VectorXd x = b;
  cholesky.Solve(x);
  const Eigen::VectorXd expected = matrix.dense.llt().solve(b);
  // H is well conditioned (≥ I, entries O(10)): agreement to ~1e-12 is round-off.
  EXPECT_LT((x - expected).norm(), 1e-11 * expected.norm());
  EXPECT_LT((matrix.dense * x - b).norm(), 1e-11 * b.norm());
}

TEST_P(BlockSparseCholeskyRandom, SolvesLikeDenseCholesky) {
  ExpectSolvesLikeDenseCholesky(MakeRandomBlockMatrix(25, 0.12, GetParam()));
}

TEST_P(BlockSparseCholeskyRandom, SolvesLikeDenseCholeskyWithRigidBodyBlocks) {
  ExpectSolvesLikeDenseCholesky(MakeRandomBlockMatrix(30, 0.15, GetParam(), 6, 6));
}

TEST_P(BlockSparseCholeskyRandom, RefactorsWithNewValuesOnTheSamePattern) {
  RandomBlockMatrix matrix = MakeRandomBlockMatrix(15, 0.2, GetParam());
  BlockSparseCholesky cholesky(matrix.pattern);
  Load(matrix, &cholesky);
  ASSERT_TRUE(cholesky.Factor());
  matrix.dense +=
      3.0 * Eigen::MatrixXd::Identity(matrix.dense.rows(), matrix.dense.cols());
  Load(matrix, &cholesky);
  ASSERT_TRUE(cholesky.Factor());
  const Eigen::VectorXd b = Eigen::VectorXd::Random(matrix.dense.rows());
  Eigen::VectorXd x = b;
  cholesky.Solve(x);
  EXPECT_LT((matrix.dense * x - b).norm(), 1e-11 * b.norm());
}

// A new rank-3 term on two coupled blocks (a contact whose G changed):
// refactoring the columns it reaches — its two blocks and their ancestors in
// the elimination tree — with the other columns' updates applied again
// solves the new matrix; and fewer columns than all are refactored.
TEST_P(BlockSparseCholeskyRandom, RefactorsOnlyTheColumnsAChangeReaches) {
  int refactored = 0, total = 0;
  for (const int max_size : {6, 1}) {  // body blocks (fixed-size kernels), then mixed
    RandomBlockMatrix matrix = MakeRandomBlockMatrix(30, 0.08, GetParam(), 1, max_size);
    BlockSparseCholesky cholesky(matrix.pattern);
    Load(matrix, &cholesky);
    ASSERT_TRUE(cholesky.Factor());
    const int n = matrix.pattern.num_blocks();
    const int a = static_cast<int>(GetParam()) % n;
    const int b =
        matrix.pattern.neighbors[a].empty() ? a : matrix.pattern.neighbors[a][0];
    Eigen::MatrixXd term = Eigen::MatrixXd::Zero(3, matrix.dense.rows());
    term.middleCols(cholesky.block_offset(a), cholesky.block_size(a)).setRandom();
    term.middleCols(cholesky.block_offset(b), cholesky.block_size(b)).setRandom();
    matrix.dense += 5.0 * term.transpose() * term;
    std::vector<char> refactor(n, 0);
    refactor[a] = refactor[b] = 1;
    cholesky.AddAncestors(&refactor);
    Load(matrix, &cholesky, &refactor);
    ASSERT_TRUE(cholesky.Refactor(refactor, nullptr));
    const Eigen::VectorXd rhs = Eigen::VectorXd::Random(matrix.dense.rows());
    Eigen::VectorXd x = rhs;
    cholesky.Solve(x);
    EXPECT_LT((matrix.dense * x - rhs).norm(), 1e-11 * rhs.norm())
        << "max size " << max_size;
    refactored += static_cast<int>(std::count(refactor.begin(), refactor.end(), 1));
    total += n;
  }
  EXPECT_LT(refactored, total);
}

INSTANTIATE_TEST_SUITE_P(Seeds, BlockSparseCholeskyRandom, ::testing::Range(1u, 21u));

// With `active`, AddAncestors leaves the inactive columns unmarked but still
// marks the active ancestors reached through them: checked against a walk up
// the elimination tree (a column's parent: its first block below the
// diagonal) from each marked column, on random matrices where such
// ancestors occur.
TEST(BlockSparseCholesky, AncestorsSkipInactiveColumnsButNotTheActiveBeyondThem) {
  int reached_through_inactive = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const RandomBlockMatrix matrix = MakeRandomBlockMatrix(40, 0.06, seed, 1, 6);
    const BlockSparseCholesky cholesky(matrix.pattern);
    const int n = matrix.pattern.num_blocks();
    std::vector<char> active(n), marked(n, 0), expected(n, 0);
    for (int col = 0; col < n; ++col) active[col] = (col * 7 + seed) % 3 != 0;
    for (int start = static_cast<int>(seed) % 5; start < n; start += 5) {
      marked[start] = 1;
      bool passed_inactive = false;
      for (int col = start;;) {
        if (active[col]) {
          reached_through_inactive += passed_inactive && !expected[col];
          expected[col] = 1;
        }
        passed_inactive = passed_inactive || !active[col];
        const auto& below = cholesky.elimination().below_diagonal[col];
        if (below.empty()) break;
        col = below.front();
      }
    }
    cholesky.AddAncestors(&marked, &active);
    EXPECT_EQ(marked, expected) << "seed " << seed;
  }
  EXPECT_GT(reached_through_inactive, 0);
}

TEST(BlockSparseCholesky, ReportsAMatrixThatIsNotPositiveDefinite) {
  BlockSparsityPattern pattern;
  pattern.block_sizes = {2, 1};
  pattern.neighbors.resize(2);
  pattern.AddCoupling(0, 1);
  BlockSparseCholesky cholesky(pattern);
  cholesky.SetZero();
  cholesky.AddToBlock(cholesky.Handle(0, 0), Eigen::Matrix2d::Identity());
  cholesky.AddToBlock(cholesky.Handle(1, 1), Eigen::MatrixXd::Constant(1, 1, 1.0));
  // Coupling 2 > 1: the Schur complement 1 − 4 is negative.
  cholesky.AddToBlock(cholesky.Handle(1, 0), Eigen::MatrixXd::Constant(1, 2, 2.0));
  EXPECT_FALSE(cholesky.Factor());
}

// The fixed-size 6 × 6 pivot kernel: a negative Schur complement and a NaN
// entry are both refused (a NaN must not pass as a pivot).
TEST(BlockSparseCholesky, ReportsARigidBodyPivotThatIsNotPositiveDefinite) {
  BlockSparsityPattern pattern;
  pattern.block_sizes = {6, 6};
  pattern.neighbors.resize(2);
  pattern.AddCoupling(0, 1);
  for (const double coupling : {2.0, std::nan("")}) {
    BlockSparseCholesky cholesky(pattern);
    cholesky.SetZero();
    cholesky.AddToBlock(cholesky.Handle(0, 0), Eigen::Matrix<double, 6, 6>::Identity());
    cholesky.AddToBlock(cholesky.Handle(1, 1), Eigen::Matrix<double, 6, 6>::Identity());
    // H_10 = c I: the Schur complement (1 − c²) I is not positive for c = 2.
    cholesky.AddToBlock(cholesky.Handle(1, 0),
                        coupling * Eigen::Matrix<double, 6, 6>::Identity());
    EXPECT_FALSE(cholesky.Factor()) << "coupling " << coupling;
  }
}

// Factoring only some islands (SAP sets converged islands aside): the
// marked islands solve exactly as in a full factorization, the others' entries
// of b are left as given, and their blocks are not even read (NaN there is
// harmless).
TEST_P(BlockSparseCholeskyRandom, FactorsAndSolvesOnlyTheMarkedIslands) {
  RandomBlockMatrix matrix = MakeRandomBlockMatrix(30, 0.05, GetParam(), 6, 6);
  std::vector<int> island, stack;
  const int num_islands = matrix.pattern.ConnectedComponents(&island, &stack);
  ASSERT_GE(num_islands, 2);
  std::vector<char> active(island.size());
  for (size_t block = 0; block < island.size(); ++block)
    active[block] = island[block] % 2;
  BlockSparseCholesky cholesky(matrix.pattern);
  Load(matrix, &cholesky);
  for (size_t block = 0; block < island.size(); ++block) {
    if (!active[block]) {
      const int i = static_cast<int>(block);
      cholesky.MutableBlock(cholesky.Handle(i, i)).setConstant(std::nan(""));
    }
  }
  ASSERT_TRUE(cholesky.Factor(&active));
  const Eigen::VectorXd b = Eigen::VectorXd::Random(matrix.dense.rows());
  Eigen::VectorXd x = b;
  cholesky.Solve(x, &active);
  const Eigen::VectorXd expected = matrix.dense.llt().solve(b);
  for (int block = 0; block < matrix.pattern.num_blocks(); ++block) {
    const auto rows =
        Eigen::seqN(cholesky.block_offset(block), cholesky.block_size(block));
    if (active[block]) {
      EXPECT_LT((x(rows) - expected(rows)).norm(), 1e-11 * expected.norm());
    } else {
      EXPECT_EQ(x(rows), b(rows));
    }
  }
}

TEST(MinimumDegreeElimination, CreatesNoFillOnAStar) {
  // A star: center 0 coupled to 1..5. Eliminating the center first would fill
  // the factor completely (10 extra blocks); minimum degree takes leaves first
  // (the center only when one leaf is left), so L has the 5 edges and no fill.
  BlockSparsityPattern pattern;
  pattern.block_sizes.assign(6, 1);
  pattern.neighbors.resize(6);
  for (int leaf = 1; leaf < 6; ++leaf) pattern.AddCoupling(0, leaf);
  const BlockElimination elimination = MinimumDegreeElimination(pattern);
  EXPECT_NE(elimination.order.front(), 0);
  size_t num_below_diagonal = 0;
  for (const auto& rows : elimination.below_diagonal) num_below_diagonal += rows.size();
  EXPECT_EQ(num_below_diagonal, 5u);
}

TEST(MinimumDegreeElimination, IsTheGreedyOrderAndItsFill) {
  // Replays the elimination on a dense adjacency matrix: each block taken is
  // the one whose remaining neighbours hold the fewest scalars (ties: lowest
  // index), its remaining neighbours are its blocks below the diagonal, and
  // eliminating it connects them pairwise.
  for (unsigned seed = 0; seed < 40; ++seed) {
    const BlockSparsityPattern pattern =
        MakeRandomBlockMatrix(5 + static_cast<int>(seed), 0.15, seed).pattern;
    const int n = pattern.num_blocks();
    const BlockElimination elimination = MinimumDegreeElimination(pattern);
    ASSERT_EQ(static_cast<int>(elimination.order.size()), n);
    std::vector<std::vector<char>> adjacent(n, std::vector<char>(n, 0));
    for (int i = 0; i < n; ++i)
      for (int j : pattern.neighbors[i]) adjacent[i][j] = 1;
    std::vector<char> eliminated(n, 0);
    const auto degree = [&](int block) {
      int scalars = 0;
      for (int other = 0; other < n; ++other)
        if (!eliminated[other] && adjacent[block][other])
          scalars += pattern.block_sizes[other];
      return scalars;
    };
    for (int step = 0; step < n; ++step) {
      int expected = -1;
      for (int block = 0; block < n; ++block) {
        if (!eliminated[block] && (expected < 0 || degree(block) < degree(expected)))
          expected = block;
      }
      const int pivot = elimination.order[step];
      ASSERT_EQ(pivot, expected) << "seed " << seed << ", step " << step;
      EXPECT_EQ(elimination.position[pivot], step);
      std::vector<int> remaining;
      for (int other = 0; other < n; ++other)
        if (!eliminated[other] && adjacent[pivot][other]) remaining.push_back(other);
      std::vector<int> below = elimination.below_diagonal[pivot];
      std::sort(below.begin(), below.end());
      EXPECT_EQ(below, remaining) << "seed " << seed << ", block " << pivot;
      for (int a : remaining)
        for (int b : remaining)
          if (a != b) adjacent[a][b] = 1;
      eliminated[pivot] = 1;
    }
  }
}

TEST(BlockSparsityPattern, FindsIslands) {
  BlockSparsityPattern pattern;
  pattern.block_sizes.assign(5, 2);
  pattern.neighbors.resize(5);
  pattern.AddCoupling(0, 3);
  pattern.AddCoupling(3, 4);
  std::vector<int> island, stack;
  EXPECT_EQ(pattern.ConnectedComponents(&island, &stack), 3);
  EXPECT_EQ(island, (std::vector<int>{0, 1, 2, 0, 0}));
}

}  // namespace
}  // namespace coulomb
