#include "policy/parser.h"

#include <utility>

#include "core/money.h"

namespace verdict {
namespace {

bool IsReserved(std::string_view word) {
  static constexpr std::string_view kReserved[] = {"and",   "or",  "not",   "in",   "true",
                                                   "false", "txn", "model", "when", "then"};
  for (std::string_view r : kReserved) {
    if (word == r) return true;
  }
  return false;
}

bool LooksLikeCurrencyCode(std::string_view s) {
  if (s.size() != 3) return false;
  for (char c : s) {
    if (c < 'A' || c > 'Z') return false;
  }
  return true;
}

// Parses a non-negative decimal with at most 9 fraction digits into units of 1e-9.
bool ParseScaledE9(std::string_view text, int64_t& out) {
  int64_t whole = 0;
  int64_t frac = 0;
  int frac_digits = 0;
  bool in_frac = false;
  for (char c : text) {
    if (c == '.') {
      in_frac = true;
      continue;
    }
    if (in_frac) {
      if (++frac_digits > 9) return false;
      frac = frac * 10 + (c - '0');
    } else {
      whole = whole * 10 + (c - '0');
      if (whole > 1'000'000) return false;
    }
  }
  while (frac_digits++ < 9) frac *= 10;
  out = whole * 1'000'000'000 + frac;
  return true;
}

// Recursive descent without exceptions: every step returns false (or nullptr) after it has
// recorded a syntax error, and callers return at once; Guard then skips to the next
// declaration.
class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string_view file, std::vector<Diagnostic>& errors)
      : tokens_(std::move(tokens)), file_(file), errors_(errors) {}

  PolicyAst Run() {
    PolicyAst ast;
    if (IsWord("policy")) {
      Guard([&] {
        Take();
        const Token* name = Expect(TokenKind::kString, "the policy name as a string");
        if (name == nullptr) return false;
        ast.name = name->text;
        if (!ExpectWord("version")) return false;
        const Token* version = Expect(TokenKind::kString, "the version as a string");
        if (version == nullptr) return false;
        ast.version = version->text;
        return true;
      });
    }
    while (Cur().kind != TokenKind::kEnd) {
      Guard([&] { return Declaration(ast); });
    }
    return ast;
  }

 private:
  // Runs one declaration; after a syntax error skips to the next declaration keyword.
  template <typename F>
  void Guard(F&& body) {
    if (body()) return;
    depth_ = 0;
    if (pos_ < tokens_.size() - 1) ++pos_;
    while (Cur().kind != TokenKind::kEnd && !AtDeclarationStart()) ++pos_;
  }

  bool AtDeclarationStart() const {
    return IsWord("list") || IsWord("const") || IsWord("rate") || IsWord("rule") ||
           IsWord("typology");
  }

  const Token& Cur() const { return tokens_[pos_]; }
  const Token& Ahead(size_t n) const { return tokens_[std::min(pos_ + n, tokens_.size() - 1)]; }
  bool IsWord(std::string_view word) const {
    return Cur().kind == TokenKind::kIdent && Cur().text == word;
  }
  const Token& Take() {
    const Token& t = tokens_[pos_];
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }

  // Record an error; return false so that callers can `return Fail(...)`.
  bool Fail(const SourcePos& pos, std::string message) {
    errors_.push_back({std::string(file_), pos, std::move(message)});
    return false;
  }
  bool FailExpected(std::string_view what) {
    std::string found = Cur().kind == TokenKind::kIdent || Cur().kind == TokenKind::kNumber
                            ? "'" + Cur().text + "'"
                            : std::string(TokenKindName(Cur().kind));
    return Fail(Cur().pos, "expected " + std::string(what) + ", found " + found);
  }
  const Token* Expect(TokenKind kind, std::string_view what) {
    if (Cur().kind != kind) {
      FailExpected(what);
      return nullptr;
    }
    return &Take();
  }
  bool ExpectWord(std::string_view word) {
    if (!IsWord(word)) return FailExpected("'" + std::string(word) + "'");
    Take();
    return true;
  }
  bool ExpectName(std::string_view what, std::string& out) {
    if (Cur().kind != TokenKind::kIdent || IsReserved(Cur().text)) return FailExpected(what);
    out = Take().text;
    return true;
  }
  bool ExpectNumber(std::string_view what, double& out) {
    bool negative = false;
    if (Cur().kind == TokenKind::kMinus) {
      Take();
      negative = true;
    }
    const Token* t = Expect(TokenKind::kNumber, what);
    if (t == nullptr) return false;
    out = negative ? -t->number : t->number;
    return true;
  }
  bool ExpectText(std::string_view what, std::string& out) {
    const Token* t = Expect(TokenKind::kString, what);
    if (t == nullptr) return false;
    out = t->text;
    return true;
  }

