#include "formats/amount.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(DatasetAmountTest, ParsesIntoMinorUnitsRoundingHalfUp) {
  const CurrencyInfo* usd = CurrencyByCodeOrName("US Dollar");
  ASSERT_NE(usd, nullptr);
  Result<Money> m = ParseDatasetAmount("12.345", *usd);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->minor_units(), 1235);
}

// 15 whole digits and 8 minor ones do not fit an int64 (signed overflow, undefined): XBT allows
// 10 whole digits, an ISO currency with 2 minor digits still 15.
TEST(DatasetAmountTest, AnAmountTooLargeForItsCurrencyIsRefused) {
  const CurrencyInfo* xbt = CurrencyByCodeOrName("Bitcoin");
  ASSERT_NE(xbt, nullptr);
  Result<Money> big = ParseDatasetAmount("100000000000", *xbt);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().field(), "amount");
  Result<Money> edge = ParseDatasetAmount("9999999999.99999999", *xbt);
  ASSERT_TRUE(edge.ok());
  EXPECT_EQ(edge->minor_units(), 999'999'999'999'999'999);
  const CurrencyInfo* usd = CurrencyByCodeOrName("USD");
  ASSERT_NE(usd, nullptr);
  EXPECT_TRUE(ParseDatasetAmount("999999999999999.99", *usd).ok());
  EXPECT_FALSE(ParseDatasetAmount("1000000000000000", *usd).ok());
}

}  // namespace
}  // namespace verdict
