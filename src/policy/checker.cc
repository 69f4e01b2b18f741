#include "policy/checker.h"

#include <cmath>
#include <map>
#include <set>

#include "core/currency.h"
#include "policy/similarity.h"
#include "policy/txn_fields.h"

namespace verdict {
namespace {

bool IsComparison(TokenKind op) {
  return op == TokenKind::kLt || op == TokenKind::kLe || op == TokenKind::kGt ||
         op == TokenKind::kGe || op == TokenKind::kEq || op == TokenKind::kNe;
}

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

// Where an expression starts in the text (its leftmost operand).
SourcePos StartOf(const Expr& e) {
  if ((e.kind == ExprKind::kBinary || e.kind == ExprKind::kIn) && !e.args.empty()) {
    return StartOf(*e.args[0]);
  }
  return e.pos;
}

class Checker {
 public:
  Checker(PolicyAst& ast, std::string_view file, std::span<const std::string_view> features,
          std::vector<Diagnostic>& errors)
      : ast_(ast), file_(file), features_(features), errors_(errors) {}

  void Run() {
    for (size_t i = 0; i < features_.size(); ++i) feature_index_.emplace(features_[i], i);
    Lists();
    Rates();
    for (size_t i = 0; i < ast_.constants.size(); ++i) Constant(i);
    std::map<std::string, SourcePos> ids;
    for (RuleDecl& rule : ast_.rules) {
      Unique(ids, rule.id, rule.pos, "rule or typology");
      Rule(rule);
    }
    for (TypologyDecl& t : ast_.typologies) {
      Unique(ids, t.id, t.pos, "rule or typology");
      Typology(t);
    }
  }

 private:
  void Error(SourcePos pos, std::string message) {
    errors_.push_back({std::string(file_), pos, std::move(message)});
  }

  void Unique(std::map<std::string, SourcePos>& seen, const std::string& name, SourcePos pos,
              std::string_view what) {
    auto [it, inserted] = seen.emplace(name, pos);
    if (!inserted) {
      Error(pos, "duplicate " + std::string(what) + " " + Quote(name) + "; first defined at " +
                     std::to_string(it->second.line) + ":" + std::to_string(it->second.column));
    }
  }

  void Lists() {
    std::map<std::string, SourcePos> seen;
    for (size_t i = 0; i < ast_.lists.size(); ++i) {
      ListDecl& list = ast_.lists[i];
      Unique(seen, list.name, list.pos, "list");
      list_index_.emplace(list.name, i);
      if (list.kind == ListKind::kCountries) {
        for (const ListEntry& e : list.entries) {
          if (!IsCountryCode(e.value)) {
            Error(e.pos, "invalid country code " + Quote(e.value) +
                             "; expected an ISO 3166-1 alpha-2 code such as \"IR\"");
          }
        }
      }
    }
  }

  void Rates() {
    std::set<std::pair<const CurrencyInfo*, const CurrencyInfo*>> seen;
    for (const RateDecl& r : ast_.rates) {
      if (r.from == r.to) {
        Error(r.pos, "rate converts " + std::string(r.from->code) +
                         " to itself; expected two different currencies");
      } else if (!seen.insert({r.from, r.to}).second || seen.contains({r.to, r.from})) {
        Error(r.pos, "duplicate rate between " + std::string(r.from->code) + " and " +
                         std::string(r.to->code) + " (one rate serves both directions)");
      }
    }
  }

  void Constant(size_t index) {
    ConstDecl& c = ast_.constants[index];
    if (feature_index_.contains(c.name)) {
      Error(c.pos, "constant " + Quote(c.name) + " has the name of a feature; choose another name");
    }
    if (const_index_.contains(c.name)) {
      Error(c.pos, "duplicate constant " + Quote(c.name));
    }
    in_constant_ = true;
    Expression(*c.value);
    in_constant_ = false;
    const_index_.emplace(c.name, index);
  }

  void Rule(RuleDecl& rule) {
    if (!IsReasonCode(rule.reason)) {
      Error(rule.reason_pos, "reason code " + Quote(rule.reason) +
                                 " is not upper-case; expected letters, digits and '_', "
                                 "starting with a letter, e.g. \"STRUCTURING\"");
    }
    if (!std::isfinite(rule.weight) || rule.weight < 0) {
      Error(rule.pos, "rule weight must be a non-negative number");
    }
    ValueType t = Expression(*rule.condition);
    if (t != ValueType::kBool && t != ValueType::kUnknown) {
      Error(StartOf(*rule.condition),
            "condition of rule " + Quote(rule.id) + " is a " + std::string(ValueTypeName(t)) +
                "; expected a boolean (a comparison, 'in', or and/or/not)");
    }
  }

