#include "journal/hash_chain.h"

#include <gtest/gtest.h>

namespace verdict::journal {
namespace {

TEST(HashChainTest, EncodesAndDecodes) {
  std::string stored;
  Digest prev = Sha256("previous");
  Digest hash = EncodeEntry(17, 0, prev, "payload bytes", stored);
  EXPECT_EQ(stored.size(), kEntryOverheadBytes + 13);
  EXPECT_EQ(hash, Sha256(std::string_view(stored).substr(0, stored.size() - 32)));
  Result<EntryView> e = DecodeEntry(stored);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->seq, 17u);
  EXPECT_EQ(e->flags, 0);
  EXPECT_EQ(e->prev_hash, prev);
  EXPECT_EQ(e->payload, "payload bytes");
  EXPECT_EQ(e->record_hash, hash);
}

TEST(HashChainTest, HashDependsOnPredecessor) {
  std::string a;
  std::string b;
  EXPECT_NE(EncodeEntry(2, 0, Sha256("x"), "p", a), EncodeEntry(2, 0, Sha256("y"), "p", b));
}

TEST(HashChainTest, EveryByteFlipIsDetected) {
  std::string stored;
  EncodeEntry(5, kEntryFlagEncrypted, kGenesisHash, "some payload of a record", stored);
  for (size_t i = 0; i < stored.size(); ++i) {
    for (uint8_t bit = 1; bit != 0; bit <<= 1) {
      std::string m = stored;
      m[i] = static_cast<char>(m[i] ^ bit);
      EXPECT_FALSE(DecodeEntry(m).ok()) << "byte " << i;
    }
  }
}

TEST(HashChainTest, RejectsTruncationExtensionAndSeqZero) {
  std::string stored;
  EncodeEntry(1, 0, kGenesisHash, "abc", stored);
  for (size_t n = 0; n < stored.size(); ++n) {
    EXPECT_FALSE(DecodeEntry(std::string_view(stored).substr(0, n)).ok());
  }
  EXPECT_FALSE(DecodeEntry(stored + '\0').ok());
  std::string zero;
  EncodeEntry(0, 0, kGenesisHash, "abc", zero);
  EXPECT_FALSE(DecodeEntry(zero).ok());
  std::string flags;
  EncodeEntry(1, 0x80, kGenesisHash, "abc", flags);
  EXPECT_FALSE(DecodeEntry(flags).ok());
}

}  // namespace
}  // namespace verdict::journal
