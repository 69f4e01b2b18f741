#include "journal/merkle.h"

#include <gtest/gtest.h>

#include <vector>

namespace verdict::journal {
namespace {

std::vector<Digest> Leaves(size_t n) {
  std::vector<Digest> out;
  for (size_t i = 0; i < n; ++i) out.push_back(MerkleLeafHash("leaf " + std::to_string(i)));
  return out;
}

TEST(MerkleTest, Rfc6962PrefixesAndEmptyTree) {
  // SHA-256 of the empty string, and of the single byte 0x00 (the empty leaf).
  EXPECT_EQ(ToHex(MerkleRoot({})),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(ToHex(MerkleLeafHash("")),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
  Digest a = MerkleLeafHash("a");
  Digest b = MerkleLeafHash("b");
  std::string concat(1, '\x01');
  concat += std::string(AsBytes(a));
  concat += std::string(AsBytes(b));
  EXPECT_EQ(MerkleNodeHash(a, b), Sha256(concat));
  std::vector<Digest> two = {a, b};
  EXPECT_EQ(MerkleRoot(two), MerkleNodeHash(a, b));
}

TEST(MerkleTest, UnbalancedTreeSplitsAtLargestPowerOfTwo) {
  std::vector<Digest> l = Leaves(5);
  Digest left = MerkleNodeHash(MerkleNodeHash(l[0], l[1]), MerkleNodeHash(l[2], l[3]));
  EXPECT_EQ(MerkleRoot(l), MerkleNodeHash(left, l[4]));
}

TEST(MerkleTest, CompactMerkleMatchesFullRootAtEverySize) {
  std::vector<Digest> l = Leaves(130);
  CompactMerkle m;
  EXPECT_EQ(m.Root(), MerkleRoot({}));
  for (size_t n = 1; n <= l.size(); ++n) {
    m.AppendLeafHash(l[n - 1]);
    ASSERT_EQ(m.Root(), MerkleRoot(std::span<const Digest>(l).subspan(0, n))) << n;
    Result<CompactMerkle> back = CompactMerkle::Deserialize(m.Serialize());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->Root(), m.Root());
    EXPECT_EQ(back->size(), n);
  }
  std::string bytes = m.Serialize();
  EXPECT_FALSE(CompactMerkle::Deserialize(bytes.substr(0, bytes.size() - 1)).ok());
  EXPECT_FALSE(CompactMerkle::Deserialize(bytes + std::string(32, 'x')).ok());
}

TEST(MerkleTest, InclusionProofsVerifyAndForgeriesFail) {
  std::vector<Digest> all = Leaves(40);
  for (size_t n = 1; n <= all.size(); ++n) {
    std::span<const Digest> l(all.data(), n);
    Digest root = MerkleRoot(l);
    for (size_t i = 0; i < n; ++i) {
      std::vector<Digest> proof = MerkleInclusionProof(l, i);
      ASSERT_TRUE(VerifyMerkleInclusion(l[i], i, n, proof, root)) << i << "/" << n;
      EXPECT_FALSE(VerifyMerkleInclusion(MerkleLeafHash("other"), i, n, proof, root));
      if (n > 1) {
        EXPECT_FALSE(VerifyMerkleInclusion(l[i], (i + 1) % n, n, proof, root));
        std::vector<Digest> bad = proof;
        bad[0][3] ^= 1;
        EXPECT_FALSE(VerifyMerkleInclusion(l[i], i, n, bad, root));
        bad = proof;
        bad.push_back(root);
        EXPECT_FALSE(VerifyMerkleInclusion(l[i], i, n, bad, root));
      }
      EXPECT_FALSE(VerifyMerkleInclusion(l[i], i, n, proof, MerkleLeafHash("x")));
    }
  }
  EXPECT_FALSE(VerifyMerkleInclusion(all[0], 5, 5, {}, all[0]));
}

}  // namespace
}  // namespace verdict::journal
