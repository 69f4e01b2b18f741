// PolicyProgram: the compact compiled form of a checked policy: one flat instruction array
// (a small stack machine with three-valued booleans), per-rule code ranges, resolved lists,
// FX rates and typologies. Built by CompilePolicy, then owned immutably by a CompiledPolicy.
#pragma once

#include <bitset>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/currency.h"
#include "core/decision.h"
#include "policy/ast.h"
#include "policy/pattern_set.h"
#include "policy/txn_fields.h"
#include "policy/watchlist.h"

namespace verdict {

// Three-valued truth: a condition that reads an absent value (model.score on the fallback
// path, an amount in a currency without a rate, a NaN) is unknown, and a rule fires only
// when its condition is true.
enum Truth : uint8_t { kFalse = 0, kTrue = 1, kUnknownTruth = 2 };

// Trivially constructible, so the evaluator's stack costs nothing to set up; build constants
// with value-initialization (Value{}).
struct Value {
  double num;
  int64_t minor;
  const CurrencyInfo* currency;
  const char* str;  // with str_len: a string_view that keeps Value trivial
  size_t str_len;
  Truth truth;

  std::string_view text() const { return {str, str_len}; }
  void set_text(std::string_view s) {
    str = s.data();
    str_len = s.size();
  }
};

enum class Op : uint8_t {
  kPushConst,    // a: constant pool index
  kLoadFeature,  // a: feature index (NaN when the view is shorter)
  kLoadModelScore,
  kLoadModelAvailable,
  kLoadAmount,
  kLoadHour,
  kLoadString,  // a: TxnField
  kNeg,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kAbs,
  kLog1p,
  kMin,
  kMax,
  kCmpNum,    // flag: comparison (TokenKind as uint8)
  kCmpMoney,  // flag: comparison
  kCmpStr,    // flag: kEq or kNe
  kNot,
  kAndJump,  // a: target; if top is false, jump (leaving it)
  kAnd,
  kOrJump,  // a: target; if top is true, jump (leaving it)
  kOr,
  kInList,     // a: list index; flag: 1 = negated
  kWatchlist,  // a: screening slot
  kTextMatch,  // a: screening slot
  // Fused forms of the commonest shapes (b: constant pool index, flag: comparison).
  kCmpFeatureConst,  // feature[a] <op> number
  kCmpModelConst,    // model.score <op> number
  kCmpAmountConst,   // txn.amount <op> money
  kInListField,      // txn field b in list a (flag: 1 = negated)
  kInListMemo,       // membership slot a, computed once per transaction (flag: 1 = negated)
};

struct Instr {
  Op op;
  uint8_t flag = 0;
  uint16_t b = 0;
  uint32_t a = 0;
};

struct TransparentHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

struct CompiledList {
  std::string name;
  ListKind kind = ListKind::kStrings;
  size_t size = 0;
  std::bitset<26 * 26> countries;                                             // kCountries
  std::unordered_set<std::string, TransparentHash, std::equal_to<>> strings;  // kStrings, kAccounts
  std::unique_ptr<const Watchlist> watchlist;                                 // kNames
  std::unique_ptr<const PatternSet> patterns;                                 // kPatterns
};

// One distinct screening call (watchlist_match or text_match of a txn field against a list),
// evaluated at most once per transaction and reported in reasons.
struct ScreenCall {
  bool watchlist = true;
  TxnField field = TxnField::kReceiverName;
  uint32_t list = 0;
};

// A value a rule's reason message shows when the rule fires.
struct Detail {
  enum Kind : uint8_t { kFeature, kAmount, kModelScore, kScreen } kind;
  uint32_t index = 0;  // feature index or screening slot
};

struct RuleProgram {
  std::string id;
  std::string description;
  std::string reason;
  Outcome outcome = Outcome::kReview;
  double weight = 1;
  uint32_t begin = 0;  // code range
  uint32_t end = 0;
  std::vector<Detail> details;
};

struct TypologyProgram {
  std::string id;
  std::string description;
  std::string reason;
  std::vector<std::pair<uint32_t, double>> members;  // rule index, weight
  double alert = 0;
  double block = 0;  // +inf when the typology never blocks
};

struct FxRate {
  const CurrencyInfo* from;
  const CurrencyInfo* to;
  int64_t rate_e9;  // 1 `from` = rate_e9 / 1e9 `to`
};

// One distinct `txn.field in @list` test over a hashed list, evaluated at most once per
// transaction however many rules repeat it.
struct Membership {
  TxnField field;
  uint32_t list;
};

inline constexpr size_t kMaxStack = 64;
inline constexpr size_t kMaxMemberships = 64;
inline constexpr size_t kMaxScreenCalls = 32;

struct PolicyProgram {
  std::string name;
  std::vector<Instr> code;
  std::vector<Value> constants;
  std::deque<std::string> strings;  // storage the constants' string_views point into
  std::vector<RuleProgram> rules;
  std::vector<TypologyProgram> typologies;
  std::vector<CompiledList> lists;
  std::vector<ScreenCall> screens;
  std::vector<Membership> memberships;
  std::vector<FxRate> rates;
  std::vector<std::string> feature_names;  // the schema compiled against
};

}  // namespace verdict
