#include "policy/parser.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

PolicyAst ParseOk(std::string_view text) {
  std::vector<Diagnostic> errors;
  PolicyAst ast = ParsePolicy(text, "t.policy", errors);
  EXPECT_TRUE(errors.empty()) << JoinDiagnostics(errors);
  return ast;
}

std::vector<Diagnostic> ParseErrors(std::string_view text) {
  std::vector<Diagnostic> errors;
  ParsePolicy(text, "t.policy", errors);
  return errors;
}

TEST(ParserTest, FullPolicy) {
  PolicyAst ast = ParseOk(R"(
policy "demo" version "7"
list hr = countries ["IR", "KP",]
list s = names from "s.csv"
const limit = 10000 USD
rate 1 EUR = 1.0850 USD
rule big {
  description "big"
  when txn.amount >= limit and not (amount < 5) or txn.sender.country in @hr
  then block
  reason "BIG"
  weight 0.5
}
typology t {
  rule big weight 2
  alert 1
  block 3
  reason "T"
})");
  EXPECT_EQ(ast.name, "demo");
  EXPECT_EQ(ast.version, "7");
  ASSERT_EQ(ast.lists.size(), 2u);
  EXPECT_EQ(ast.lists[0].kind, ListKind::kCountries);
  EXPECT_EQ(ast.lists[0].entries.size(), 2u);
  EXPECT_EQ(ast.lists[1].kind, ListKind::kNames);
  EXPECT_EQ(*ast.lists[1].file, "s.csv");
  ASSERT_EQ(ast.constants.size(), 1u);
  EXPECT_EQ(ast.constants[0].value->kind, ExprKind::kMoney);
  EXPECT_EQ(ast.constants[0].value->minor_units, 1000000);
  ASSERT_EQ(ast.rates.size(), 1u);
  EXPECT_EQ(ast.rates[0].rate_e9, 1'085'000'000);
  ASSERT_EQ(ast.rules.size(), 1u);
  const RuleDecl& r = ast.rules[0];
  EXPECT_EQ(r.outcome, Outcome::kBlock);
  EXPECT_EQ(r.reason, "BIG");
  EXPECT_DOUBLE_EQ(r.weight, 0.5);
  // or binds looser than and: (a and not b) or c
  ASSERT_EQ(r.condition->kind, ExprKind::kBinary);
  EXPECT_EQ(r.condition->text, "or");
  EXPECT_EQ(r.condition->args[0]->text, "and");
  EXPECT_EQ(r.condition->args[1]->kind, ExprKind::kIn);
  ASSERT_EQ(ast.typologies.size(), 1u);
  EXPECT_EQ(*ast.typologies[0].members[0].weight, 2);
  EXPECT_EQ(*ast.typologies[0].block, 3);
}

TEST(ParserTest, ArithmeticPrecedence) {
  PolicyAst ast = ParseOk("const c = 1 + 2 * 3 - -4 / 2");
  const Expr& e = *ast.constants[0].value;  // (1 + (2*3)) - ((-4)/2)
  EXPECT_EQ(e.op, TokenKind::kMinus);
  EXPECT_EQ(e.args[0]->op, TokenKind::kPlus);
  EXPECT_EQ(e.args[0]->args[1]->op, TokenKind::kStar);
  EXPECT_EQ(e.args[1]->op, TokenKind::kSlash);
  EXPECT_EQ(e.args[1]->args[0]->kind, ExprKind::kUnary);
}

TEST(ParserTest, NotInAndCalls) {
  PolicyAst ast = ParseOk(
      "rule r { when txn.channel not in @l and max(a, b, 3) > watchlist_match(txn.sender.name, "
      "@s) then review reason \"R\" }");
  const Expr& c = *ast.rules[0].condition;
  EXPECT_TRUE(c.args[0]->negated);
  EXPECT_EQ(c.args[1]->args[0]->kind, ExprKind::kCall);
  EXPECT_EQ(c.args[1]->args[0]->args.size(), 3u);
  EXPECT_EQ(c.args[1]->args[1]->args[1]->kind, ExprKind::kListRef);
}

TEST(ParserTest, MoneyLiteralRespectsCurrencyDigits) {
  auto errors = ParseErrors("const c = 10.5 JPY");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].pos.column, 11);
  EXPECT_NE(errors[0].message.find("invalid amount '10.5 JPY'"), std::string::npos)
      << errors[0].message;
  PolicyAst ast = ParseOk("const c = 1.005 KWD");
  EXPECT_EQ(ast.constants[0].value->minor_units, 1005);
}

