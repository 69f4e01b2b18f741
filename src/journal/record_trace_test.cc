// The decision record's trace id (docs/tracing.md): a traced decision's payload is layout 4
// (layout 1 and the 16-byte trace id); an untraced one, and every record written before tracing
// existed, stays layout 1 and decodes with no trace id.
#include <gtest/gtest.h>

#include "journal/record.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace {

using testing_util::MakeRecord;

constexpr char kTraceId[] = "4bf92f3577b34da6a3ce929d0e0e4736";

TEST(RecordTraceTest, AnUntracedDecisionKeepsTheOlderLayoutAndDecodesWithoutATraceId) {
  JournalRecord r = MakeRecord(7);
  std::string payload;
  EncodeRecordPayload(r, payload);
  ASSERT_EQ(static_cast<uint8_t>(payload[0]), kPayloadFormatVersion);
  JournalRecord back;
  back.decision.trace.trace_id = kTraceId;  // decoding must not keep it
  ASSERT_TRUE(DecodeRecordPayload(payload, back).ok());
  EXPECT_TRUE(back.decision.trace.trace_id.empty());
  EXPECT_TRUE(RecordsEqual(r, back));
}

TEST(RecordTraceTest, ATracedDecisionRoundTripsItsTraceIdInSixteenMoreBytes) {
  JournalRecord untraced = MakeRecord(7);
  JournalRecord traced = untraced;
  traced.decision.trace.trace_id = kTraceId;
  traced.decision.trace.span_id = "00f067aa0ba902b7";  // not journaled
  ASSERT_TRUE(ValidateRecord(traced).ok());
  std::string plain;
  std::string payload;
  EncodeRecordPayload(untraced, plain);
  EncodeRecordPayload(traced, payload);
  EXPECT_EQ(static_cast<uint8_t>(payload[0]), kTracedPayloadFormatVersion);
  EXPECT_EQ(payload.size(), plain.size() + 16);
  // Everything but the version byte is layout 1's, then the id.
  EXPECT_EQ(payload.substr(1, plain.size() - 1), plain.substr(1));
  JournalRecord back;
  ASSERT_TRUE(DecodeRecordPayload(payload, back).ok());
  EXPECT_EQ(back.decision.trace.trace_id, kTraceId);
  EXPECT_TRUE(back.decision.trace.span_id.empty());
  EXPECT_EQ(back.decision.transaction_id, traced.decision.transaction_id);
  EXPECT_TRUE(RecordsEqual(traced, back));
}

TEST(RecordTraceTest, TruncatedOrZeroTraceIdsAreRefused) {
  JournalRecord r = MakeRecord(9);
  r.decision.trace.trace_id = kTraceId;
  std::string payload;
  EncodeRecordPayload(r, payload);
  JournalRecord out;
  for (size_t cut = 1; cut <= 16; ++cut) {
    EXPECT_FALSE(DecodeRecordPayload(payload.substr(0, payload.size() - cut), out).ok()) << cut;
  }
  EXPECT_FALSE(DecodeRecordPayload(payload + "x", out).ok());
  std::string zero = payload;
  zero.replace(zero.size() - 16, 16, std::string(16, '\0'));
  EXPECT_FALSE(DecodeRecordPayload(zero, out).ok());
}

TEST(RecordTraceTest, ValidationRefusesATraceIdThatIsNotThirtyTwoLowerCaseHexDigits) {
  JournalRecord r = MakeRecord(3);
  for (const char* bad : {"4BF92F3577B34DA6A3CE929D0E0E4736", "4bf92f3577b34da6a3ce929d0e0e473",
                          "00000000000000000000000000000000", "4bf92f3577b34da6a3ce929d0e0e473g"}) {
    r.decision.trace.trace_id = bad;
    EXPECT_FALSE(ValidateRecord(r).ok()) << bad;
  }
}

}  // namespace
}  // namespace verdict::journal