  void Typology(TypologyDecl& t) {
    if (!IsReasonCode(t.reason)) {
      Error(t.reason_pos, "reason code " + Quote(t.reason) +
                              " is not upper-case; expected letters, digits and '_'");
    }
    std::set<std::string> members;
    for (const TypologyMember& m : t.members) {
      bool found = false;
      for (const RuleDecl& r : ast_.rules) found = found || r.id == m.rule;
      if (!found) {
        Error(m.pos, "typology " + Quote(t.id) + " refers to unknown rule " + Quote(m.rule) +
                         "; expected the id of a rule in this policy");
      }
      if (!members.insert(m.rule).second) {
        Error(m.pos, "rule " + Quote(m.rule) + " is listed twice in typology " + Quote(t.id));
      }
      if (m.weight && (!std::isfinite(*m.weight) || *m.weight < 0)) {
        Error(m.pos, "typology weight must be a non-negative number");
      }
    }
    if (t.alert && !(*t.alert > 0)) {
      Error(t.threshold_pos, "alert threshold must be positive");
    }
    if (t.alert && t.block && !(*t.block >= *t.alert)) {
      Error(t.threshold_pos, "block threshold " + std::to_string(*t.block) +
                                 " is below the alert threshold; expected block >= alert");
    }
  }

  std::string Suggest(std::string_view name) const {
    double best = 0.85;
    std::string found;
    auto consider = [&](std::string_view candidate) {
      double s = JaroWinkler(name, candidate);
      if (s > best) {
        best = s;
        found = candidate;
      }
    };
    for (const auto& [n, i] : feature_index_) consider(n);
    for (const auto& [n, i] : const_index_) consider(n);
    for (const TxnFieldInfo& f : AllTxnFields()) consider(f.path);
    for (std::string_view p : {"model.score", "model.available"}) consider(p);
    return found.empty() ? "" : " (did you mean " + Quote(found) + "?)";
  }

  ValueType Set(Expr& e, ValueType t) {
    e.type = t;
    return t;
  }

  void NeedType(const Expr& e, ValueType got, ValueType want, std::string_view context) {
    if (got == ValueType::kUnknown || got == want) return;
    Error(StartOf(e), "expected " + std::string(ValueTypeName(want)) + " " + std::string(context) +
                          ", found " + std::string(ValueTypeName(got)) +
                          (got == ValueType::kNumber && want == ValueType::kMoney
                               ? " (write amounts with a currency, e.g. 10000 USD)"
                               : ""));
  }

  void NotInConstant(const Expr& e, std::string_view what) {
    if (in_constant_) {
      Error(e.pos, "constants cannot depend on the transaction; found " + std::string(what) +
                       "; expected literals and earlier constants");
    }
  }

  ValueType Expression(Expr& e) {
    switch (e.kind) {
      case ExprKind::kNumber:
        return Set(e, ValueType::kNumber);
      case ExprKind::kString:
        return Set(e, ValueType::kString);
      case ExprKind::kMoney:
        return Set(e, ValueType::kMoney);
      case ExprKind::kBool:
        return Set(e, ValueType::kBool);
      case ExprKind::kName:
        return Name(e);
      case ExprKind::kPath:
        return Path(e);
      case ExprKind::kListRef:
        Error(e.pos, "list @" + e.text +
                         " used as a value; expected it after 'in' or as the "
                         "second argument of watchlist_match/text_match");
        return Set(e, ValueType::kUnknown);
      case ExprKind::kUnary: {
        ValueType t = Expression(*e.args[0]);
        if (e.op == TokenKind::kMinus) {
          NeedType(*e.args[0], t, ValueType::kNumber, "after unary '-'");
          return Set(e, ValueType::kNumber);
        }
        NeedType(*e.args[0], t, ValueType::kBool, "after 'not'");
        return Set(e, ValueType::kBool);
      }
      case ExprKind::kBinary:
        return Binary(e);
      case ExprKind::kIn:
        return In(e);
      case ExprKind::kCall:
        return Call(e);
    }
    return Set(e, ValueType::kUnknown);
  }

