// KafkaPublished: the output cursor's text form, the verdict-source header, and what is
// remembered for messages not yet committed.
#include "ingest/kafka_published.h"

#include <gtest/gtest.h>

namespace verdict::ingest {
namespace {

TEST(OutputCursorTest, RoundTrips) {
  OutputCursor cursor{{{"decisions", 0}, 12}, {{"decisions", 1}, 0}, {{"payments-dlq", 0}, 7}};
  const std::string text = EncodeOutputCursor(cursor);
  EXPECT_EQ(text, "verdict-out:v1 decisions/0=12;decisions/1=0;payments-dlq/0=7");
  EXPECT_EQ(DecodeOutputCursor(text), cursor);
  EXPECT_EQ(DecodeOutputCursor("verdict-out:v1 "), OutputCursor());
}

TEST(OutputCursorTest, RefusesWhatItDidNotWrite) {
  EXPECT_EQ(DecodeOutputCursor(""), std::nullopt);
  EXPECT_EQ(DecodeOutputCursor("some other client's metadata"), std::nullopt);
  EXPECT_EQ(DecodeOutputCursor("verdict-out:v1 decisions=12"), std::nullopt);
  EXPECT_EQ(DecodeOutputCursor("verdict-out:v1 decisions/x=12"), std::nullopt);
  EXPECT_EQ(DecodeOutputCursor("verdict-out:v1 decisions/0=-3"), std::nullopt);
  EXPECT_EQ(DecodeOutputCursor("verdict-out:v1 /0=3"), std::nullopt);
}

TEST(SourceHeaderTest, NamesTheInputMessage) {
  EXPECT_EQ(SourceHeader("payments", 2, 41), "payments/2/41");
  EXPECT_EQ(ParseSourceHeader("payments/2/41", "payments"), std::make_pair(2, int64_t{41}));
  EXPECT_EQ(ParseSourceHeader("payments-eu/2/41", "payments"), std::nullopt);
  EXPECT_EQ(ParseSourceHeader("payments/2", "payments"), std::nullopt);
  EXPECT_EQ(ParseSourceHeader("payments/2/x", "payments"), std::nullopt);
}

TEST(KafkaPublishedTest, RemembersOutputsUntilTheirInputIsCommitted) {
  KafkaPublished published;
  published.Landed({"decisions", 0}, 100);
  published.Landed({"decisions", 1}, 50);
  published.Add(0, 10, {"decisions", 0, 100, "tx-1"});
  published.Add(1, 3, {"decisions", 1, 50, "tx-2"});
  published.Add(0, 11, {"payments-dlq", 0, 4, "poison"});
  EXPECT_TRUE(published.Has(0, 10, "decisions", "tx-1", false));
  EXPECT_FALSE(published.Has(0, 10, "decisions", "tx-9", false));
  EXPECT_FALSE(published.Has(0, 12, "decisions", "tx-1", false));
  EXPECT_TRUE(published.Has(0, 11, "payments-dlq", "", true));
  EXPECT_FALSE(published.Has(0, 11, "payments-dlq", "", false));
  // The cursor starts at the oldest output of an uncommitted message.
  OutputCursor expected{{{"decisions", 0}, 100}, {{"decisions", 1}, 50}, {{"payments-dlq", 0}, 4}};
  EXPECT_EQ(published.Cursor(), expected);
  published.Committed(0, 11);
  EXPECT_FALSE(published.Has(0, 10, "decisions", "tx-1", false));
  EXPECT_TRUE(published.Has(0, 11, "payments-dlq", "", true));
  EXPECT_TRUE(published.Has(1, 3, "decisions", "tx-2", false));
  // Past every output seen, once their messages are committed.
  published.Committed(0, 12);
  published.Committed(1, 4);
  expected = {{{"decisions", 0}, 101}, {{"decisions", 1}, 51}, {{"payments-dlq", 0}, 5}};
  EXPECT_EQ(published.Cursor(), expected);
}

TEST(KafkaPublishedTest, ForgetsTheInputPartitionsOfOthers) {
  KafkaPublished published;
  published.Add(0, 10, {"decisions", 0, 100, "tx-1"});
  published.Add(1, 3, {"decisions", 0, 90, "tx-2"});
  published.RetainInputs({0});
  EXPECT_TRUE(published.Has(0, 10, "decisions", "tx-1", false));
  EXPECT_FALSE(published.Has(1, 3, "decisions", "tx-2", false));
  EXPECT_EQ(published.Cursor(), (OutputCursor{{{"decisions", 0}, 100}}));
}

}  // namespace
}  // namespace verdict::ingest
