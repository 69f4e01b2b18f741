#include "features/account_state.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "features/account_state_codec.h"

namespace verdict {
namespace {

uint32_t Key(ArrayId id, uint32_t k) { return 1000u * id + k; }

// Fills every array of `s` with a recognisable pattern: element k of array `id` carries
// 1000 * id + k in its first field.
void Fill(AccountState& s, uint32_t per_array) {
  for (uint32_t k = 0; k < per_array; ++k) {
    s.out().recent().PushBack(RecentEvent{int64_t{Key(kOutRecent, k)}, 1.0f, 0});
    s.in().recent().PushBack(RecentEvent{int64_t{Key(kInRecent, k)}, 2.0f, 0});
    s.out().buckets().PushBack(
        WindowBucket{static_cast<uint16_t>(Key(kOutBuckets, k)), 0, 0, 1, 0, 1.0f, 1.0f});
    s.in().buckets().PushBack(
        WindowBucket{static_cast<uint16_t>(Key(kInBuckets, k)), 0, 0, 1, 0, 1.0f, 1.0f});
    s.paths().PushBack(PathEntry{Key(kPaths, k), 5});
    s.out().peers().PushBack(PeerEntry{Key(kOutPeers, k), 1, 2});
    s.in().peers().PushBack(PeerEntry{Key(kInPeers, k), 1, 2});
  }
}

// Checks the pattern of Fill, for arrays of the given sizes.
void ExpectPattern(const AccountState& s, const std::vector<uint32_t>& keys_out_peers) {
  const ConstStateArray<PeerEntry> peers = s.out().peers();
  ASSERT_EQ(peers.size(), keys_out_peers.size());
  for (uint32_t i = 0; i < peers.size(); ++i) EXPECT_EQ(peers[i].hash, keys_out_peers[i]) << i;
}

TEST(AccountStateTest, EmptyStateHasDefaultsAndNoBlock) {
  const AccountState s;
  EXPECT_EQ(s.HeapBytes(), 0u);
  EXPECT_EQ(s.first_seen_us(), kNever);
  EXPECT_EQ(s.last_seen_us(), kNever);
  EXPECT_EQ(s.out().scalars().last_us, kNever);
  EXPECT_TRUE(s.in().recent().empty());
  EXPECT_EQ(s.paths().begin(), s.paths().end());
  EXPECT_EQ(s.two_hop_count(), 0u);
}

TEST(AccountStateTest, ArraysShareOneBlockWithoutDisturbingEachOther) {
  AccountState s;
  Fill(s, 20);
  for (uint32_t k = 0; k < 20; ++k) {
    EXPECT_EQ(s.out().recent()[k].timestamp_us, int64_t{Key(kOutRecent, k)});
    EXPECT_EQ(s.in().recent()[k].timestamp_us, int64_t{Key(kInRecent, k)});
    EXPECT_EQ(uint32_t{s.out().buckets()[k].slot}, Key(kOutBuckets, k));
    EXPECT_EQ(uint32_t{s.in().buckets()[k].slot}, Key(kInBuckets, k));
    EXPECT_EQ(s.paths()[k].hash, Key(kPaths, k));
    EXPECT_EQ(s.out().peers()[k].hash, Key(kOutPeers, k));
    EXPECT_EQ(s.in().peers()[k].hash, Key(kInPeers, k));
  }
  // Insert and erase in the middle of an early array; the later ones must not move in value.
  s.in().recent().Insert(3, RecentEvent{-1, 0, 0});
  EXPECT_EQ(s.in().recent()[3].timestamp_us, -1);
  EXPECT_EQ(s.in().recent()[4].timestamp_us, int64_t{Key(kInRecent, 3)});
  s.in().recent().Erase(0);
  EXPECT_EQ(s.in().recent().size(), 20u);
  EXPECT_EQ(s.in().recent()[2].timestamp_us, -1);
  EXPECT_EQ(uint32_t{s.out().buckets()[19].slot}, Key(kOutBuckets, 19));
  EXPECT_EQ(s.in().peers()[19].hash, Key(kInPeers, 19));
  // A value taken from the block itself survives the block moving while it is inserted.
  for (int i = 0; i < 50; ++i) s.out().peers().PushBack(s.out().peers()[0]);
  EXPECT_EQ(s.out().peers()[69].hash, Key(kOutPeers, 0));
  EXPECT_EQ(s.in().peers()[0].hash, Key(kInPeers, 0));
}

TEST(AccountStateTest, RetainIfAndClearGiveMemoryBack) {
  AccountState s;
  Fill(s, 200);
  const size_t big = s.HeapBytes();
  EXPECT_GE(big, sizeof(StateHeader) + 200 * (4 * 16 + 8 + 2 * 12));
  s.out().peers().RetainIf([](const PeerEntry& p) { return p.hash % 2 == 0; });
  std::vector<uint32_t> even;
  for (uint32_t k = 0; k < 200; k += 2) even.push_back(Key(kOutPeers, k));
  ExpectPattern(s, even);
  EXPECT_EQ(s.in().peers()[199].hash, Key(kInPeers, 199));
  s.out().recent().clear();
  s.in().recent().clear();
  s.out().buckets().clear();
  s.in().buckets().clear();
  s.paths().clear();
  s.in().peers().clear();
  EXPECT_LT(s.HeapBytes(), big / 4);
  ExpectPattern(s, even);
}

TEST(AccountStateTest, CopiesAreDeepAndMovesTransferTheBlock) {
  AccountState a;
  Fill(a, 5);
  a.set_first_seen_us(7);
  a.set_last_seen_us(9);
  a.set_two_hop_count(3);
  a.out().scalars().ew_mean = 1.5f;
  AccountState b = a;
  EXPECT_EQ(EncodeAccountState(b), EncodeAccountState(a));
  b.out().peers()[0].hash = 42;
  EXPECT_EQ(a.out().peers()[0].hash, Key(kOutPeers, 0));
  EXPECT_EQ(b.out().scalars().ew_mean, 1.5f);
  const std::string before = EncodeAccountState(a);
  AccountState c = std::move(a);
  EXPECT_EQ(EncodeAccountState(c), before);
  EXPECT_EQ(a.HeapBytes(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  a = c;
  EXPECT_EQ(EncodeAccountState(a), before);
  a = AccountState();
  EXPECT_EQ(a.HeapBytes(), 0u);
  c = std::move(b);
  EXPECT_EQ(c.out().peers()[0].hash, 42u);
}

}  // namespace
}  // namespace verdict