  ValueType Name(Expr& e) {
    if (auto it = const_index_.find(e.text); it != const_index_.end()) {
      e.ref = RefKind::kConstant;
      e.index = static_cast<int>(it->second);
      return Set(e, ast_.constants[it->second].value->type);
    }
    if (auto it = feature_index_.find(e.text); it != feature_index_.end()) {
      NotInConstant(e, "feature " + Quote(e.text));
      e.ref = RefKind::kFeature;
      e.index = static_cast<int>(it->second);
      return Set(e, ValueType::kNumber);
    }
    for (const ConstDecl& c : ast_.constants) {
      if (c.name == e.text) {
        Error(e.pos, "constant " + Quote(e.text) + " is used before its definition at " +
                         std::to_string(c.pos.line) + ":" + std::to_string(c.pos.column) +
                         "; expected constants to be defined before use");
        return Set(e, ValueType::kUnknown);
      }
    }
    Error(e.pos, "unknown name " + Quote(e.text) + "; expected a feature of schema (" +
                     FeatureList() + ") or a constant defined above" + Suggest(e.text));
    return Set(e, ValueType::kUnknown);
  }

  // The first few feature names (the schema can be long), for messages.
  std::string FeatureList() const {
    constexpr size_t kShown = 6;
    std::string out;
    for (size_t i = 0; i < features_.size() && i < kShown; ++i) {
      if (!out.empty()) out += ", ";
      out += features_[i];
    }
    if (features_.size() > kShown) {
      out += ", ... " + std::to_string(features_.size()) + " features in all";
    }
    return out;
  }

  ValueType Path(Expr& e) {
    NotInConstant(e, Quote(e.text));
    if (e.text == "model.score") {
      e.ref = RefKind::kModelScore;
      return Set(e, ValueType::kNumber);
    }
    if (e.text == "model.available") {
      e.ref = RefKind::kModelAvailable;
      return Set(e, ValueType::kBool);
    }
    if (auto f = FindTxnField(e.text)) {
      e.ref = RefKind::kTxnField;
      e.index = static_cast<int>(f->field);
      return Set(e, f->type);
    }
    Error(e.pos, "unknown field " + Quote(e.text) + "; expected one of " + TxnFieldList() +
                     ", model.score, model.available" + Suggest(e.text));
    return Set(e, ValueType::kUnknown);
  }

  ValueType Binary(Expr& e) {
    ValueType l = Expression(*e.args[0]);
    ValueType r = Expression(*e.args[1]);
    if (e.op == TokenKind::kIdent) {  // and / or
      NeedType(*e.args[0], l, ValueType::kBool, "before '" + e.text + "'");
      NeedType(*e.args[1], r, ValueType::kBool, "after '" + e.text + "'");
      return Set(e, ValueType::kBool);
    }
    std::string op(TokenKindName(e.op));
    if (!IsComparison(e.op)) {
      NeedType(*e.args[0], l, ValueType::kNumber, "before " + op);
      NeedType(*e.args[1], r, ValueType::kNumber, "after " + op);
      return Set(e, ValueType::kNumber);
    }
    if (l == ValueType::kUnknown || r == ValueType::kUnknown) return Set(e, ValueType::kBool);
    if (l == ValueType::kString || r == ValueType::kString) {
      NeedType(*e.args[1], r, l, "on the right of " + op);
      if (l == r && e.op != TokenKind::kEq && e.op != TokenKind::kNe) {
        Error(e.pos, "strings can only be compared with '==' or '!='; found " + op);
      }
      return Set(e, ValueType::kBool);
    }
    if (l == ValueType::kBool || r == ValueType::kBool) {
      Error(e.pos, "booleans cannot be compared with " + op +
                       "; expected numbers, money or strings (use and/or/not)");
      return Set(e, ValueType::kBool);
    }
    NeedType(*e.args[1], r, l, "on the right of " + op);
    return Set(e, ValueType::kBool);
  }