  bool Declaration(PolicyAst& ast) {
    if (IsWord("list")) return List(ast);
    if (IsWord("const")) return Const(ast);
    if (IsWord("rate")) return Rate(ast);
    if (IsWord("rule")) return Rule(ast);
    if (IsWord("typology")) return Typology(ast);
    return FailExpected("a declaration: list, const, rate, rule or typology");
  }

  bool List(PolicyAst& ast) {
    Take();
    ListDecl list;
    list.pos = Cur().pos;
    if (!ExpectName("a list name", list.name)) return false;
    if (Expect(TokenKind::kAssign, "'='") == nullptr) return false;
    static constexpr std::pair<std::string_view, ListKind> kKinds[] = {
        {"strings", ListKind::kStrings},
        {"countries", ListKind::kCountries},
        {"accounts", ListKind::kAccounts},
        {"names", ListKind::kNames},
        {"patterns", ListKind::kPatterns}};
    bool found = false;
    for (const auto& [word, kind] : kKinds) {
      if (IsWord(word)) {
        list.kind = kind;
        found = true;
      }
    }
    if (!found) return FailExpected("a list kind: strings, countries, accounts, names or patterns");
    Take();
    if (IsWord("from")) {
      Take();
      if (Cur().kind == TokenKind::kIdent) {
        std::optional<ListFormat> format = ListFormatFromName(Cur().text);
        if (!format || list.kind != ListKind::kNames) {
          return FailExpected(list.kind == ListKind::kNames
                                  ? "a file name as a string, or a published format: "
                                    "opensanctions, ofac_sdn or un_consolidated"
                                  : "a file name as a string");
        }
        list.format = *format;
        Take();
      }
      list.file_pos = Cur().pos;
      std::string file;
      if (!ExpectText("a file name as a string", file)) return false;
      list.file = std::move(file);
      if (ListFormatFileCount(list.format) == 2) {
        list.second_file_pos = Cur().pos;
        if (!ExpectText("the alternate names file (alt.csv) as a string", file)) return false;
        list.second_file = std::move(file);
      }
    } else {
      if (Expect(TokenKind::kLBracket, "'[' or 'from'") == nullptr) return false;
      while (Cur().kind != TokenKind::kRBracket) {
        SourcePos pos = Cur().pos;
        std::string value;
        if (!ExpectText("a string entry or ']'", value)) return false;
        list.entries.push_back({std::move(value), pos});
        if (Cur().kind != TokenKind::kComma) break;
        Take();
      }
      if (Expect(TokenKind::kRBracket, "',' or ']'") == nullptr) return false;
    }
    ast.lists.push_back(std::move(list));
    return true;
  }

  bool Const(PolicyAst& ast) {
    Take();
    ConstDecl c;
    c.pos = Cur().pos;
    if (!ExpectName("a constant name", c.name)) return false;
    if (Expect(TokenKind::kAssign, "'='") == nullptr) return false;
    c.value = Expression();
    if (!c.value) return false;
    ast.constants.push_back(std::move(c));
    return true;
  }

  bool Rate(PolicyAst& ast) {
    RateDecl rate;
    rate.pos = Take().pos;
    const Token* one = Expect(TokenKind::kNumber, "'1' (rate 1 EUR = 1.08 USD)");
    if (one == nullptr) return false;
    if (one->text != "1") {
      return Fail(one->pos, "expected '1' (rates are written rate 1 EUR = 1.08 USD)");
    }
    if (!Currency(rate.from)) return false;
    if (Expect(TokenKind::kAssign, "'='") == nullptr) return false;
    const Token* value = Expect(TokenKind::kNumber, "the rate as a decimal number");
    if (value == nullptr) return false;
    if (!ParseScaledE9(value->text, rate.rate_e9) || rate.rate_e9 <= 0) {
      return Fail(value->pos,
                  "expected a positive rate of at most 1000000 with at most 9 decimals");
    }
    if (!Currency(rate.to)) return false;
    ast.rates.push_back(rate);
    return true;
  }

