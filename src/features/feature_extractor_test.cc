#include "features/feature_extractor.h"

#include <gtest/gtest.h>

#include <span>

#include "features/feature_stream.h"
#include "features/feature_test_util.h"

namespace verdict {
namespace {

using testing_util::Process;
using testing_util::Txn;

constexpr int64_t kStart = int64_t{1'767'225'600} * 1'000'000;  // 2026-01-01T00:00Z, Thursday

class FeatureExtractorTest : public ::testing::Test {
 protected:
  FeatureExtractor extractor_;
  FeatureStream stream_{extractor_, 4};
  ManualClock clock_{kStart};
};

TEST(FeatureSchemaTest, NamesAreUniqueAndKeepTheEngineContract) {
  for (size_t i = 0; i < kFeatureCount; ++i) {
    for (size_t j = i + 1; j < kFeatureCount; ++j) EXPECT_NE(kFeatureNames[i], kFeatureNames[j]);
  }
  std::span<const std::string_view> names = kFeatureNames;
  EXPECT_EQ(names[kSenderOutCount1h], "sender_out_count_1h");
  EXPECT_EQ(names[kSenderNearThresholdCount24h], "sender_near_threshold_count_24h");
  EXPECT_EQ(names.size(), static_cast<size_t>(kFeatureCount));
}

TEST_F(FeatureExtractorTest, VelocityWindowEdgesAreHalfOpen) {
  Process(stream_, Txn(clock_, "A", "B", 100'00));
  clock_.AdvanceMicros(kUsPerHour - 1);  // still inside (t - 1 h, t]
  FeatureVector f = Process(stream_, Txn(clock_, "A", "C", 50'00));
  EXPECT_EQ(f[kSenderOutCount1h], 1);
  EXPECT_EQ(f[kSenderOutSum1h], 100);
  EXPECT_EQ(f[kSenderOutMax1h], 100);
  clock_.SetMicros(kStart + kUsPerHour);  // exactly 1 h after the first
  f = Process(stream_, Txn(clock_, "A", "D", 10'00));
  EXPECT_EQ(f[kSenderOutCount1h], 1);  // only the second one
  EXPECT_EQ(f[kSenderOutSum1h], 50);
  EXPECT_EQ(f[kSenderOutCount24h], 2);
  EXPECT_EQ(f[kSenderOutSum24h], 150);
  EXPECT_EQ(f[kSenderOutMax24h], 100);
  clock_.SetMicros(kStart + kUsPerDay);
  f = Process(stream_, Txn(clock_, "A", "E", 10'00));
  EXPECT_EQ(f[kSenderOutCount24h], 2);  // the first left the 24 h window
  EXPECT_EQ(f[kSenderOutCount7d], 3);
  EXPECT_EQ(f[kSenderOutSum30d], 160);
}

TEST_F(FeatureExtractorTest, LongWindowsUseDayBucketsWhoseStartIsInside) {
  Process(stream_, Txn(clock_, "A", "B", 300'00));  // day 0, 00:00
  clock_.SetMicros(kStart + 3 * kUsPerDay);         // folds the first into its day bucket
  Process(stream_, Txn(clock_, "A", "C", 100'00));
  clock_.SetMicros(kStart + 7 * kUsPerDay - 1);
  FeatureVector f = Process(stream_, Txn(clock_, "A", "D", 1'00));
  EXPECT_EQ(f[kSenderOutCount24h], 0);
  EXPECT_EQ(f[kSenderOutCount7d], 2);  // day-0 bucket starts inside (t - 7 d, t]
  EXPECT_EQ(f[kSenderOutMax7d], 300);
  clock_.SetMicros(kStart + 7 * kUsPerDay);
  f = Process(stream_, Txn(clock_, "A", "D", 1'00));
  EXPECT_EQ(f[kSenderOutCount7d], 2);  // day 0 out; day 3 and the 1.00 in
  EXPECT_EQ(f[kSenderOutSum7d], 101);
  EXPECT_EQ(f[kSenderOutCount30d], 3);
  EXPECT_EQ(f[kSenderOutMax30d], 300);
  clock_.SetMicros(kStart + 31 * kUsPerDay);
  f = Process(stream_, Txn(clock_, "A", "D", 1'00));
  // The day-3 bucket counts from its 7-day block (day 0), outside (t - 30 d, t]; the two 1.00
  // transfers of days 6-7 are still exact recent events (no newer event folded them).
  EXPECT_EQ(f[kSenderOutCount30d], 2);
  EXPECT_EQ(f[kSenderOutSum30d], 2);
  EXPECT_EQ(f[kSenderOutMax30d], 1);
}

TEST_F(FeatureExtractorTest, ReceiverSideAndAmountHistory) {
  for (int i = 0; i < 4; ++i) {
    Process(stream_, Txn(clock_, "S" + std::to_string(i), "R", 100'00));
    clock_.AdvanceMicros(kUsPerHour);
  }
  FeatureVector f = Process(stream_, Txn(clock_, "X", "R", 1'000'00));
  EXPECT_EQ(f[kReceiverInCount24h], 4);
  EXPECT_EQ(f[kReceiverInSum24h], 400);
  EXPECT_EQ(f[kReceiverInCount1h], 0);  // the last one was exactly 1 h ago: out
  EXPECT_EQ(f[kReceiverDistinctSenders24h], 4);
  EXPECT_EQ(f[kReceiverNewSenderShare7d], 1);
  EXPECT_EQ(f[kReceiverAmountRatioMean30d], 10);
  EXPECT_EQ(f[kReceiverAmountRatioMax30d], 10);
  EXPECT_GT(f[kReceiverAmountLogZscore], 10);  // far above a history of identical amounts
  EXPECT_EQ(f[kAmountUsd], 1000);
  EXPECT_EQ(f[kAmountIsRound], 1);
}

TEST_F(FeatureExtractorTest, StructuringCountsAmountsInTheBandBelowTheThreshold) {
  for (int64_t cents : {9'000'00, 9'999'99, 8'999'99, 10'000'00, 9'500'00}) {
    Process(stream_, Txn(clock_, "A", "B", cents));
    clock_.AdvanceMicros(kUsPerHour);
  }
  FeatureVector f = Process(stream_, Txn(clock_, "A", "B", 9'900'00));
  EXPECT_EQ(f[kAmountNearThreshold], 1);
  EXPECT_EQ(f[kSenderNearThresholdCount24h], 3);  // 9000, 9999.99, 9500
  EXPECT_NEAR(f[kSenderNearThresholdSum24h], 9'000 + 9'999.99 + 9'500, 0.01);  // float state
  EXPECT_EQ(f[kSenderNearThresholdCount7d], 3);
  EXPECT_EQ(f[kReceiverNearThresholdCount24h], 3);
  EXPECT_EQ(f[kSenderRoundCount24h], 3);  // 9000, 10000, 9500 are multiples of 100
}

TEST_F(FeatureExtractorTest, ForeignCurrencyIsConvertedToUsd) {
  FeatureVector f = Process(stream_, Txn(clock_, "A", "B", 9'000'00, "EUR"));
  EXPECT_DOUBLE_EQ(f[kAmount], 9000);
  EXPECT_DOUBLE_EQ(f[kAmountUsd], 9000 * 1.08);
  EXPECT_EQ(f[kAmountNearThreshold], 1);  // 9,720 USD
}

TEST_F(FeatureExtractorTest, CounterpartiesFanOutAndFirstTimePair) {
  FeatureVector f = Process(stream_, Txn(clock_, "A", "B", 10'00));
  EXPECT_EQ(f[kPairFirstTime], 1);
  clock_.AdvanceMicros(kUsPerHour);
  f = Process(stream_, Txn(clock_, "A", "B", 10'00));
  EXPECT_EQ(f[kPairFirstTime], 0);
  for (int i = 0; i < 5; ++i) {
    clock_.AdvanceMicros(kUsPerHour);
    Process(stream_, Txn(clock_, "A", "C" + std::to_string(i), 10'00));
  }
  clock_.AdvanceMicros(2 * kUsPerDay);
  f = Process(stream_, Txn(clock_, "A", "Z", 10'00));
  EXPECT_EQ(f[kSenderDistinctReceivers24h], 0);
  EXPECT_EQ(f[kSenderDistinctReceivers7d], 6);
  EXPECT_EQ(f[kSenderDistinctReceivers30d], 6);
  EXPECT_EQ(f[kSenderNewReceiverShare7d], 1);
}

TEST_F(FeatureExtractorTest, PassThroughAndTimeSinceLastMovement) {
  Process(stream_, Txn(clock_, "X", "M", 50'000'00));
  clock_.AdvanceMicros(2 * kUsPerHour);
  FeatureVector f = Process(stream_, Txn(clock_, "M", "Y", 48'000'00));
  EXPECT_EQ(f[kSenderInSum24h], 50'000);
  EXPECT_DOUBLE_EQ(f[kSenderPassThroughRatio24h], 0.96);
  EXPECT_EQ(f[kSenderHoursSinceLastIn], 2);
  EXPECT_EQ(f[kSenderHoursSinceLastOut], -1);  // never sent before
  EXPECT_EQ(f[kReceiverHoursSinceLastOut], -1);
}

TEST_F(FeatureExtractorTest, DormancyAndAge) {
  FeatureVector f = Process(stream_, Txn(clock_, "A", "B", 10'00));
  EXPECT_EQ(f[kSenderDaysSinceLastActivity], -1);
  EXPECT_EQ(f[kSenderAccountAgeDays], 0);
  clock_.AdvanceMicros(40 * kUsPerDay);
  f = Process(stream_, Txn(clock_, "B", "C", 10'00));
  EXPECT_EQ(f[kSenderDaysSinceLastActivity], 40);
  EXPECT_EQ(f[kSenderAccountAgeDays], 40);
  clock_.AdvanceMicros(kUsPerDay / 2);
  f = Process(stream_, Txn(clock_, "C", "A", 10'00));
  EXPECT_EQ(f[kReceiverDaysSinceLastActivity], 40.5);
  EXPECT_EQ(f[kSenderDaysSinceLastActivity], 0.5);
}

TEST_F(FeatureExtractorTest, ContextFeatures) {
  FeatureOptions options;
  options.high_risk_countries = {"IR"};
  FeatureExtractor extractor(options);
  FeatureStream stream(extractor);
  clock_.SetMicros(kStart + 2 * kUsPerDay + 15 * kUsPerHour);  // Saturday 15:00
  Transaction t = Txn(clock_, "A", "B", 10'00);
  t.sender.country = "US";
  t.receiver.ref.bank = "BANKIRTH";  // no country given: taken from the BIC
  t.channel = "Wire";
  t.type = "transfer";
  FeatureVector f = Process(stream, t);
  EXPECT_EQ(f[kCrossBorder], 1);
  EXPECT_EQ(f[kSenderHighRiskCountry], 0);
  EXPECT_EQ(f[kReceiverHighRiskCountry], 1);
  EXPECT_EQ(f[kChannelCode], 1);  // "wire", case-insensitively
  EXPECT_EQ(f[kTypeCode], 1);
  EXPECT_EQ(f[kHourOfDay], 15);
  EXPECT_EQ(f[kDayOfWeek], 5);
  EXPECT_EQ(f[kIsWeekend], 1);
  t.channel = "pigeon";
  EXPECT_EQ(Process(stream, t)[kChannelCode], static_cast<double>(kChannelCodes.size() - 1));
}

TEST_F(FeatureExtractorTest, OutOfOrderWithinToleranceIsExact) {
  clock_.SetMicros(kStart + 10 * kUsPerHour);
  Process(stream_, Txn(clock_, "A", "B", 5'00));
  clock_.SetMicros(kStart + 9 * kUsPerHour + 30 * 60 * kUsPerSecond);  // 30 min late
  FeatureVector f = Process(stream_, Txn(clock_, "A", "C", 7'00));
  EXPECT_EQ(f[kLateEvent], 0);
  EXPECT_EQ(f[kSenderOutCount1h], 0);  // the later event is not visible as of this time
  clock_.SetMicros(kStart + 10 * kUsPerHour);
  f = Process(stream_, Txn(clock_, "A", "D", 1'00));
  EXPECT_EQ(f[kSenderOutCount1h], 2);
  EXPECT_EQ(f[kSenderOutSum1h], 12);
  EXPECT_EQ(extractor_.counters().late_events, 0u);
}

TEST_F(FeatureExtractorTest, OutOfOrderBeyondToleranceIsFlaggedAndCounted) {
  clock_.SetMicros(kStart + 10 * kUsPerHour);
  Process(stream_, Txn(clock_, "A", "B", 5'00));
  clock_.SetMicros(kStart + 8 * kUsPerHour);  // 2 h late, tolerance 1 h
  FeatureVector f = Process(stream_, Txn(clock_, "A", "C", 7'00));
  EXPECT_EQ(f[kLateEvent], 1);
  EXPECT_EQ(extractor_.counters().late_events, 1u);
  clock_.SetMicros(kStart + 10 * kUsPerHour);
  f = Process(stream_, Txn(clock_, "A", "D", 1'00));
  EXPECT_EQ(f[kSenderOutCount24h], 2);  // still counted where it belongs
}

TEST_F(FeatureExtractorTest, ClosesCyclesOfLengthTwoThreeAndFour) {
  for (int length = 2; length <= 4; ++length) {
    const std::string p = "L" + std::to_string(length) + "-";
    FeatureVector f{};
    for (int i = 0; i < length; ++i) {
      clock_.AdvanceMicros(kUsPerHour);
      f = Process(stream_, Txn(clock_, p + std::to_string(i), p + std::to_string((i + 1) % length),
                               1'000'00));
      if (i + 1 < length) {
        EXPECT_EQ(f[kClosesCycle2] + f[kClosesCycle3] + f[kClosesCycle4], 0) << length;
      }
    }
    EXPECT_EQ(f[kClosesCycle2], length == 2) << length;
    EXPECT_EQ(f[kClosesCycle3], length == 3) << length;
    EXPECT_EQ(f[kClosesCycle4], length == 4) << length;
  }
}

TEST_F(FeatureExtractorTest, CyclesMustBeTimeRespectingAndRecent) {
  // B→C happens before A→B: the path A→B→C does not exist in time order, so C→A closes nothing.
  Process(stream_, Txn(clock_, "B", "C", 10'00));
  clock_.AdvanceMicros(kUsPerHour);
  Process(stream_, Txn(clock_, "A", "B", 10'00));
  clock_.AdvanceMicros(kUsPerHour);
  FeatureVector f = Process(stream_, Txn(clock_, "C", "A", 10'00));
  EXPECT_EQ(f[kClosesCycle3], 0);
  // A 2-cycle whose first hop is older than the 7-day window does not count.
  Process(stream_, Txn(clock_, "P", "Q", 10'00));
  clock_.AdvanceMicros(8 * kUsPerDay);
  f = Process(stream_, Txn(clock_, "Q", "P", 10'00));
  EXPECT_EQ(f[kClosesCycle2], 0);
  clock_.AdvanceMicros(kUsPerHour);
  f = Process(stream_, Txn(clock_, "P", "Q", 10'00));
  EXPECT_EQ(f[kClosesCycle2], 1);
}

TEST_F(FeatureExtractorTest, SelfTransferSharesOneState) {
  Process(stream_, Txn(clock_, "A", "A", 10'00));
  clock_.AdvanceMicros(kUsPerSecond);
  FeatureVector f = Process(stream_, Txn(clock_, "A", "A", 10'00));
  EXPECT_EQ(f[kSenderOutCount1h], 1);
  EXPECT_EQ(f[kReceiverInCount1h], 1);
  EXPECT_EQ(f[kClosesCycle2], 0);
}

TEST_F(FeatureExtractorTest, BusySidesOverflowIntoHourBucketsAndAreCounted) {
  FeatureOptions options;
  options.max_recent_events = 8;
  FeatureExtractor extractor(options);
  FeatureStream stream(extractor);
  clock_.SetMicros(kStart + 10 * kUsPerHour + 30 * 60 * kUsPerSecond);  // 10:30
  for (int i = 0; i < 20; ++i) Process(stream, Txn(clock_, "A", "B", 1'00));
  EXPECT_EQ(extractor.counters().recent_overflow, 12u * 2);  // both sides
  FeatureVector f = Process(stream, Txn(clock_, "A", "B", 1'00));
  EXPECT_EQ(f[kSenderOutCount1h], 20);  // 8 exact + the 10:00 hour bucket
  EXPECT_EQ(f[kReceiverInCount24h], 20);
  EXPECT_EQ(f[kSenderOutCount7d], 20);
  clock_.SetMicros(kStart + 11 * kUsPerHour + 10 * 60 * kUsPerSecond);  // 11:10
  f = Process(stream, Txn(clock_, "A", "B", 1'00));
  // The 10:00 bucket (now 13 events) starts more than 1 h back; the 8 newest are exact.
  EXPECT_EQ(f[kSenderOutCount1h], 8);
  EXPECT_EQ(f[kSenderOutCount24h], 21);
}

TEST(FeatureOptionsTest, ValidateRefusesNonsense) {
  FeatureOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.threshold_band = 1.5;
  EXPECT_FALSE(o.Validate().ok());
  o = FeatureOptions();
  o.high_risk_countries = {"ZZ"};
  EXPECT_FALSE(o.Validate().ok());
  EXPECT_FALSE(FeatureExtractor::Create(o).ok());
}

}  // namespace
}  // namespace verdict