  const ListDecl* ResolveList(Expr& ref) {
    if (ref.kind != ExprKind::kListRef) {
      Error(ref.pos, "expected a list reference such as @sanctions");
      return nullptr;
    }
    auto it = list_index_.find(ref.text);
    if (it == list_index_.end()) {
      std::string known;
      for (const ListDecl& l : ast_.lists) known += (known.empty() ? "" : ", ") + ("@" + l.name);
      Error(ref.pos, "unknown list @" + ref.text + "; expected one of the declared lists" +
                         (known.empty() ? std::string(" (none declared)") : " (" + known + ")"));
      return nullptr;
    }
    ref.ref = RefKind::kList;
    ref.index = static_cast<int>(it->second);
    ref.type = ValueType::kList;
    return &ast_.lists[it->second];
  }

  ValueType In(Expr& e) {
    NotInConstant(e, "'in'");
    ValueType l = Expression(*e.args[0]);
    NeedType(*e.args[0], l, ValueType::kString, "before 'in'");
    if (const ListDecl* list = ResolveList(*e.args[1])) {
      if (list->kind == ListKind::kNames || list->kind == ListKind::kPatterns) {
        Error(e.args[1]->pos, "list @" + list->name + " holds " +
                                  std::string(ListKindName(list->kind)) +
                                  "; expected a strings, countries or accounts list for 'in' "
                                  "(use watchlist_match or text_match)");
      }
    }
    return Set(e, ValueType::kBool);
  }

  ValueType Call(Expr& e) {
    const std::string& f = e.text;
    auto arity = [&](size_t lo, size_t hi) {
      if (e.args.size() < lo || e.args.size() > hi) {
        Error(e.pos, f + "() takes " +
                         (lo == hi   ? std::to_string(lo)
                          : hi > 100 ? "at least " + std::to_string(lo)
                                     : std::to_string(lo) + " to " + std::to_string(hi)) +
                         " argument" + (lo == 1 && hi == 1 ? "" : "s") + ", found " +
                         std::to_string(e.args.size()));
        return false;
      }
      return true;
    };
    if (f == "abs" || f == "log1p" || f == "min" || f == "max") {
      bool unary = f == "abs" || f == "log1p";
      arity(unary ? 1 : 2, unary ? 1 : 1000);
      for (auto& arg : e.args) {
        NeedType(*arg, Expression(*arg), ValueType::kNumber, "as argument of " + f + "()");
      }
      return Set(e, ValueType::kNumber);
    }
    if (f == "watchlist_match" || f == "text_match") {
      NotInConstant(e, f + "()");
      bool names = f == "watchlist_match";
      ValueType result = names ? ValueType::kNumber : ValueType::kBool;
      if (!arity(2, 2)) return Set(e, result);
      Expr& text = *e.args[0];
      ValueType t = Expression(text);
      if (text.kind != ExprKind::kPath || t != ValueType::kString) {
        Error(text.pos, "expected a transaction text field such as " +
                            std::string(names ? "txn.receiver.name" : "txn.remittance") +
                            " as first argument of " + f + "()");
      }
      if (const ListDecl* list = ResolveList(*e.args[1])) {
        ListKind want = names ? ListKind::kNames : ListKind::kPatterns;
        if (list->kind != want) {
          Error(e.args[1]->pos, "list @" + list->name + " holds " +
                                    std::string(ListKindName(list->kind)) + "; expected a " +
                                    std::string(ListKindName(want)) + " list for " + f + "()");
        }
      }
      return Set(e, result);
    }
    Error(e.pos, "unknown function " + Quote(f) +
                     "; expected abs, min, max, log1p, watchlist_match or text_match");
    for (auto& arg : e.args) {
      if (arg->kind != ExprKind::kListRef) Expression(*arg);
    }
    return Set(e, ValueType::kUnknown);
  }

  PolicyAst& ast_;
  std::string_view file_;
  std::span<const std::string_view> features_;
  std::vector<Diagnostic>& errors_;
  std::map<std::string, size_t, std::less<>> feature_index_;
  std::map<std::string, size_t, std::less<>> const_index_;
  std::map<std::string, size_t, std::less<>> list_index_;
  bool in_constant_ = false;
};

}  // namespace

bool IsReasonCode(std::string_view code) {
  if (code.empty() || code.size() > 64 || code[0] < 'A' || code[0] > 'Z') return false;
  for (char c : code) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

void CheckPolicy(PolicyAst& ast, std::string_view file,
                 std::span<const std::string_view> feature_names, std::vector<Diagnostic>& errors) {
  Checker(ast, file, feature_names, errors).Run();
}

}  // namespace verdict
