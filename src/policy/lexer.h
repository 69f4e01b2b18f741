// Lexer for the policy language: turns policy text into tokens with line:column positions.
// Pure function of its input; thread-safe. Grammar in docs/policy.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/diagnostic.h"

namespace verdict {

enum class TokenKind {
  kEnd,
  kIdent,     // names, keywords, currency codes
  kNumber,    // 10000, 0.75 (text kept for exact money parsing)
  kDuration,  // 24h, 90d, 15m, 30s (value in seconds)
  kString,    // "..." with \" \\ \n escapes (value unescaped)
  kAt,        // @
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kLBracket,
  kRBracket,
  kComma,
  kDot,
  kAssign,  // =
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kLt,
  kLe,
  kGt,
  kGe,
  kEq,  // ==
  kNe,  // !=
};

// "identifier", "'('", ... for messages.
std::string_view TokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;   // identifier, number text, or unescaped string
  double number = 0;  // kNumber and kDuration (seconds)
  SourcePos pos;
};

// Tokenizes `text`; the last token is kEnd. On the first lexical error, appends it to
// `errors` and returns the tokens so far followed by kEnd.
std::vector<Token> Lex(std::string_view text, std::string_view file,
                       std::vector<Diagnostic>& errors);

// Policy texts larger than this are refused (bounded work for untrusted input).
inline constexpr size_t kMaxPolicyBytes = 1 << 20;

}  // namespace verdict
