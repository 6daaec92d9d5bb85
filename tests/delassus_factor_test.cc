#include "coulomb/fclib/delassus_factor.h"

#include <cstdlib>
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

namespace coulomb {
namespace {

// J of a factor as one dense matrix (rows in W's order, the cliques' dofs
// one after the other).
Eigen::MatrixXd DenseJacobian(const DelassusFactor& factor) {
  std::vector<int> offset(factor.clique_sizes.size() + 1, 0);
  for (size_t c = 0; c < factor.clique_sizes.size(); ++c)
    offset[c + 1] = offset[c] + factor.clique_sizes[c];
  const auto num_contacts = static_cast<Eigen::Index>(factor.contact_jacobians.size());
  Eigen::MatrixXd j = Eigen::MatrixXd::Zero(3 * num_contacts, offset.back());
  for (Eigen::Index contact = 0; contact < num_contacts; ++contact) {
    for (const JacobianBlock& block : factor.contact_jacobians[contact]) {
      EXPECT_EQ(block.matrix.cols(), factor.clique_sizes[block.clique]);
      j.block(3 * contact, offset[block.clique], 3, block.matrix.cols()) += block.matrix;
    }
  }
  return j;
}

// W = H M⁻¹ Hᵀ of a chain of `num_bodies` free bodies (6 dofs, random SPD
// mass), three contacts between each body and the next and three between
// the first body and the ground: more contact rows than dofs, so W is
// singular (rank 6 × num_bodies), and contacts are coupled only through a
// body they share, so its Cholesky factor is sparse.
Eigen::MatrixXd ChainDelassus(int num_bodies) {
  const int num_contacts = 3 * num_bodies, num_dofs = 6 * num_bodies;
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(3 * num_contacts, num_dofs);
  for (int contact = 0; contact < num_contacts; ++contact) {
    const int body = contact / 3;  // the contact is between body − 1 and body
    h.block(3 * contact, 6 * body, 3, 6).setRandom();
    if (body > 0) h.block(3 * contact, 6 * (body - 1), 3, 6).setRandom();
  }
  Eigen::MatrixXd m_inverse = Eigen::MatrixXd::Zero(num_dofs, num_dofs);
  for (int body = 0; body < num_bodies; ++body) {
    const Eigen::MatrixXd root = Eigen::MatrixXd::Random(6, 6);
    m_inverse.block(6 * body, 6 * body, 6, 6) =
        (root * root.transpose() + Eigen::MatrixXd::Identity(6, 6)).inverse();
  }
  const Eigen::MatrixXd w = h * m_inverse * h.transpose();
  return 0.5 * (w + w.transpose());
}

int Rank(const Eigen::MatrixXd& w) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(w);
  const double cutoff = 1e-10 * eigen.eigenvalues().maxCoeff();
  return static_cast<int>((eigen.eigenvalues().array() > cutoff).count());
}

// Both factors reproduce a singular W: the dense one with rank W dofs, the
// block-sparse one as W + δ I (δ = kDiagonalShift max |W|) in cliques of 3
// dofs, each contact touching only the cliques of the contacts near it in
// the chain, where the dense factor's contacts touch every dof.
TEST(DelassusFactor, BothFactorsReproduceASingularW) {
  std::srand(11);
  const int num_bodies = 20;
  const Eigen::MatrixXd w = ChainDelassus(num_bodies);
  const int rank = Rank(w);
  ASSERT_EQ(rank, 6 * num_bodies);
  ASSERT_LT(rank, w.rows());  // singular
  const double scale = w.cwiseAbs().maxCoeff();
  const Eigen::MatrixXd shift =
      kDiagonalShift * scale * Eigen::MatrixXd::Identity(w.rows(), w.cols());
  for (const bool sparse : {false, true}) {
    SCOPED_TRACE(sparse ? "block-sparse" : "dense");
    const DelassusFactor factor =
        sparse ? SparseDelassusFactor(w, "chain") : DenseDelassusFactor(w, "chain");
    EXPECT_EQ(factor.sparse, sparse);
    const Eigen::MatrixXd j = DenseJacobian(factor);
    EXPECT_EQ(j.cols(), sparse ? w.rows() : rank);
    const Eigen::MatrixXd model = sparse ? w + shift : w;
    const double error = (j * j.transpose() - model).cwiseAbs().maxCoeff() / scale;
    EXPECT_LT(error, 1e-12);
    std::printf("%s factor: %d cliques, %d dofs, max |J Jᵀ − W%s| / max |W| = %.1e\n",
                sparse ? "block-sparse" : "dense",
                static_cast<int>(factor.clique_sizes.size()), static_cast<int>(j.cols()),
                sparse ? " − δ I" : "", error);
  }
  const DelassusFactor factor = SparseDelassusFactor(w, "chain");
  for (int size : factor.clique_sizes) EXPECT_EQ(size, 3);
  // A contact's rows touch the cliques of at most the contacts of three
  // consecutive body pairs (nine contacts), wherever the elimination put them.
  for (const std::vector<JacobianBlock>& blocks : factor.contact_jacobians) {
    std::set<int> cliques;
    for (const JacobianBlock& block : blocks) cliques.insert(block.clique);
    EXPECT_EQ(cliques.size(), blocks.size());  // one block per clique
    EXPECT_LE(blocks.size(), 9u);
  }
}

// The choice follows the factor's fill: a long chain's W (its factor holds
// about 5 % of the blocks of a dense one) gets the block-sparse factor, a W
// coupling every contact with every other the dense one.
TEST(DelassusFactor, ChoosesTheBlockSparseFactorWhenItIsSparse) {
  std::srand(12);
  EXPECT_TRUE(ChooseDelassusFactor(ChainDelassus(60), "chain").sparse);
  const Eigen::MatrixXd root = Eigen::MatrixXd::Random(60, 60);
  const Eigen::MatrixXd full = root * root.transpose();
  const DelassusFactor dense = ChooseDelassusFactor(full, "full");
  EXPECT_FALSE(dense.sparse);
  EXPECT_LT((DenseJacobian(dense) * DenseJacobian(dense).transpose() - full)
                .cwiseAbs()
                .maxCoeff(),
            1e-12 * full.cwiseAbs().maxCoeff());
}

// Bad W: an indefinite or a zero one is refused, naming where it came from.
TEST(DelassusFactor, RefusesAnIndefiniteOrZeroW) {
  Eigen::MatrixXd indefinite = Eigen::MatrixXd::Identity(6, 6);
  indefinite(4, 4) = -1.0;
  for (const bool sparse : {false, true}) {
    const auto factor = sparse ? SparseDelassusFactor : DenseDelassusFactor;
    try {
      factor(indefinite, "file.hdf5");
      ADD_FAILURE() << "an indefinite W was accepted";
    } catch (const std::runtime_error& error) {
      EXPECT_STREQ(error.what(),
                   "file.hdf5: /fclib_local/W is not positive semidefinite");
    }
    try {
      factor(Eigen::MatrixXd::Zero(6, 6), "file.hdf5");
      ADD_FAILURE() << "a zero W was accepted";
    } catch (const std::runtime_error& error) {
      EXPECT_STREQ(error.what(), "file.hdf5: /fclib_local/W is zero");
    }
  }
}

}  // namespace
}  // namespace coulomb