TEST(ParserTest, UnknownCurrency) {
  auto errors = ParseErrors("const c = 10 XYZ");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].pos.column, 14);
  EXPECT_NE(errors[0].message.find("unknown currency 'XYZ'"), std::string::npos);
}

TEST(ParserTest, ExpectedTokenMessagesAndPositions) {
  struct Case {
    const char* text;
    int line, column;
    const char* message;
  };
  const Case cases[] = {
      {"rule { }", 1, 6, "expected a rule id, found '{'"},
      {"rule r {\n when a > then review }", 2, 11, "expected an expression"},
      {"rule r { when a > 1 then maybe reason \"R\" }", 1, 26,
       "expected an outcome: allow, review or block, found 'maybe'"},
      {"rule r { when a > 1 reason \"R\" }", 1, 6, "rule 'r' has no 'then' outcome"},
      {"rule r { then block reason \"R\" }", 1, 6, "rule 'r' has no 'when' condition"},
      {"rule r { when a > 1 then block }", 1, 6, "rule 'r' has no 'reason' code"},
      {"rule r { when a > 1 then block reason \"R\" colour red }", 1, 43, "expected a rule clause"},
      {"list l = colours [\"a\"]", 1, 10, "expected a list kind"},
      {"list l = strings [\"a\" \"b\"]", 1, 23, "expected ',' or ']'"},
      {"banana", 1, 1, "expected a declaration"},
      {"const and = 1", 1, 7, "expected a constant name, found 'and'"},
      {"rate 2 EUR = 1 USD", 1, 6, "expected '1'"},
      {"rate 1 EUR = 1.0000000001 USD", 1, 14, "at most 9 decimals"},
      {"typology t { alert 1 reason \"T\" }", 1, 10, "typology 't' lists no rules"},
      {"typology t { rule r reason \"T\" }", 1, 10, "typology 't' has no 'alert' threshold"},
      {"const c = txn", 1, 14, "expected '.' and a field name after 'txn'"},
      {"const c = f(1, 2", 1, 17, "expected ',' or ')'"},
      {"rule r { when a in b then block reason \"R\" }", 1, 20,
       "expected a list reference such as @high_risk"},
  };
  for (const Case& c : cases) {
    auto errors = ParseErrors(c.text);
    ASSERT_EQ(errors.size(), 1u) << c.text;
    EXPECT_EQ(errors[0].pos.line, c.line) << c.text;
    EXPECT_EQ(errors[0].pos.column, c.column) << c.text << " → " << errors[0].message;
    EXPECT_NE(errors[0].message.find(c.message), std::string::npos)
        << c.text << " → " << errors[0].message;
  }
}

TEST(ParserTest, RecoversAtNextDeclaration) {
  auto errors = ParseErrors(
      "rule a { when > 1 then block reason \"A\" }\n"
      "rule ok { when x > 1 then block reason \"OK\" }\n"
      "const = 3\n");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].pos.line, 1);
  EXPECT_EQ(errors[1].pos.line, 3);
}

TEST(ParserTest, DepthIsBounded) {
  std::string deep = "const c = " + std::string(200, '(') + "1" + std::string(200, ')');
  auto errors = ParseErrors(deep);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("nests deeper"), std::string::npos);
  std::string nots = "const c = ";
  for (int i = 0; i < 100; ++i) nots += "not ";
  nots += "true";
  errors = ParseErrors(nots);
  ASSERT_EQ(errors.size(), 1u);
}

}  // namespace
}  // namespace verdict
