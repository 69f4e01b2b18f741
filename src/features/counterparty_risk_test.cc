#include "features/counterparty_risk.h"

#include <gtest/gtest.h>

#include <cmath>

#include "features/feature_stream.h"
#include "features/feature_test_util.h"

namespace verdict {
namespace {

using testing_util::Process;
using testing_util::Txn;

constexpr int64_t kRiskStart = int64_t{1'767'225'600} * 1'000'000;  // 2026-01-01T00:00Z
constexpr double kHalfLifeDays = 30;

// What a level of 1 set `days` earlier reads as now.
double Faded(double days) { return std::exp2(-days / kHalfLifeDays); }

class CounterpartyRiskTest : public ::testing::Test {
 protected:
  FeatureVector At(int64_t offset_us, const std::string& from, const std::string& to,
                   int64_t cents) {
    clock_.SetMicros(kRiskStart + offset_us);
    return Process(stream_, Txn(clock_, from, to, cents));
  }

  FeatureExtractor extractor_;
  FeatureStream stream_{extractor_, 4};
  ManualClock clock_{kRiskStart};
};

TEST_F(CounterpartyRiskTest, RepeatToTheSameReceiverWithinADayIsUnusual) {
  FeatureVector f = At(0, "A", "B", 500'00);
  EXPECT_EQ(f[kSenderUnusualTransfers], 0);
  f = At(2 * kUsPerHour, "A", "B", 500'00);  // the same pair again: unusual, seen after it
  EXPECT_EQ(f[kSenderUnusualTransfers], 0);
  EXPECT_EQ(f[kReceiverUnusualTransfers], 0);
  f = At(2 * kUsPerHour, "A", "C", 500'00);  // A and B each took part in one unusual transfer
  EXPECT_EQ(f[kSenderUnusualTransfers], 1);
  EXPECT_EQ(f[kReceiverUnusualTransfers], 0);  // C had none
  f = At(2 * kUsPerHour, "D", "B", 500'00);
  EXPECT_EQ(f[kReceiverUnusualTransfers], 1);
}

TEST_F(CounterpartyRiskTest, RepeatWindowIsHalfOpen) {
  At(0, "A", "B", 500'00);
  At(kUsPerDay, "A", "B", 500'00);  // exactly 24 h later: outside (t - 24 h, t]
  FeatureVector f = At(kUsPerDay, "A", "C", 500'00);
  EXPECT_EQ(f[kSenderUnusualTransfers], 0);
  At(2 * kUsPerDay - kUsPerSecond, "A", "B", 500'00);  // 1 s inside the window of the second
  f = At(2 * kUsPerDay, "A", "C", 500'00);
  EXPECT_FLOAT_EQ(f[kSenderUnusualTransfers], Faded(1.0 / 86400));
}

TEST_F(CounterpartyRiskTest, AmountFarFromTheSendersUsualIsUnusual) {
  // Ten transfers of 300 to different receivers, days apart (no repeats): A's usual amount.
  for (int i = 0; i < 10; ++i) At(i * kUsPerDay, "A", "R" + std::to_string(i), 300'00);
  FeatureVector f = At(10 * kUsPerDay, "A", "X", 301'00);  // close to usual
  EXPECT_EQ(f[kSenderUnusualTransfers], 0);
  EXPECT_LT(std::abs(f[kSenderAmountLogZscore]), 3);
  f = At(11 * kUsPerDay, "A", "Y", 3'00);  // a hundredth of the usual
  EXPECT_GT(std::abs(f[kSenderAmountLogZscore]), 3);
  EXPECT_EQ(f[kSenderUnusualTransfers], 0);  // it counts only from the next transfer on
  f = At(11 * kUsPerDay, "A", "Z", 300'00);
  EXPECT_EQ(f[kSenderUnusualTransfers], 1);
}

TEST_F(CounterpartyRiskTest, LevelsHalveEveryHalfLife) {
  At(0, "A", "B", 500'00);
  At(kUsPerHour, "A", "B", 500'00);
  FeatureVector f = At(kUsPerHour + 30 * kUsPerDay, "A", "C", 500'00);
  EXPECT_FLOAT_EQ(f[kSenderUnusualTransfers], 0.5);
  f = At(kUsPerHour + 90 * kUsPerDay, "E", "B", 500'00);
  EXPECT_FLOAT_EQ(f[kReceiverUnusualTransfers], 0.125);
}

TEST_F(CounterpartyRiskTest, PeerMaxCarriesACounterpartysLevelTwoHops) {
  At(0, "A", "B", 500'00);
  At(kUsPerHour, "A", "B", 500'00);  // A and B: one unusual transfer each
  // C pays B (an ordinary transfer): C now knows a counterparty at B's level.
  FeatureVector f = At(2 * kUsPerHour, "C", "B", 500'00);
  EXPECT_EQ(f[kSenderPeerUnusualMax], 0);  // read before the transfer
  // B dealt with A, at level 1 after the repeat an hour ago.
  EXPECT_FLOAT_EQ(f[kReceiverPeerUnusualMax], Faded(1.0 / 24));
  f = At(2 * kUsPerHour + 10 * kUsPerDay, "C", "D", 500'00);
  // C took B's level (set an hour before they dealt) and both faded since.
  EXPECT_FLOAT_EQ(f[kSenderPeerUnusualMax], Faded(10 + 1.0 / 24));
  EXPECT_EQ(f[kSenderUnusualTransfers], 0);  // C itself did nothing unusual
  EXPECT_EQ(f[kReceiverPeerUnusualMax], 0);  // D never dealt with anyone
  // D's new counterparty C is at level 0: D's peer level stays 0.
  f = At(2 * kUsPerHour + 10 * kUsPerDay, "E", "D", 500'00);
  EXPECT_EQ(f[kReceiverPeerUnusualMax], 0);
}

TEST_F(CounterpartyRiskTest, LateEventsNeitherFadeBackwardsNorGrowLevels) {
  At(0, "A", "B", 500'00);
  At(kUsPerHour, "A", "B", 500'00);
  At(10 * kUsPerDay, "A", "C", 500'00);                   // A's levels fade to day 10
  FeatureVector f = At(5 * kUsPerDay, "A", "E", 500'00);  // a late arrival from day 5
  EXPECT_FLOAT_EQ(f[kSenderUnusualTransfers], Faded(10 - 1.0 / 24));
  EXPECT_EQ(f[kLateEvent], 1);
}

TEST_F(CounterpartyRiskTest, TransferToSelfCountsOnceAndIsNoCounterparty) {
  At(0, "A", "A", 500'00);
  At(kUsPerHour, "A", "A", 500'00);  // a repeat to itself: one unusual transfer, counted once
  FeatureVector f = At(kUsPerHour, "A", "B", 500'00);
  EXPECT_EQ(f[kSenderUnusualTransfers], 1);
  EXPECT_EQ(f[kSenderPeerUnusualMax], 0);
}

TEST(CounterpartyRiskOptionsTest, SettingsMustBePositive) {
  FeatureOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.unusual_half_life_us = 0;
  EXPECT_FALSE(o.Validate().ok());
  o = FeatureOptions();
  o.unusual_log_zscore = 0;
  EXPECT_FALSE(o.Validate().ok());
  o = FeatureOptions();
  o.unusual_repeat_window_us = -1;
  EXPECT_FALSE(o.Validate().ok());
}

}  // namespace
}  // namespace verdict