  bool Currency(const CurrencyInfo*& out) {
    const Token* code = Expect(TokenKind::kIdent, "a currency code such as USD");
    if (code == nullptr) return false;
    out = FindCurrency(code->text);
    if (out == nullptr) {
      return Fail(code->pos,
                  "unknown currency '" + code->text + "'; expected an ISO 4217 code such as USD");
    }
    return true;
  }

  bool Rule(PolicyAst& ast) {
    Take();
    RuleDecl rule;
    rule.pos = Cur().pos;
    if (!ExpectName("a rule id", rule.id)) return false;
    if (Expect(TokenKind::kLBrace, "'{'") == nullptr) return false;
    while (Cur().kind != TokenKind::kRBrace) {
      if (IsWord("description")) {
        Take();
        if (!ExpectText("a description string", rule.description)) return false;
      } else if (IsWord("when")) {
        Take();
        rule.condition = Expression();
        if (!rule.condition) return false;
      } else if (IsWord("then")) {
        Take();
        if (IsWord("allow")) {
          rule.outcome = Outcome::kAllow;
        } else if (IsWord("review")) {
          rule.outcome = Outcome::kReview;
        } else if (IsWord("block")) {
          rule.outcome = Outcome::kBlock;
        } else {
          return FailExpected("an outcome: allow, review or block");
        }
        Take();
        rule.has_outcome = true;
      } else if (IsWord("reason")) {
        Take();
        rule.reason_pos = Cur().pos;
        if (!ExpectText("a reason code string such as \"STRUCTURING\"", rule.reason)) return false;
      } else if (IsWord("weight")) {
        Take();
        if (!ExpectNumber("a weight number", rule.weight)) return false;
      } else {
        return FailExpected("a rule clause: description, when, then, reason, weight or '}'");
      }
    }
    Take();
    if (!rule.condition) return Fail(rule.pos, "rule '" + rule.id + "' has no 'when' condition");
    if (!rule.has_outcome) {
      return Fail(rule.pos,
                  "rule '" + rule.id + "' has no 'then' outcome (allow, review or block)");
    }
    if (rule.reason.empty()) return Fail(rule.pos, "rule '" + rule.id + "' has no 'reason' code");
    ast.rules.push_back(std::move(rule));
    return true;
  }

  bool Typology(PolicyAst& ast) {
    Take();
    TypologyDecl t;
    t.pos = Cur().pos;
    if (!ExpectName("a typology id", t.id)) return false;
    if (Expect(TokenKind::kLBrace, "'{'") == nullptr) return false;
    while (Cur().kind != TokenKind::kRBrace) {
      if (IsWord("description")) {
        Take();
        if (!ExpectText("a description string", t.description)) return false;
      } else if (IsWord("rule")) {
        Take();
        TypologyMember m;
        m.pos = Cur().pos;
        if (!ExpectName("a rule id", m.rule)) return false;
        if (IsWord("weight")) {
          Take();
          double w = 0;
          if (!ExpectNumber("a weight number", w)) return false;
          m.weight = w;
        }
        t.members.push_back(std::move(m));
      } else if (IsWord("alert") || IsWord("block")) {
        const bool alert = IsWord("alert");
        t.threshold_pos = Take().pos;
        double v = 0;
        if (!ExpectNumber(alert ? "the alert threshold number" : "the block threshold number", v)) {
          return false;
        }
        (alert ? t.alert : t.block) = v;
      } else if (IsWord("reason")) {
        Take();
        t.reason_pos = Cur().pos;
        if (!ExpectText("a reason code string", t.reason)) return false;
      } else {
        return FailExpected("a typology clause: description, rule, alert, block, reason or '}'");
      }
    }
    Take();
    if (t.members.empty()) return Fail(t.pos, "typology '" + t.id + "' lists no rules");
    if (!t.alert) return Fail(t.pos, "typology '" + t.id + "' has no 'alert' threshold");
    if (t.reason.empty()) return Fail(t.pos, "typology '" + t.id + "' has no 'reason' code");
    ast.typologies.push_back(std::move(t));
    return true;
  }

  // ---- expressions: each returns nullptr after recording an error ----
  using ExprPtr = std::unique_ptr<Expr>;

