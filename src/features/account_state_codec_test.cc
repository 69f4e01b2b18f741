#include "features/account_state_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "features/feature_stream.h"
#include "features/feature_test_util.h"

namespace verdict {
namespace {

constexpr int64_t kStreamStart = int64_t{1'767'225'600} * 1'000'000;

// A random but fixed stream over a few accounts, with some out-of-order arrivals.
std::vector<Transaction> RandomStream(uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  ManualClock clock(kStreamStart);
  std::vector<Transaction> out;
  for (int i = 0; i < n; ++i) {
    clock.AdvanceMicros(static_cast<int64_t>(rng() % (3 * kUsPerHour)));
    ManualClock at(clock.NowMicros());
    if (rng() % 10 == 0) at.AdvanceMicros(-static_cast<int64_t>(rng() % (2 * kUsPerHour)));
    const std::string from = "A" + std::to_string(rng() % 12);
    const std::string to = "A" + std::to_string(rng() % 12);
    out.push_back(testing_util::Txn(at, from, to, static_cast<int64_t>(rng() % 2'000'000) + 1,
                                    rng() % 5 == 0 ? "EUR" : "USD"));
  }
  return out;
}

TEST(ReplayDeterminismTest, SameInputSameOrderGivesBitIdenticalVectors) {
  const std::vector<Transaction> txns = RandomStream(7, 3000);
  FeatureExtractor extractor;
  FeatureStream a(extractor, 8);
  FeatureStream b(extractor, 3);  // the stripe count must not matter
  for (const Transaction& t : txns) {
    FeatureVector fa{}, fb{};
    a.Process(t, &fa);
    b.Process(t, &fb);
    ASSERT_EQ(std::memcmp(fa.data(), fb.data(), sizeof(fa)), 0) << t.transaction_id;
  }
}

TEST(AccountStateCodecTest, RoundTripIsExactAndDeterministic) {
  FeatureExtractor extractor;
  FeatureStream stream(extractor, 4);
  for (const Transaction& t : RandomStream(11, 2000)) {
    FeatureVector f{};
    stream.Process(t, &f);
  }
  size_t checked = 0;
  stream.store().ForEach([&](uint64_t, const AccountState& state) {
    const std::string bytes = EncodeAccountState(state);
    auto decoded = DecodeAccountState(bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(EncodeAccountState(*decoded), bytes);
    EXPECT_EQ(decoded->out().recent().size(), state.out().recent().size());
    EXPECT_EQ(decoded->in().peers().size(), state.in().peers().size());
    EXPECT_EQ(decoded->two_hop_count(), state.two_hop_count());
    ++checked;
  });
  EXPECT_EQ(checked, 12u);
}

TEST(AccountStateCodecTest, DecodedStateGivesTheSameFeatures) {
  const std::vector<Transaction> txns = RandomStream(5, 600);
  FeatureExtractor extractor;
  AccountState s1, r1;
  for (const Transaction& t : txns) extractor.Apply(t, s1, r1);
  auto s2 = DecodeAccountState(EncodeAccountState(s1));
  auto r2 = DecodeAccountState(EncodeAccountState(r1));
  ASSERT_TRUE(s2.ok() && r2.ok());
  FeatureVector a{}, b{};
  extractor.Extract(txns.back(), s1, r1, &a);
  extractor.Extract(txns.back(), *s2, *r2, &b);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(a)), 0);
}

TEST(AccountStateCodecTest, RiskLevelsRoundTripAndVersion1StillDecodes) {
  FeatureExtractor extractor;
  AccountState sender, receiver;
  ManualClock clock(kStreamStart);
  extractor.Apply(testing_util::Txn(clock, "S", "R", 100'00), sender, receiver);
  clock.AdvanceMicros(kUsPerHour);
  extractor.Apply(testing_util::Txn(clock, "S", "R", 100'00), sender, receiver);  // a repeat
  ASSERT_EQ(sender.header().unusual, 1.0f);
  const std::string bytes = EncodeAccountState(sender);
  auto decoded = DecodeAccountState(bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->header().unusual, 1.0f);
  EXPECT_EQ(decoded->header().peer_unusual, 1.0f);
  EXPECT_EQ(decoded->header().risk_s, sender.header().risk_s);
  // Version 1: the same bytes without the 12 bytes of risk levels.
  std::string v1 = bytes.substr(0, bytes.size() - 12);
  v1[0] = 1;
  auto old = DecodeAccountState(v1);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->header().unusual, 0.0f);
  EXPECT_EQ(old->out().peers().size(), sender.out().peers().size());
  v1[0] = 2;  // version 2 without them is truncated
  EXPECT_FALSE(DecodeAccountState(v1).ok());
}

TEST(AccountStateCodecTest, RefusesGarbageWithoutCrashing) {
  EXPECT_FALSE(DecodeAccountState("").ok());
  EXPECT_FALSE(DecodeAccountState("\x02").ok());
  AccountState state;
  FeatureExtractor extractor;
  AccountState other;
  for (const Transaction& t : RandomStream(3, 200)) extractor.Apply(t, state, other);
  const std::string bytes = EncodeAccountState(state);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeAccountState(bytes.substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(DecodeAccountState(bytes + "x").ok());
  std::mt19937_64 rng(1);
  size_t accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string mutated = bytes;
    for (int k = 0; k < 3; ++k) {
      mutated[rng() % mutated.size()] = static_cast<char>(rng());
    }
    auto decoded = DecodeAccountState(mutated);
    if (decoded.ok()) {
      ++accepted;
      // Whatever is accepted is a consistent state: it re-encodes to the same bytes.
      EXPECT_TRUE(EncodeAccountState(*decoded) == mutated) << i;
    }
  }
  EXPECT_LT(accepted, 20000u);
}

}  // namespace
}  // namespace verdict
