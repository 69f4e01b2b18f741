#include "common/rfc3339.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(Rfc3339Test, ParsesAndNormalizesToUtc) {
  EXPECT_EQ(*ParseRfc3339Micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*ParseRfc3339Micros("2026-12-02T10:15:30.123Z"), 1'796'206'530'123'000);
  EXPECT_EQ(*ParseRfc3339Micros("2026-12-02T11:15:30.123+01:00"), 1'796'206'530'123'000);
  EXPECT_EQ(*ParseRfc3339Micros("2026-12-02t05:45:30.123-04:30"), 1'796'206'530'123'000);
  EXPECT_EQ(*ParseRfc3339Micros("2024-02-29T00:00:00.123456789z"),
            *ParseRfc3339Micros("2024-02-29T00:00:00.123456Z"));
  EXPECT_EQ(*ParseRfc3339Micros("1969-12-31T23:59:59.5Z"), -500'000);
}

TEST(Rfc3339Test, RefusesMalformedTimestamps) {
  for (const char* bad :
       {"", "2026-12-02", "2026-12-02 10:15:30Z", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
        "2026-12-02T24:00:00Z", "2026-12-02T10:60:00Z", "2026-12-31T23:59:60Z",
        "2026-12-02T10:15:30", "2026-12-02T10:15:30.Z", "2026-12-02T10:15:30.1234567891Z",
        "2026-12-02T10:15:30+1:00", "2026-12-02T10:15:30Zjunk", "0000-01-01T00:00:00Z"}) {
    EXPECT_FALSE(ParseRfc3339Micros(bad).ok()) << bad;
  }
}

// An offset that carries the instant into UTC year 0 or 10000 is refused: the four-digit form
// could not hold it, so a stored copy would not read back (a case opened for such a
// transaction once kept the engine from starting again).
TEST(Rfc3339Test, RefusesAnInstantOutsideTheFourDigitYearsInUtc) {
  for (const char* bad : {"0001-01-01T00:00:00+00:01", "0001-01-01T00:59:59.999999+01:00",
                          "9999-12-31T23:59:00-00:01", "9999-12-31T20:00:00-04:00"}) {
    const Result<int64_t> parsed = ParseRfc3339Micros(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().message().find("0001 to 9999"), std::string::npos) << bad;
  }
  // The edges themselves, by any offset, are kept, and read back from their UTC form.
  for (const char* edge : {"0001-01-01T00:00:00Z", "0001-01-01T01:00:00+01:00",
                           "9999-12-31T23:59:59.999999Z", "9999-12-31T19:59:59.999999-04:00"}) {
    const Result<int64_t> parsed = ParseRfc3339Micros(edge);
    ASSERT_TRUE(parsed.ok()) << edge;
    EXPECT_EQ(*ParseRfc3339Micros(FormatRfc3339Micros(*parsed)), *parsed) << edge;
  }
}

TEST(Rfc3339Test, FormatsRoundTrip) {
  EXPECT_EQ(FormatRfc3339Micros(1'796'206'530'123'000), "2026-12-02T10:15:30.123000Z");
  EXPECT_EQ(FormatRfc3339Micros(-500'000), "1969-12-31T23:59:59.500000Z");
  for (int64_t t : {int64_t{0}, int64_t{951'782'400'000'000}, int64_t{253'402'300'799'999'999}}) {
    EXPECT_EQ(*ParseRfc3339Micros(FormatRfc3339Micros(t)), t);
  }
}

// Digits are placed by hand for years 0000-9999; each field's edges, and the years outside,
// which keep printf's form.
TEST(Rfc3339Test, FormatsEveryFieldAtItsEdges) {
  EXPECT_EQ(FormatRfc3339Micros(0), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatRfc3339Micros(1), "1970-01-01T00:00:00.000001Z");
  EXPECT_EQ(FormatRfc3339Micros(946'684'799'999'999), "1999-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatRfc3339Micros(951'782'400'000'000), "2000-02-29T00:00:00.000000Z");
  EXPECT_EQ(FormatRfc3339Micros(253'402'300'799'999'999), "9999-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatRfc3339Micros(-62'167'219'200'000'000), "0000-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatRfc3339Micros(253'402'300'800'000'000), "10000-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatRfc3339Micros(-62'167'219'200'000'001), "-001-12-31T23:59:59.999999Z");
}

}  // namespace
}  // namespace verdict
