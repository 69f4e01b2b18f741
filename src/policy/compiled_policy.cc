#include "policy/compiled_policy.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

namespace verdict {
namespace {

__extension__ typedef __int128 Int128;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Truth FromBool(bool b) { return b ? kTrue : kFalse; }

template <typename T>
Truth Compare(T a, T b, TokenKind op) {
  switch (op) {
    case TokenKind::kLt:
      return FromBool(a < b);
    case TokenKind::kLe:
      return FromBool(a <= b);
    case TokenKind::kGt:
      return FromBool(a > b);
    case TokenKind::kGe:
      return FromBool(a >= b);
    case TokenKind::kEq:
      return FromBool(a == b);
    case TokenKind::kNe:
      return FromBool(a != b);
    default:
      return kUnknownTruth;
  }
}

Int128 Pow10(int digits) {
  Int128 p = 1;
  for (int i = 0; i < digits; ++i) p *= 10;
  return p;
}

// Compares two amounts exactly: same currency directly, otherwise through the policy's
// static rate between the two (either direction); unknown when there is none.
Truth CompareMoney(const Value& a, const Value& b, TokenKind op, const std::vector<FxRate>& rates) {
  if (a.currency == nullptr || b.currency == nullptr) return kUnknownTruth;
  if (a.currency == b.currency) return Compare(a.minor, b.minor, op);
  for (const FxRate& r : rates) {
    const bool forward = r.from == a.currency && r.to == b.currency;
    const bool backward = r.from == b.currency && r.to == a.currency;
    if (!forward && !backward) continue;
    const Value& x = forward ? a : b;  // in `from`
    const Value& y = forward ? b : a;  // in `to`
    // x_minor / 10^dx * rate_e9 / 1e9  vs  y_minor / 10^dy, scaled to integers.
    const Int128 lhs = static_cast<Int128>(x.minor) * r.rate_e9 * Pow10(y.currency->minor_digits);
    const Int128 rhs =
        static_cast<Int128>(y.minor) * 1'000'000'000 * Pow10(x.currency->minor_digits);
    return forward ? Compare(lhs, rhs, op) : Compare(rhs, lhs, op);
  }
  return kUnknownTruth;
}

int64_t HourOf(int64_t timestamp_us) {
  constexpr int64_t kHourUs = 3'600'000'000LL;
  int64_t hours = timestamp_us / kHourUs;
  if (timestamp_us % kHourUs < 0) --hours;
  int64_t h = hours % 24;
  return h < 0 ? h + 24 : h;
}

struct ScreenState {
  uint64_t done = 0;
  std::array<double, kMaxScreenCalls> score;
  std::array<int, kMaxScreenCalls> entry;
};

struct Context {
  std::array<Value, kMaxStack>& stack;
  const PolicyProgram& p;
  const Transaction& txn;
  const FeatureView& features;
  double model_score;
  bool model_available;
  ScreenState screens;
  uint64_t member_done = 0;
  uint64_t member_found = 0;
};

void Screen(Context& ctx, uint32_t slot) {
  if (ctx.screens.done & (1ULL << slot)) return;
  const ScreenCall& call = ctx.p.screens[slot];
  const CompiledList& list = ctx.p.lists[call.list];
  std::string_view text = TxnString(ctx.txn, call.field);
  if (call.watchlist) {
    WatchlistMatch m = list.watchlist ? list.watchlist->Match(text) : WatchlistMatch();
    ctx.screens.score[slot] = m.score;
    ctx.screens.entry[slot] = m.entry;
  } else {
    int first = list.patterns ? list.patterns->FirstMatch(text) : -1;
    ctx.screens.score[slot] = first >= 0 ? 1.0 : 0.0;
    ctx.screens.entry[slot] = first;
  }
  ctx.screens.done |= 1ULL << slot;
}

bool InList(const CompiledList& list, std::string_view s) {
  if (list.kind == ListKind::kCountries) {
    if (s.size() != 2 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'A' || s[1] > 'Z') return false;
    return list.countries.test((s[0] - 'A') * 26 + (s[1] - 'A'));
  }
  return list.strings.find(s) != list.strings.end();
}

// Run's operations that take more than a line, each inlined into its one case.

// Kleene's three-valued logic: false wins an and, true wins an or; otherwise unknown.
inline Truth And3(Truth a, Truth b) {
  return (a == kFalse || b == kFalse) ? kFalse : (a == kTrue && b == kTrue) ? kTrue : kUnknownTruth;
}
inline Truth Or3(Truth a, Truth b) {
  return (a == kTrue || b == kTrue) ? kTrue : (a == kFalse && b == kFalse) ? kFalse : kUnknownTruth;
}
inline Truth Not3(Truth t) { return t == kUnknownTruth ? kUnknownTruth : FromBool(t == kFalse); }

// NaN (a missing value) on either side makes the result NaN / unknown.
inline double MinMax(Op op, double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  return op == Op::kMin ? std::min(a, b) : std::max(a, b);
}
inline Truth CompareNumbers(double a, double b, uint8_t flag) {
  return std::isnan(a) || std::isnan(b) ? kUnknownTruth
                                        : Compare(a, b, static_cast<TokenKind>(flag));
}

inline double FeatureAt(const Context& ctx, uint32_t index) {
  return index < ctx.features.values.size() ? ctx.features.values[index] : kNaN;
}
inline void SetAmount(Value& v, const Transaction& txn) {
  v.minor = txn.amount.minor_units();
  v.currency = txn.amount.valid() ? &txn.amount.currency() : nullptr;
}
inline Truth CompareText(std::string_view a, std::string_view b, uint8_t flag) {
  const bool equal = a == b;
  return FromBool(static_cast<TokenKind>(flag) == TokenKind::kEq ? equal : !equal);
}
inline Truth CompareAmount(const Context& ctx, const Value& constant, uint8_t flag) {
  Value amount;
  SetAmount(amount, ctx.txn);
  return CompareMoney(amount, constant, static_cast<TokenKind>(flag), ctx.p.rates);
}
// A membership test's truth: `found`, or its negation for "not in".
inline Truth Found(bool found, uint8_t negated) { return FromBool(negated ? !found : found); }
inline bool InListField(const Context& ctx, uint32_t list, uint16_t field) {
  return InList(ctx.p.lists[list], TxnString(ctx.txn, static_cast<TxnField>(field)));
}
// Whether the transaction's field is in the list of membership `index`, computed once per
// decision (the bit masks remember it).
inline bool MemberOf(Context& ctx, uint32_t index) {
  const uint64_t bit = 1ULL << index;
  if (!(ctx.member_done & bit)) {
    const Membership& m = ctx.p.memberships[index];
    if (InList(ctx.p.lists[m.list], TxnString(ctx.txn, m.field))) ctx.member_found |= bit;
    ctx.member_done |= bit;
  }
  return (ctx.member_found & bit) != 0;
}

Truth Run(Context& ctx, const RuleProgram& rule) {
  std::array<Value, kMaxStack>& stack = ctx.stack;
  size_t sp = 0;  // number of values on the stack
  const Instr* code = ctx.p.code.data();
  for (uint32_t pc = rule.begin; pc < rule.end; ++pc) {
    const Instr& in = code[pc];
    switch (in.op) {
      case Op::kPushConst:
        stack[sp++] = ctx.p.constants[in.a];
        break;
      case Op::kLoadFeature:
        stack[sp++].num = FeatureAt(ctx, in.a);
        break;
      case Op::kLoadModelScore:
        stack[sp++].num = ctx.model_score;
        break;
      case Op::kLoadModelAvailable:
        stack[sp++].truth = FromBool(ctx.model_available);
        break;
      case Op::kLoadAmount:
        SetAmount(stack[sp++], ctx.txn);
        break;
      case Op::kLoadHour:
        stack[sp++].num = static_cast<double>(HourOf(ctx.txn.timestamp_us));
        break;
      case Op::kLoadString:
        stack[sp++].set_text(TxnString(ctx.txn, static_cast<TxnField>(in.a)));
        break;
      case Op::kNeg:
        stack[sp - 1].num = -stack[sp - 1].num;
        break;
      case Op::kAdd:
        --sp;
        stack[sp - 1].num += stack[sp].num;
        break;
      case Op::kSub:
        --sp;
        stack[sp - 1].num -= stack[sp].num;
        break;
      case Op::kMul:
        --sp;
        stack[sp - 1].num *= stack[sp].num;
        break;
      case Op::kDiv:
        --sp;
        stack[sp - 1].num = stack[sp].num == 0 ? kNaN : stack[sp - 1].num / stack[sp].num;
        break;
      case Op::kAbs:
        stack[sp - 1].num = std::fabs(stack[sp - 1].num);
        break;
      case Op::kLog1p:
        stack[sp - 1].num = std::log1p(stack[sp - 1].num);
        break;
      case Op::kMin:
      case Op::kMax:
        --sp;
        stack[sp - 1].num = MinMax(in.op, stack[sp - 1].num, stack[sp].num);
        break;
      case Op::kCmpNum:
        --sp;
        stack[sp - 1].truth = CompareNumbers(stack[sp - 1].num, stack[sp].num, in.flag);
        break;
      case Op::kCmpMoney:
        --sp;
        stack[sp - 1].truth =
            CompareMoney(stack[sp - 1], stack[sp], static_cast<TokenKind>(in.flag), ctx.p.rates);
        break;
      case Op::kCmpStr:
        --sp;
        stack[sp - 1].truth = CompareText(stack[sp - 1].text(), stack[sp].text(), in.flag);
        break;
      case Op::kNot:
        stack[sp - 1].truth = Not3(stack[sp - 1].truth);
        break;
      case Op::kAndJump:
        if (stack[sp - 1].truth == kFalse) pc = in.a - 1;
        break;
      case Op::kOrJump:
        if (stack[sp - 1].truth == kTrue) pc = in.a - 1;
        break;
      case Op::kAnd:
        --sp;
        stack[sp - 1].truth = And3(stack[sp - 1].truth, stack[sp].truth);
        break;
      case Op::kOr:
        --sp;
        stack[sp - 1].truth = Or3(stack[sp - 1].truth, stack[sp].truth);
        break;
      case Op::kInList:
        stack[sp - 1].truth = Found(InList(ctx.p.lists[in.a], stack[sp - 1].text()), in.flag);
        break;
      case Op::kWatchlist:
        Screen(ctx, in.a);
        stack[sp++].num = ctx.screens.score[in.a];
        break;
      case Op::kTextMatch:
        Screen(ctx, in.a);
        stack[sp++].truth = FromBool(ctx.screens.score[in.a] > 0);
        break;
      case Op::kCmpFeatureConst:
        stack[sp++].truth =
            CompareNumbers(FeatureAt(ctx, in.a), ctx.p.constants[in.b].num, in.flag);
        break;
      case Op::kCmpModelConst:
        stack[sp++].truth = CompareNumbers(ctx.model_score, ctx.p.constants[in.b].num, in.flag);
        break;
      case Op::kCmpAmountConst:
        stack[sp++].truth = CompareAmount(ctx, ctx.p.constants[in.b], in.flag);
        break;
      case Op::kInListMemo:
        stack[sp++].truth = Found(MemberOf(ctx, in.a), in.flag);
        break;
      case Op::kInListField:
        stack[sp++].truth = Found(InListField(ctx, in.a, in.b), in.flag);
        break;
    }
  }
  return sp == 0 ? kUnknownTruth : stack[sp - 1].truth;
}

std::string Format(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

std::string Describe(const Context& ctx, const Detail& d) {
  switch (d.kind) {
    case Detail::kFeature: {
      const std::string& name = ctx.p.feature_names[d.index];
      double v = d.index < ctx.features.values.size() ? ctx.features.values[d.index] : kNaN;
      return name + "=" + Format("%.10g", v);
    }
    case Detail::kAmount:
      return "txn.amount=" + (ctx.txn.amount.valid() ? ctx.txn.amount.ToString() : "?");
    case Detail::kModelScore:
      return ctx.model_available ? "model.score=" + Format("%.3f", ctx.model_score)
                                 : "model.score=absent";
    case Detail::kScreen: {
      const ScreenCall& call = ctx.p.screens[d.index];
      const CompiledList& list = ctx.p.lists[call.list];
      if (!(ctx.screens.done & (1ULL << d.index))) return "@" + list.name + " not screened";
      int entry = ctx.screens.entry[d.index];
      if (call.watchlist) {
        if (entry < 0) return "@" + list.name + ": no similar name";
        const WatchlistEntry& e = list.watchlist->entries()[entry];
        const std::string alias =
            e.primary.empty() ? "" : " (" + e.alias_kind + " alias of '" + e.primary + "')";
        return "@" + list.name + " best match '" + e.name + "'" + alias + " [" + e.id + "] score " +
               Format("%.3f", ctx.screens.score[d.index]);
      }
      if (entry < 0) return "@" + list.name + ": no pattern matched";
      return "@" + list.name + " matched pattern " + std::to_string(entry + 1) + " '" +
             list.patterns->patterns()[entry] + "'";
    }
  }
  return "";
}

std::string RuleMessage(const Context& ctx, const RuleProgram& rule) {
  std::string message = rule.description.empty() ? rule.id : rule.description;
  if (!rule.details.empty()) {
    message += " (";
    for (size_t i = 0; i < rule.details.size(); ++i) {
      if (i > 0) message += ", ";
      message += Describe(ctx, rule.details[i]);
    }
    message += ")";
  }
  return message;
}

}  // namespace

std::shared_ptr<const CompiledPolicy> CompiledPolicy::Create(PolicyProgram program,
                                                             BundleInfo info) {
  return std::shared_ptr<const CompiledPolicy>(
      new CompiledPolicy(std::move(program), std::move(info)));
}

PolicyResult CompiledPolicy::Evaluate(const Transaction& txn, const FeatureView& features,
                                      std::optional<double> model_score) const {
  return Evaluate(txn, features, model_score, nullptr);
}

PolicyResult CompiledPolicy::Evaluate(const Transaction& txn, const FeatureView& features,
                                      std::optional<double> model_score, PolicyTrace* trace) const {
  std::array<Value, kMaxStack> stack;  // trivially constructible: not initialized
  Context ctx{stack, program_, txn, features, model_score.value_or(kNaN), model_score.has_value(),
              {},    0,        0};
  PolicyResult result;
  if (trace != nullptr) *trace = PolicyTrace();
  // Fired rules as a bitmap: no allocation unless something fires.
  constexpr size_t kInline = 256;
  std::array<uint64_t, kInline / 64> inline_bits{};
  std::vector<uint64_t> heap_bits;
  uint64_t* fired = inline_bits.data();
  if (program_.rules.size() > kInline) {
    heap_bits.assign((program_.rules.size() + 63) / 64, 0);
    fired = heap_bits.data();
  }
  for (size_t i = 0; i < program_.rules.size(); ++i) {
    const RuleProgram& rule = program_.rules[i];
    if (Run(ctx, rule) != kTrue) continue;
    fired[i / 64] |= 1ULL << (i % 64);
    result.outcome = std::max(result.outcome, rule.outcome);
    result.reasons.push_back({rule.reason, rule.id, RuleMessage(ctx, rule)});
    if (trace != nullptr) trace->fired_rules.push_back(static_cast<uint32_t>(i));
  }
  for (const TypologyProgram& t : program_.typologies) {
    double score = 0;
    for (const auto& [rule, weight] : t.members) {
      if (fired[rule / 64] & (1ULL << (rule % 64))) score += weight;
    }
    Outcome outcome = score >= t.block   ? Outcome::kBlock
                      : score >= t.alert ? Outcome::kReview
                                         : Outcome::kAllow;
    if (trace != nullptr) trace->typologies.push_back({t.id, score, outcome});
    if (outcome == Outcome::kAllow) continue;
    std::string members;
    for (const auto& [rule, weight] : t.members) {
      if (fired[rule / 64] & (1ULL << (rule % 64))) {
        members += (members.empty() ? "" : ", ") + program_.rules[rule].id;
      }
    }
    result.outcome = std::max(result.outcome, outcome);
    std::string message = (t.description.empty() ? t.id : t.description) + " (score " +
                          Format("%.2f", score) + " >= " +
                          (outcome == Outcome::kBlock ? "block " + Format("%.2f", t.block)
                                                      : "alert " + Format("%.2f", t.alert)) +
                          "; rules: " + members + ")";
    result.reasons.push_back({t.reason, t.id, std::move(message)});
  }
  if (trace != nullptr) {
    for (uint32_t slot = 0; slot < program_.screens.size(); ++slot) {
      if (!(ctx.screens.done & (1ULL << slot))) continue;
      const ScreenCall& call = program_.screens[slot];
      const CompiledList& list = program_.lists[call.list];
      ScreeningHit hit;
      hit.function = call.watchlist ? "watchlist_match" : "text_match";
      hit.list = list.name;
      hit.entry = ctx.screens.entry[slot];
      hit.score = ctx.screens.score[slot];
      if (hit.entry >= 0 && call.watchlist) {
        hit.entry_id = list.watchlist->entries()[hit.entry].id;
        hit.entry_name = list.watchlist->entries()[hit.entry].name;
        hit.entry_primary = list.watchlist->entries()[hit.entry].primary;
        hit.alias_kind = list.watchlist->entries()[hit.entry].alias_kind;
      } else if (hit.entry >= 0) {
        hit.entry_id = list.patterns->patterns()[hit.entry];
      }
      trace->screenings.push_back(hit);
    }
  }
  return result;
}

std::vector<std::pair<std::string_view, const Watchlist*>> CompiledPolicy::NameLists() const {
  std::vector<std::pair<std::string_view, const Watchlist*>> out;
  for (const CompiledList& list : program_.lists) {
    if (list.kind == ListKind::kNames && list.watchlist)
      out.emplace_back(list.name, list.watchlist.get());
  }
  return out;
}

}  // namespace verdict
