// AST of a policy file as the parser builds it; the checker then fills in each expression's
// type and resolved target. Owned by the caller of ParsePolicy; not synchronized.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/currency.h"
#include "core/decision.h"
#include "policy/diagnostic.h"
#include "policy/lexer.h"
#include "policy/published_list.h"

namespace verdict {

enum class ValueType { kUnknown, kNumber, kMoney, kString, kBool, kList };
std::string_view ValueTypeName(ValueType type);

enum class ExprKind {
  kNumber,   // number or duration literal (durations are numbers of seconds)
  kString,   // string literal
  kMoney,    // 10000 USD
  kBool,     // true / false
  kName,     // feature or constant
  kPath,     // txn.amount, txn.sender.country, model.score
  kListRef,  // @name (function arguments and `in` only)
  kUnary,    // op: kMinus or kIdent "not"
  kBinary,   // arithmetic, comparison, and/or
  kIn,       // args[0] in @list (negated: not in)
  kCall,     // name(args...)
};

// What a kName / kPath / kListRef resolved to (set by the checker).
enum class RefKind { kNone, kFeature, kConstant, kTxnField, kModelScore, kModelAvailable, kList };

struct Expr {
  ExprKind kind = ExprKind::kNumber;
  SourcePos pos;
  TokenKind op = TokenKind::kEnd;  // unary/binary operator; and/or use kIdent with text
  std::string text;                // literal text, name, path ("txn.amount"), function name
  double number = 0;
  int64_t minor_units = 0;  // money
  const CurrencyInfo* currency = nullptr;
  bool boolean = false;
  bool negated = false;  // `not in`
  std::vector<std::unique_ptr<Expr>> args;

  // Filled in by the checker.
  ValueType type = ValueType::kUnknown;
  RefKind ref = RefKind::kNone;
  int index = -1;  // feature index, constant index, txn field id, or list index
};

enum class ListKind { kStrings, kCountries, kAccounts, kNames, kPatterns };
std::string_view ListKindName(ListKind kind);

struct ListEntry {
  std::string value;
  SourcePos pos;  // in the policy (inline) or line in the list file
};

struct ListDecl {
  std::string name;
  SourcePos pos;
  ListKind kind = ListKind::kStrings;
  std::optional<std::string> file;  // `from "file"`; otherwise inline entries
  SourcePos file_pos;
  // `names from opensanctions "f"` and the like: the published layout of the file(s).
  ListFormat format = ListFormat::kIdNameCsv;
  std::optional<std::string> second_file;  // ofac_sdn's alt.csv
  SourcePos second_file_pos;
  std::vector<ListEntry> entries;  // inline entries
};

struct ConstDecl {
  std::string name;
  SourcePos pos;
  std::unique_ptr<Expr> value;
};

// `rate 1 EUR = 1.0850 USD`: from 1 major unit of `from` to `rate_e9 / 1e9` major units of `to`.
struct RateDecl {
  SourcePos pos;
  const CurrencyInfo* from = nullptr;
  const CurrencyInfo* to = nullptr;
  int64_t rate_e9 = 0;
};

struct RuleDecl {
  std::string id;
  SourcePos pos;
  std::string description;
  std::unique_ptr<Expr> condition;
  Outcome outcome = Outcome::kReview;
  bool has_outcome = false;
  std::string reason;
  SourcePos reason_pos;
  double weight = 1.0;
};

struct TypologyMember {
  std::string rule;
  SourcePos pos;
  std::optional<double> weight;  // else the rule's weight
};

struct TypologyDecl {
  std::string id;
  SourcePos pos;
  std::string description;
  std::vector<TypologyMember> members;
  std::optional<double> alert;
  std::optional<double> block;
  SourcePos threshold_pos;
  std::string reason;
  SourcePos reason_pos;
};

struct PolicyAst {
  std::string name;     // `policy "name"`, may be empty
  std::string version;  // `version "7"`, may be empty
  std::vector<ListDecl> lists;
  std::vector<ConstDecl> constants;
  std::vector<RateDecl> rates;
  std::vector<RuleDecl> rules;
  std::vector<TypologyDecl> typologies;
};

}  // namespace verdict
