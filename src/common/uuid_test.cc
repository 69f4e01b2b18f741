#include "common/uuid.h"

#include <gtest/gtest.h>

#include <set>

namespace verdict {
namespace {

TEST(UuidV7Test, HasVersionAndVariantBitsAndTimestamp) {
  ManualClock clock(1'796'206'530'123'456);
  UuidV7Generator gen(clock, 42);
  Uuid id = gen.Next();
  EXPECT_EQ(id.version(), 7);
  EXPECT_EQ(id.variant_bits(), 0b10);
  EXPECT_EQ(id.unix_millis(), 1'796'206'530'123u);
  std::string text = id.ToString();
  EXPECT_EQ(text.size(), 36u);
  EXPECT_EQ(text[14], '7');
  auto parsed = Uuid::Parse(text);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, id);
}

TEST(UuidV7Test, IdsIncreaseWithinOneMillisecondAndWhenTheClockStepsBack) {
  ManualClock clock(1'000'000'000);
  UuidV7Generator gen(clock, 7);
  Uuid previous = gen.Next();
  std::set<std::string> seen{previous.ToString()};
  for (int i = 0; i < 20'000; ++i) {  // far more than 4096 per millisecond: forces rollover
    if (i == 10'000) clock.AdvanceMicros(-5'000);
    Uuid next = gen.Next();
    ASSERT_LT(previous, next) << i;
    ASSERT_TRUE(seen.insert(next.ToString()).second);
    previous = next;
  }
  clock.AdvanceMicros(60'000'000);
  Uuid later = gen.Next();
  EXPECT_LT(previous, later);
  EXPECT_EQ(later.unix_millis(), static_cast<uint64_t>(clock.NowMicros() / 1000));
}

TEST(UuidTest, ParseRejectsMalformedText) {
  EXPECT_FALSE(Uuid::Parse("").has_value());
  EXPECT_FALSE(Uuid::Parse("0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d1").has_value());
  EXPECT_FALSE(Uuid::Parse("0193a7c4x5e1b-7cc2-9f00-3b1f2a9e4d11").has_value());
  EXPECT_FALSE(Uuid::Parse("0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4dzz").has_value());
}

}  // namespace
}  // namespace verdict
