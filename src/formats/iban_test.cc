#include "formats/iban.h"

#include <gtest/gtest.h>

#include "core/bic.h"

namespace verdict {
namespace {

TEST(IbanTest, AcceptsValidIbans) {
  for (const char* iban : {"DE89370400440532013000", "GB82WEST12345698765432",
                           "FR1420041010050500013M02606", "NL91ABNA0417164300", "BE68539007547034",
                           "CH9300762011623852957", "NO9386011117947", "DE44500105175407324931"}) {
    EXPECT_TRUE(ValidateIban(iban).ok()) << iban << ": " << ValidateIban(iban).message();
  }
}

TEST(IbanTest, RefusesWithAReason) {
  struct Case {
    const char* iban;
    const char* words;
  };
  const Case cases[] = {
      {"DE89370400440532013001", "check digits"},
      {"DE88370400440532013000", "check digits"},
      {"DE8937040044053201300", "has 21 characters; DE IBANs have 22"},
      {"US89370400440532013000", "US is not a country that issues IBANs"},
      {"de89370400440532013000", "country code"},
      {"DE8937040044053201300!", "only A-Z and 0-9"},
      {"DE", "country code"},
      {"", "country code"},
  };
  for (const Case& c : cases) {
    Status s = ValidateIban(c.iban);
    ASSERT_FALSE(s.ok()) << c.iban;
    EXPECT_NE(s.message().find(c.words), std::string::npos) << s.message();
  }
  EXPECT_EQ(IbanLength("DE"), 22);
  EXPECT_EQ(IbanLength("MT"), 31);
  EXPECT_EQ(IbanLength("US"), 0);
}

TEST(BicTest, ValidatesFormatAndCountry) {
  for (const char* bic : {"DEUTDEFF", "DEUTDEFF500", "NWBKGB2L", "CHASUS33XXX", "1234DEFF"}) {
    EXPECT_TRUE(ValidateBic(bic).ok()) << bic;
  }
  EXPECT_NE(ValidateBic("DEUTDEF").message().find("8 or 11"), std::string::npos);
  EXPECT_NE(ValidateBic("DEUTQQFF").message().find("QQ is not"), std::string::npos);
  EXPECT_NE(ValidateBic("deutdeff").message().find("A-Z"), std::string::npos);
  EXPECT_FALSE(ValidateBic("DEUTDEFF50").ok());
}

}  // namespace
}  // namespace verdict
