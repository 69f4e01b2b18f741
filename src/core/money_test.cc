#include "core/money.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

const CurrencyInfo& Usd() { return *FindCurrency("USD"); }

TEST(MoneyTest, ParsesPlainDecimalsIntoMinorUnits) {
  EXPECT_EQ(Money::Parse("9950.00", Usd())->minor_units(), 995000);
  EXPECT_EQ(Money::Parse("9950.5", Usd())->minor_units(), 995050);
  EXPECT_EQ(Money::Parse("9950", Usd())->minor_units(), 995000);
  EXPECT_EQ(Money::Parse("0007.10", Usd())->minor_units(), 710);
  EXPECT_EQ(Money::Parse("0", Usd())->minor_units(), 0);
  EXPECT_EQ(Money::Parse("999999999999999.99", Usd())->minor_units(), 99999999999999999);
  EXPECT_EQ(Money::Parse("12", *FindCurrency("JPY"))->minor_units(), 12);
  EXPECT_EQ(Money::Parse("1.5", *FindCurrency("BHD"))->minor_units(), 1500);
}

TEST(MoneyTest, RefusesAnythingElse) {
  for (const char* bad : {"", "-5", "+5", "abc", "1e3", "1.", ".5", "1,000.00", " 1", "1 ", "1.2.3",
                          "10.001", "1000000000000000", "99999999999999999999"}) {
    EXPECT_FALSE(Money::Parse(bad, Usd()).ok()) << bad;
  }
  EXPECT_FALSE(Money::Parse("1.5", *FindCurrency("JPY")).ok());
}

TEST(MoneyTest, FormatsWithTheCurrencysDigits) {
  EXPECT_EQ(Money(995000, Usd()).ToString(), "9950.00 USD");
  EXPECT_EQ(Money(5, Usd()).ToDecimalString(), "0.05");
  EXPECT_EQ(Money(1234, *FindCurrency("KWD")).ToDecimalString(), "1.234");
  EXPECT_EQ(Money(1234, *FindCurrency("JPY")).ToDecimalString(), "1234");
  EXPECT_DOUBLE_EQ(Money(995050, Usd()).ToMajor(), 9950.5);
}

TEST(CurrencyTest, KnowsIsoCodes) {
  EXPECT_EQ(FindCurrency("EUR")->minor_digits, 2);
  EXPECT_EQ(FindCurrency("CLF")->minor_digits, 4);
  EXPECT_EQ(FindCurrency("XXXX"), nullptr);
  EXPECT_EQ(FindCurrency("usd"), nullptr);
  EXPECT_EQ(FindCurrency("XAU"), nullptr);
  EXPECT_TRUE(IsCountryCode("GB"));
  EXPECT_TRUE(IsCountryCode("XK"));
  EXPECT_FALSE(IsCountryCode("UK"));
  EXPECT_FALSE(IsCountryCode("gb"));
}

}  // namespace
}  // namespace verdict
