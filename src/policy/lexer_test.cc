#include "policy/lexer.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

std::vector<Token> LexOk(std::string_view text) {
  std::vector<Diagnostic> errors;
  auto tokens = Lex(text, "t", errors);
  EXPECT_TRUE(errors.empty()) << JoinDiagnostics(errors);
  return tokens;
}

Diagnostic LexError(std::string_view text) {
  std::vector<Diagnostic> errors;
  Lex(text, "t", errors);
  EXPECT_EQ(errors.size(), 1u);
  return errors.empty() ? Diagnostic() : errors[0];
}

TEST(LexerTest, TokensCarryKindsValuesAndPositions) {
  auto t = LexOk("rule x {\n  when amount >= 10000 USD and d < 24h # comment\n}");
  ASSERT_EQ(t.size(), 14u);
  EXPECT_EQ(t[0].kind, TokenKind::kIdent);
  EXPECT_EQ(t[0].text, "rule");
  EXPECT_EQ(t[2].kind, TokenKind::kLBrace);
  EXPECT_EQ(t[3].text, "when");
  EXPECT_EQ(t[3].pos.line, 2);
  EXPECT_EQ(t[3].pos.column, 3);
  EXPECT_EQ(t[5].kind, TokenKind::kGe);
  EXPECT_EQ(t[6].kind, TokenKind::kNumber);
  EXPECT_EQ(t[6].number, 10000);
  EXPECT_EQ(t[7].text, "USD");
  EXPECT_EQ(t[10].kind, TokenKind::kLt);
  EXPECT_EQ(t[11].kind, TokenKind::kDuration);
  EXPECT_EQ(t[11].number, 24 * 3600);
  EXPECT_EQ(t[12].kind, TokenKind::kRBrace);
  EXPECT_EQ(t[12].pos.line, 3);
  EXPECT_EQ(t[13].kind, TokenKind::kEnd);
}

TEST(LexerTest, DurationsAndDecimals) {
  auto t = LexOk("90d 15m 30s 2h 0.75 1.5");
  EXPECT_EQ(t[0].number, 90 * 86400);
  EXPECT_EQ(t[1].number, 900);
  EXPECT_EQ(t[2].number, 30);
  EXPECT_EQ(t[3].number, 7200);
  EXPECT_EQ(t[4].kind, TokenKind::kNumber);
  EXPECT_DOUBLE_EQ(t[4].number, 0.75);
  EXPECT_EQ(t[5].text, "1.5");
}

TEST(LexerTest, StringsUnescape) {
  auto t = LexOk(R"("a \"b\" \\ c\n")");
  EXPECT_EQ(t[0].kind, TokenKind::kString);
  EXPECT_EQ(t[0].text, "a \"b\" \\ c\n");
}

TEST(LexerTest, OperatorsAreDistinguished) {
  auto t = LexOk("<= < >= > == != = @ ( ) [ ] , . + - * /");
  std::vector<TokenKind> want = {
      TokenKind::kLe,     TokenKind::kLt,     TokenKind::kGe,       TokenKind::kGt,
      TokenKind::kEq,     TokenKind::kNe,     TokenKind::kAssign,   TokenKind::kAt,
      TokenKind::kLParen, TokenKind::kRParen, TokenKind::kLBracket, TokenKind::kRBracket,
      TokenKind::kComma,  TokenKind::kDot,    TokenKind::kPlus,     TokenKind::kMinus,
      TokenKind::kStar,   TokenKind::kSlash,  TokenKind::kEnd};
  ASSERT_EQ(t.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t[i].kind, want[i]) << i;
}

TEST(LexerTest, UnexpectedCharacterHasPosition) {
  Diagnostic d = LexError("rule x {\n  when a ; b");
  EXPECT_EQ(d.pos.line, 2);
  EXPECT_EQ(d.pos.column, 10);
  EXPECT_NE(d.message.find("unexpected character ';'"), std::string::npos) << d.message;
}

TEST(LexerTest, NonAsciiByteOutsideStringsIsAnError) {
  Diagnostic d = LexError("x \xC3\xA9");
  EXPECT_EQ(d.pos.column, 3);
  EXPECT_NE(d.message.find("unexpected byte 0xC3"), std::string::npos) << d.message;
}

TEST(LexerTest, ByteOrderMarkIsIgnored) {
  auto t = LexOk("\xEF\xBB\xBFrule");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].text, "rule");
  EXPECT_EQ(t[0].pos.column, 1);
}

TEST(LexerTest, UnterminatedString) {
  Diagnostic d = LexError("description \"abc\nnext");
  EXPECT_EQ(d.pos.line, 1);
  EXPECT_NE(d.message.find("unterminated string"), std::string::npos);
}

TEST(LexerTest, BadEscape) {
  Diagnostic d = LexError(R"("a\q")");
  EXPECT_NE(d.message.find("unknown escape"), std::string::npos);
}

TEST(LexerTest, NumberGluedToLetters) {
  Diagnostic d = LexError("10000USD");
  EXPECT_EQ(d.pos.column, 6);
  EXPECT_NE(d.message.find("money is written '10000 USD'"), std::string::npos) << d.message;
}

TEST(LexerTest, OverlongNumber) {
  Diagnostic d = LexError(std::string(40, '9'));
  EXPECT_NE(d.message.find("too long"), std::string::npos);
}

}  // namespace
}  // namespace verdict
