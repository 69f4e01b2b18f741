#include "policy/lexer.h"

#include <charconv>
#include <cstdio>

namespace verdict {
namespace {

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

class Lexer {
 public:
  Lexer(std::string_view text, std::string_view file, std::vector<Diagnostic>& errors)
      : text_(text), file_(file), errors_(errors) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    if (text_.size() > kMaxPolicyBytes) {
      Fail("policy is larger than 1 MiB");
    }
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // UTF-8 byte-order mark
    while (!failed_) {
      SkipSpaceAndComments();
      Token token;
      token.pos = pos_;
      if (i_ >= text_.size()) break;
      if (!Next(token)) break;
      tokens.push_back(std::move(token));
    }
    Token end;
    end.pos = pos_;
    tokens.push_back(std::move(end));
    return tokens;
  }

 private:
  char Peek(size_t ahead = 0) const { return i_ + ahead < text_.size() ? text_[i_ + ahead] : '\0'; }
  void Advance() {
    if (text_[i_] == '\n') {
      ++pos_.line;
      pos_.column = 1;
    } else {
      ++pos_.column;
    }
    ++i_;
  }
  void Fail(std::string message) {
    errors_.push_back({std::string(file_), pos_, std::move(message)});
    failed_ = true;
  }

  void SkipSpaceAndComments() {
    while (i_ < text_.size()) {
      char c = Peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        Advance();
      } else if (c == '#') {
        while (i_ < text_.size() && Peek() != '\n') Advance();
      } else {
        break;
      }
    }
  }

  bool Next(Token& token) {
    char c = Peek();
    if (IsIdentStart(c)) {
      size_t start = i_;
      while (IsIdentChar(Peek())) Advance();
      token.kind = TokenKind::kIdent;
      token.text = std::string(text_.substr(start, i_ - start));
      return true;
    }
    if (IsDigit(c)) return Number(token);
    if (c == '"') return String(token);
    struct Punct {
      char first, second;
      TokenKind kind;
    };
    static constexpr Punct kPuncts[] = {
        {'<', '=', TokenKind::kLe},     {'>', '=', TokenKind::kGe},
        {'=', '=', TokenKind::kEq},     {'!', '=', TokenKind::kNe},
        {'<', 0, TokenKind::kLt},       {'>', 0, TokenKind::kGt},
        {'=', 0, TokenKind::kAssign},   {'@', 0, TokenKind::kAt},
        {'(', 0, TokenKind::kLParen},   {')', 0, TokenKind::kRParen},
        {'{', 0, TokenKind::kLBrace},   {'}', 0, TokenKind::kRBrace},
        {'[', 0, TokenKind::kLBracket}, {']', 0, TokenKind::kRBracket},
        {',', 0, TokenKind::kComma},    {'.', 0, TokenKind::kDot},
        {'+', 0, TokenKind::kPlus},     {'-', 0, TokenKind::kMinus},
        {'*', 0, TokenKind::kStar},     {'/', 0, TokenKind::kSlash},
    };
    for (const Punct& p : kPuncts) {
      if (c != p.first) continue;
      if (p.second != 0 && Peek(1) != p.second) continue;
      token.kind = p.kind;
      Advance();
      if (p.second != 0) Advance();
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "0x%02X", static_cast<unsigned char>(c));
      Fail(std::string("unexpected byte ") + buf + "; expected a name, number, string or operator");
    } else {
      Fail(std::string("unexpected character '") + c +
           "'; expected a name, number, string or operator");
    }
    return false;
  }

  bool Number(Token& token) {
    size_t start = i_;
    while (IsDigit(Peek())) Advance();
    if (Peek() == '.' && IsDigit(Peek(1))) {
      Advance();
      while (IsDigit(Peek())) Advance();
    }
    token.text = std::string(text_.substr(start, i_ - start));
    if (i_ - start > 30) {
      Fail("number '" + token.text.substr(0, 30) + "...' is too long");
      return false;
    }
    auto [ptr, ec] =
        std::from_chars(token.text.data(), token.text.data() + token.text.size(), token.number);
    if (ec != std::errc()) {
      Fail("number '" + token.text + "' is out of range");
      return false;
    }
    token.kind = TokenKind::kNumber;
    char unit = Peek();
    if ((unit == 's' || unit == 'm' || unit == 'h' || unit == 'd') && !IsIdentChar(Peek(1))) {
      static constexpr double kSecondsPer[] = {1, 60, 3600, 86400};
      int which = unit == 's' ? 0 : unit == 'm' ? 1 : unit == 'h' ? 2 : 3;
      token.kind = TokenKind::kDuration;
      token.number *= kSecondsPer[which];
      token.text += unit;
      Advance();
    } else if (IsIdentStart(unit)) {
      Fail("unexpected '" + std::string(1, unit) + "' after number '" + token.text +
           "'; expected a space (money is written '10000 USD') or a duration unit s, m, h, d");
      return false;
    }
    return true;
  }

  bool String(Token& token) {
    Advance();  // opening quote
    std::string value;
    while (true) {
      if (i_ >= text_.size() || Peek() == '\n') {
        Fail("unterminated string; expected a closing '\"' on the same line");
        return false;
      }
      char c = Peek();
      if (c == '"') {
        Advance();
        break;
      }
      if (c == '\\') {
        char e = Peek(1);
        if (e == '"' || e == '\\') {
          value += e;
        } else if (e == 'n') {
          value += '\n';
        } else {
          Advance();
          Fail("unknown escape '\\" + std::string(1, e) + "'; expected \\\", \\\\ or \\n");
          return false;
        }
        Advance();
        Advance();
        continue;
      }
      value += c;
      Advance();
    }
    token.kind = TokenKind::kString;
    token.text = std::move(value);
    return true;
  }

  std::string_view text_;
  std::string_view file_;
  std::vector<Diagnostic>& errors_;
  size_t i_ = 0;
  SourcePos pos_;
  bool failed_ = false;
};

}  // namespace

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEnd:
      return "end of file";
    case TokenKind::kIdent:
      return "a name";
    case TokenKind::kNumber:
      return "a number";
    case TokenKind::kDuration:
      return "a duration";
    case TokenKind::kString:
      return "a string";
    case TokenKind::kAt:
      return "'@'";
    case TokenKind::kLParen:
      return "'('";
    case TokenKind::kRParen:
      return "')'";
    case TokenKind::kLBrace:
      return "'{'";
    case TokenKind::kRBrace:
      return "'}'";
    case TokenKind::kLBracket:
      return "'['";
    case TokenKind::kRBracket:
      return "']'";
    case TokenKind::kComma:
      return "','";
    case TokenKind::kDot:
      return "'.'";
    case TokenKind::kAssign:
      return "'='";
    case TokenKind::kPlus:
      return "'+'";
    case TokenKind::kMinus:
      return "'-'";
    case TokenKind::kStar:
      return "'*'";
    case TokenKind::kSlash:
      return "'/'";
    case TokenKind::kLt:
      return "'<'";
    case TokenKind::kLe:
      return "'<='";
    case TokenKind::kGt:
      return "'>'";
    case TokenKind::kGe:
      return "'>='";
    case TokenKind::kEq:
      return "'=='";
    case TokenKind::kNe:
      return "'!='";
  }
  return "?";
}

std::vector<Token> Lex(std::string_view text, std::string_view file,
                       std::vector<Diagnostic>& errors) {
  return Lexer(text, file, errors).Run();
}

}  // namespace verdict
