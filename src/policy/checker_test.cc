#include "policy/checker.h"

#include <gtest/gtest.h>

#include "policy/policy_test_util.h"

namespace verdict {
namespace {

using testing::ErrorsOf;

struct Case {
  std::string text;
  int line, column;
  std::string message;
};

std::string Rule(const std::string& condition) {
  return "rule r {\n  when " + condition + "\n  then review\n  reason \"R\"\n}\n";
}

// Each error kind the checker reports, with where it points (line:column) and what it says.
TEST(CheckerTest, EveryErrorKindHasPositionAndExpectation) {
  const std::string lists =
      "list hr = countries [\"IR\"]\nlist s = names [\"Ivan Petrov\"]\n"
      "list p = patterns [\"btc\"]\n";
  const Case cases[] = {
      {Rule("amout > 1"), 2, 8, "unknown name 'amout'; expected a feature of schema (amount,"},
      {Rule("amout > 1"), 2, 8, "(did you mean 'amount'?)"},
      {Rule("txn.sender.nation == \"x\""), 2, 8, "unknown field 'txn.sender.nation'; expected"},
      {Rule("model.confidence > 1"), 2, 8, "unknown field 'model.confidence'"},
      {Rule("txn.sender.country in @nope"), 2, 30, "unknown list @nope"},
      {lists + Rule("txn.sender.country in @s"), 5, 30,
       "list @s holds names; expected a strings, countries or accounts list for 'in'"},
      {lists + Rule("watchlist_match(txn.sender.name, @p) > 0.9"), 5, 41,
       "list @p holds patterns; expected a names list for watchlist_match()"},
      {lists + Rule("watchlist_match(\"Ivan\", @s) > 0.9"), 5, 24,
       "expected a transaction text field such as txn.receiver.name"},
      {lists + Rule("text_match(txn.remittance, @p, 1)"), 5, 8,
       "text_match() takes 2 arguments, found 3"},
      {Rule("abs() > 1"), 2, 8, "abs() takes 1 argument, found 0"},
      {Rule("max(1) > 1"), 2, 8, "max() takes at least 2 arguments, found 1"},
      {Rule("sqrt(amount) > 1"), 2, 8, "unknown function 'sqrt'; expected abs, min, max"},
      {Rule("txn.amount > 1000"), 2, 21,
       "expected money on the right of '>', found number (write amounts with a currency"},
      {Rule("amount + txn.channel > 1"), 2, 17, "expected number after '+', found string"},
      {Rule("txn.channel < \"wire\""), 2, 20, "strings can only be compared with '==' or '!='"},
      {Rule("(amount > 1) == true"), 2, 21, "booleans cannot be compared with '=='"},
      {Rule("amount and true"), 2, 8, "expected boolean before 'and', found number"},
      {Rule("not amount"), 2, 12, "expected boolean after 'not', found number"},
      {Rule("-txn.channel == \"x\""), 2, 9, "expected number after unary '-', found string"},
      {Rule("amount * 2"), 2, 8,
       "condition of rule 'r' is a number; expected a boolean (a comparison, 'in', or"},
      {lists + Rule("@hr"), 5, 8, "list @hr used as a value"},
      {"const a = b + 1\nconst b = 2\n", 1, 11,
       "constant 'b' is used before its definition at 2:7"},
      {"const c = amount * 2\n", 1, 11,
       "constants cannot depend on the transaction; found feature 'amount'"},
      {"const amount = 2\n", 1, 7, "constant 'amount' has the name of a feature"},
      {"const c = 1\nconst c = 2\n", 2, 7, "duplicate constant 'c'"},
      {Rule("amount > 1") + Rule("amount > 2"), 6, 6,
       "duplicate rule or typology 'r'; first defined at 1:6"},
      {"list a = strings [\"x\"]\nlist a = strings [\"y\"]\n", 2, 6, "duplicate list 'a'"},
      {"list c = countries [\"US\", \"ZZ\"]\n", 1, 27,
       "invalid country code 'ZZ'; expected an ISO 3166-1 alpha-2 code"},
      {"rate 1 EUR = 1.1 EUR\n", 1, 1, "rate converts EUR to itself"},
      {"rate 1 EUR = 1.1 USD\nrate 1 USD = 0.9 EUR\n", 2, 1, "duplicate rate between USD and EUR"},
      {"rule r { when amount > 1 then review reason \"bad code\" }\n", 1, 45,
       "reason code 'bad code' is not upper-case"},
      {Rule("amount > 1") + "typology t { rule q alert 1 reason \"T\" }\n", 6, 19,
       "typology 't' refers to unknown rule 'q'; expected the id of a rule"},
      {Rule("amount > 1") + "typology t { rule r rule r alert 1 reason \"T\" }\n", 6, 26,
       "rule 'r' is listed twice in typology 't'"},
      {Rule("amount > 1") + "typology t { rule r alert 2 block 1 reason \"T\" }\n", 6, 29,
       "below the alert threshold; expected block >= alert"},
      {Rule("amount > 1") + "typology t { rule r alert 0 reason \"T\" }\n", 6, 21,
       "alert threshold must be positive"},
      {"rule r { when amount > 1 then review reason \"R\" weight -1 }\n", 1, 6,
       "rule weight must be a non-negative number"},
      {"list s = names from \"missing.csv\"\n", 1, 21, "list file 'missing.csv' is missing"},
      {"policy \"p\" version \"2\"\n", 1, 1, "bundle version 't1' differs from the policy's"},
  };
  for (const Case& c : cases) {
    auto errors = ErrorsOf(c.text);
    bool found = false;
    std::string all;
    for (const Diagnostic& d : errors) {
      all += d.ToString() + "\n";
      if (d.pos.line == c.line && d.pos.column == c.column &&
          d.message.find(c.message) != std::string::npos) {
        found = true;
      }
    }
    EXPECT_TRUE(found) << "policy:\n"
                       << c.text << "\nwanted " << c.line << ":" << c.column << ": " << c.message
                       << "\ngot:\n"
                       << all;
  }
}

TEST(CheckerTest, ListFileErrorsNameTheFileAndLine) {
  auto errors = ErrorsOf(
      "list s = names from \"s.csv\"\nlist c = countries from \"c.txt\"\n"
      "list p = patterns from \"p.txt\"\n",
      {{"s.csv", "id,name\nA1,Ivan\n,Nobody\n"},
       {"c.txt", "US\n# comment\nQQ\n"},
       {"p.txt", "ok\n(unclosed\n"}});
  ASSERT_EQ(errors.size(), 3u) << JoinDiagnostics(errors);
  EXPECT_EQ(errors[0].ToString(), "s.csv:3:1: empty id or name");
  EXPECT_EQ(errors[1].file, "c.txt");
  EXPECT_EQ(errors[1].pos.line, 3);
  EXPECT_NE(errors[1].message.find("invalid country code 'QQ'"), std::string::npos);
  EXPECT_EQ(errors[2].file, "p.txt");
  EXPECT_EQ(errors[2].pos.line, 2);
  EXPECT_NE(errors[2].message.find("pattern 2"), std::string::npos) << errors[2].message;
}

TEST(CheckerTest, CsvNeedsIdAndNameColumns) {
  auto errors = ErrorsOf("list s = names from \"s.csv\"\n", {{"s.csv", "key,label\n1,x\n"}});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].ToString(),
            "s.csv:1:1: header lacks the 'id' and 'name' columns; expected id,name[,...]");
}

TEST(CheckerTest, UnusedBundleFileIsRefused) {
  auto errors = ErrorsOf(Rule("amount > 1"), {{"extra.csv", "id,name\n"}});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, "extra.csv");
}

TEST(CheckerTest, ReportsAllErrorsInOnePass) {
  auto errors = ErrorsOf(Rule("foo > 1") + "rule q { when bar > 1 then block reason \"Q\" }\n");
  EXPECT_EQ(errors.size(), 2u) << JoinDiagnostics(errors);
}

TEST(CheckerTest, ReasonCodes) {
  EXPECT_TRUE(IsReasonCode("STRUCTURING_24H"));
  EXPECT_FALSE(IsReasonCode("structuring"));
  EXPECT_FALSE(IsReasonCode("1ABC"));
  EXPECT_FALSE(IsReasonCode(""));
}

}  // namespace
}  // namespace verdict