  ExprPtr Make(ExprKind kind, SourcePos pos) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    return e;
  }
  ExprPtr FailExpr(const SourcePos& pos, std::string message) {
    Fail(pos, std::move(message));
    return nullptr;
  }
  ExprPtr FailExpectedExpr(std::string_view what) {
    FailExpected(what);
    return nullptr;
  }

  // Counts nesting; false (with the error recorded) when too deep.
  struct DepthGuard {
    Parser* p;
    bool ok;
    explicit DepthGuard(Parser* parser) : p(parser), ok(++parser->depth_ <= kMaxExprDepth) {
      if (!ok) {
        p->Fail(p->Cur().pos, "expression nests deeper than " + std::to_string(kMaxExprDepth));
      }
    }
    ~DepthGuard() { --p->depth_; }
  };

  ExprPtr Expression() { return Or(); }

  ExprPtr Binary(ExprKind kind, TokenKind op, std::string text, SourcePos pos, ExprPtr left,
                 ExprPtr right) {
    auto e = Make(kind, pos);
    e->op = op;
    e->text = std::move(text);
    e->args.push_back(std::move(left));
    e->args.push_back(std::move(right));
    return e;
  }

  ExprPtr Logical(std::string_view word, ExprPtr (Parser::*next)()) {
    ExprPtr left = (this->*next)();
    while (left && IsWord(word)) {
      const SourcePos pos = Take().pos;
      ExprPtr right = (this->*next)();
      if (!right) return nullptr;
      left = Binary(ExprKind::kBinary, TokenKind::kIdent, std::string(word), pos, std::move(left),
                    std::move(right));
    }
    return left;
  }
  ExprPtr Or() { return Logical("or", &Parser::And); }
  ExprPtr And() { return Logical("and", &Parser::Not); }

  ExprPtr Not() {
    DepthGuard guard(this);
    if (!guard.ok) return nullptr;
    if (IsWord("not")) {
      auto e = Make(ExprKind::kUnary, Take().pos);
      e->op = TokenKind::kIdent;
      e->text = "not";
      ExprPtr operand = Not();
      if (!operand) return nullptr;
      e->args.push_back(std::move(operand));
      return e;
    }
    return Comparison();
  }

  ExprPtr Comparison() {
    ExprPtr left = Additive();
    if (!left) return nullptr;
    TokenKind k = Cur().kind;
    if (k == TokenKind::kLt || k == TokenKind::kLe || k == TokenKind::kGt || k == TokenKind::kGe ||
        k == TokenKind::kEq || k == TokenKind::kNe) {
      const SourcePos pos = Take().pos;
      ExprPtr right = Additive();
      if (!right) return nullptr;
      return Binary(ExprKind::kBinary, k, "", pos, std::move(left), std::move(right));
    }
    bool negated = IsWord("not") && Ahead(1).kind == TokenKind::kIdent && Ahead(1).text == "in";
    if (IsWord("in") || negated) {
      auto e = Make(ExprKind::kIn, Take().pos);
      if (negated) Take();
      e->negated = negated;
      e->args.push_back(std::move(left));
      if (Cur().kind != TokenKind::kAt)
        return FailExpectedExpr("a list reference such as @high_risk");
      ExprPtr list = ListRef();
      if (!list) return nullptr;
      e->args.push_back(std::move(list));
      return e;
    }
    return left;
  }

  ExprPtr Arithmetic(TokenKind op1, TokenKind op2, ExprPtr (Parser::*next)()) {
    ExprPtr left = (this->*next)();
    while (left && (Cur().kind == op1 || Cur().kind == op2)) {
      const TokenKind k = Cur().kind;
      const SourcePos pos = Take().pos;
      ExprPtr right = (this->*next)();
      if (!right) return nullptr;
      left = Binary(ExprKind::kBinary, k, "", pos, std::move(left), std::move(right));
    }
    return left;
  }
  ExprPtr Additive() {
    return Arithmetic(TokenKind::kPlus, TokenKind::kMinus, &Parser::Multiplicative);
  }
  ExprPtr Multiplicative() {
    return Arithmetic(TokenKind::kStar, TokenKind::kSlash, &Parser::Unary);
  }

  ExprPtr Unary() {
    DepthGuard guard(this);
    if (!guard.ok) return nullptr;
    if (Cur().kind == TokenKind::kMinus) {
      auto e = Make(ExprKind::kUnary, Take().pos);
      e->op = TokenKind::kMinus;
      ExprPtr operand = Unary();
      if (!operand) return nullptr;
      e->args.push_back(std::move(operand));
      return e;
    }
    return Primary();
  }

  ExprPtr ListRef() {
    auto e = Make(ExprKind::kListRef, Take().pos);
    if (!ExpectName("a list name after '@'", e->text)) return nullptr;
    return e;
  }

  ExprPtr Primary() {
    const Token& t = Cur();
    switch (t.kind) {
      case TokenKind::kNumber: {
        Take();
        if (Cur().kind == TokenKind::kIdent && LooksLikeCurrencyCode(Cur().text)) {
          auto e = Make(ExprKind::kMoney, t.pos);
          e->text = t.text + " " + Cur().text;
          const CurrencyInfo* currency = FindCurrency(Cur().text);
          if (currency == nullptr) {
            return FailExpr(Cur().pos, "unknown currency '" + Cur().text +
                                           "'; expected an ISO 4217 code such as USD");
          }
          auto money = Money::Parse(t.text, *currency);
          if (!money.ok()) {
            return FailExpr(t.pos, "invalid amount '" + e->text + "': " + money.status().message());
          }
          Take();
          e->minor_units = money->minor_units();
          e->currency = currency;
          return e;
        }
        auto e = Make(ExprKind::kNumber, t.pos);
        e->number = t.number;
        e->text = t.text;
        return e;
      }
      case TokenKind::kDuration: {
        auto e = Make(ExprKind::kNumber, t.pos);
        e->number = t.number;
        e->text = t.text;
        Take();
        return e;
      }
      case TokenKind::kString: {
        auto e = Make(ExprKind::kString, t.pos);
        e->text = t.text;
        Take();
        return e;
      }
      case TokenKind::kAt:
        return ListRef();
      case TokenKind::kLParen: {
        Take();
        ExprPtr e = Expression();
        if (!e) return nullptr;
        if (Expect(TokenKind::kRParen, "')'") == nullptr) return nullptr;
        return e;
      }
      case TokenKind::kIdent:
        return NameOrCall();
      default:
        return FailExpectedExpr("an expression (number, money, string, name, call or '(')");
    }
  }

  ExprPtr NameOrCall() {
    const Token& t = Cur();
    if (t.text == "true" || t.text == "false") {
      auto e = Make(ExprKind::kBool, t.pos);
      e->boolean = t.text == "true";
      Take();
      return e;
    }
    if (t.text == "txn" || t.text == "model") {
      auto e = Make(ExprKind::kPath, t.pos);
      e->text = Take().text;
      if (Cur().kind != TokenKind::kDot) {
        return FailExpectedExpr("'.' and a field name after '" + e->text + "'");
      }
      while (Cur().kind == TokenKind::kDot) {
        Take();
        const Token* field = Expect(TokenKind::kIdent, "a field name");
        if (field == nullptr) return nullptr;
        e->text += "." + field->text;
      }
      return e;
    }
    if (IsReserved(t.text)) {
      return FailExpectedExpr("an expression (number, money, string, name, call or '(')");
    }
    const SourcePos pos = t.pos;
    std::string name = Take().text;
    if (Cur().kind == TokenKind::kLParen) {
      auto e = Make(ExprKind::kCall, pos);
      e->text = std::move(name);
      Take();
      while (Cur().kind != TokenKind::kRParen) {
        ExprPtr arg = Expression();
        if (!arg) return nullptr;
        e->args.push_back(std::move(arg));
        if (Cur().kind != TokenKind::kComma) break;
        Take();
      }
      if (Expect(TokenKind::kRParen, "',' or ')'") == nullptr) return nullptr;
      return e;
    }
    auto e = Make(ExprKind::kName, pos);
    e->text = std::move(name);
    return e;
  }

  std::vector<Token> tokens_;
  std::string_view file_;
  std::vector<Diagnostic>& errors_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::string_view ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kUnknown:
      return "unknown";
    case ValueType::kNumber:
      return "number";
    case ValueType::kMoney:
      return "money";
    case ValueType::kString:
      return "string";
    case ValueType::kBool:
      return "boolean";
    case ValueType::kList:
      return "list";
  }
  return "?";
}

std::string_view ListKindName(ListKind kind) {
  switch (kind) {
    case ListKind::kStrings:
      return "strings";
    case ListKind::kCountries:
      return "countries";
    case ListKind::kAccounts:
      return "accounts";
    case ListKind::kNames:
      return "names";
    case ListKind::kPatterns:
      return "patterns";
  }
  return "?";
}

PolicyAst ParsePolicy(std::string_view text, std::string_view file,
                      std::vector<Diagnostic>& errors) {
  size_t before = errors.size();
  std::vector<Token> tokens = Lex(text, file, errors);
  if (errors.size() != before) return PolicyAst();
  return Parser(std::move(tokens), file, errors).Run();
}

}  // namespace verdict
