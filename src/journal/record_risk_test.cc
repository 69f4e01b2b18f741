// The decision record's risk and anomaly score (record.h, layout 5): a decision that carries
// either is written with a flags byte and the two doubles after layout 1's fields (and the
// trace id when traced); a decision with neither keeps layout 1 or 4, so records written before
// layout 5 read back as before, without a risk.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "journal/record.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace {

using testing_util::MakeRecord;

constexpr char kRiskTraceId[] = "4bf92f3577b34da6a3ce929d0e0e4736";

TEST(RecordRiskTest, ARiskAndAnomalyRoundTripInLayoutFive) {
  JournalRecord plain = MakeRecord(7);
  JournalRecord scored = plain;
  scored.decision.risk = 0.8125;
  scored.decision.anomaly = 0.25;
  ASSERT_TRUE(ValidateRecord(scored).ok());
  std::string a, b;
  EncodeRecordPayload(plain, a);
  EncodeRecordPayload(scored, b);
  EXPECT_EQ(static_cast<uint8_t>(b[0]), kScoredPayloadFormatVersion);
  EXPECT_EQ(b.size(), a.size() + 1 + 8 + 8);
  EXPECT_EQ(b.substr(1, a.size() - 1), a.substr(1));
  JournalRecord back;
  ASSERT_TRUE(DecodeRecordPayload(b, back).ok());
  ASSERT_TRUE(back.decision.risk.has_value());
  EXPECT_EQ(*back.decision.risk, 0.8125);
  ASSERT_TRUE(back.decision.anomaly.has_value());
  EXPECT_EQ(*back.decision.anomaly, 0.25);
  EXPECT_TRUE(back.decision.trace.trace_id.empty());
  EXPECT_TRUE(RecordsEqual(scored, back));
}

TEST(RecordRiskTest, ATracedRiskWithoutAnomalyKeepsTheTraceId) {
  JournalRecord r = MakeRecord(8);
  r.decision.trace.trace_id = kRiskTraceId;
  r.decision.risk = 0.5;
  std::string payload;
  EncodeRecordPayload(r, payload);
  EXPECT_EQ(static_cast<uint8_t>(payload[0]), kScoredPayloadFormatVersion);
  JournalRecord back;
  ASSERT_TRUE(DecodeRecordPayload(payload, back).ok());
  EXPECT_EQ(back.decision.trace.trace_id, kRiskTraceId);
  EXPECT_EQ(back.decision.risk, 0.5);
  EXPECT_FALSE(back.decision.anomaly.has_value());
  EXPECT_TRUE(RecordsEqual(r, back));
}

TEST(RecordRiskTest, ADecisionWithoutRiskKeepsTheOlderLayoutAndDecodesWithoutOne) {
  JournalRecord r = MakeRecord(9);
  std::string payload;
  EncodeRecordPayload(r, payload);
  EXPECT_EQ(static_cast<uint8_t>(payload[0]), kPayloadFormatVersion);
  JournalRecord back;
  back.decision.risk = 0.9;  // decoding must not keep it
  back.decision.anomaly = 0.9;
  ASSERT_TRUE(DecodeRecordPayload(payload, back).ok());
  EXPECT_FALSE(back.decision.risk.has_value());
  EXPECT_FALSE(back.decision.anomaly.has_value());
}

TEST(RecordRiskTest, BadFlagsTruncationAndNonFiniteValuesAreRefused) {
  JournalRecord r = MakeRecord(10);
  r.decision.risk = 0.75;
  std::string payload;
  EncodeRecordPayload(r, payload);
  JournalRecord out;
  for (size_t cut = 1; cut <= 9; ++cut) {
    EXPECT_FALSE(DecodeRecordPayload(payload.substr(0, payload.size() - cut), out).ok()) << cut;
  }
  EXPECT_FALSE(DecodeRecordPayload(payload + "x", out).ok());
  const size_t flags_at = payload.size() - 9;
  ASSERT_EQ(static_cast<uint8_t>(payload[flags_at]), 2);
  for (uint8_t bad : {0, 1, 8, 0x80}) {
    std::string p = payload;
    p[flags_at] = static_cast<char>(bad);
    EXPECT_FALSE(DecodeRecordPayload(p, out).ok()) << int(bad);
  }
  r.decision.risk = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(ValidateRecord(r).ok());
  r.decision.risk = 0.5;
  r.decision.anomaly = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(ValidateRecord(r).ok());
}

}  // namespace
}  // namespace verdict::journal
