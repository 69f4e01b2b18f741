#include "policy/compiler.h"

#include <algorithm>
#include <limits>

namespace verdict {
namespace {

class Compiler {
 public:
  Compiler(const PolicyAst& ast, PolicyProgram& program, std::string_view file,
           std::vector<Diagnostic>& errors)
      : ast_(ast), program_(program), file_(file), errors_(errors) {}

  void Run() {
    for (const RateDecl& r : ast_.rates) program_.rates.push_back({r.from, r.to, r.rate_e9});
    for (const RuleDecl& rule : ast_.rules) {
      RuleProgram rp;
      rp.id = rule.id;
      rp.description = rule.description;
      rp.reason = rule.reason;
      rp.outcome = rule.outcome;
      rp.weight = rule.weight;
      rp.begin = static_cast<uint32_t>(program_.code.size());
      details_ = &rp.details;
      depth_ = max_depth_ = 0;
      Emit(*rule.condition);
      if (max_depth_ > kMaxStack) {
        errors_.push_back({std::string(file_), rule.pos,
                           "rule '" + rule.id + "' needs more than " + std::to_string(kMaxStack) +
                               " stack slots; simplify it"});
      }
      rp.end = static_cast<uint32_t>(program_.code.size());
      program_.rules.push_back(std::move(rp));
    }
    for (const TypologyDecl& t : ast_.typologies) {
      TypologyProgram tp;
      tp.id = t.id;
      tp.description = t.description;
      tp.reason = t.reason;
      tp.alert = t.alert.value_or(0);
      tp.block = t.block.value_or(std::numeric_limits<double>::infinity());
      for (const TypologyMember& m : t.members) {
        for (size_t i = 0; i < ast_.rules.size(); ++i) {
          if (ast_.rules[i].id == m.rule) {
            tp.members.emplace_back(static_cast<uint32_t>(i),
                                    m.weight.value_or(ast_.rules[i].weight));
          }
        }
      }
      program_.typologies.push_back(std::move(tp));
    }
  }

 private:
  void Op1(Op op, uint32_t a = 0, uint8_t flag = 0, int stack_delta = 0, uint16_t b = 0) {
    program_.code.push_back({op, flag, b, a});
    depth_ += stack_delta;
    max_depth_ = std::max(max_depth_, static_cast<size_t>(std::max(depth_, 0)));
  }
  void Push(Value v) {
    program_.constants.push_back(v);
    Op1(Op::kPushConst, static_cast<uint32_t>(program_.constants.size() - 1), 0, 1);
  }
  void AddDetail(Detail d) {
    for (const Detail& e : *details_) {
      if (e.kind == d.kind && e.index == d.index) return;
    }
    details_->push_back(d);
  }

  void Emit(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kNumber: {
        Value v{};
        v.num = e.number;
        return Push(v);
      }
      case ExprKind::kString: {
        program_.strings.push_back(e.text);
        Value v{};
        v.set_text(program_.strings.back());
        return Push(v);
      }
      case ExprKind::kMoney: {
        Value v{};
        v.minor = e.minor_units;
        v.currency = e.currency;
        return Push(v);
      }
      case ExprKind::kBool: {
        Value v{};
        v.truth = e.boolean ? kTrue : kFalse;
        return Push(v);
      }
      case ExprKind::kName:
        if (e.ref == RefKind::kConstant) return Emit(*ast_.constants[e.index].value);
        AddDetail({Detail::kFeature, static_cast<uint32_t>(e.index)});
        return Op1(Op::kLoadFeature, static_cast<uint32_t>(e.index), 0, 1);
      case ExprKind::kPath:
        if (e.ref == RefKind::kModelScore) {
          AddDetail({Detail::kModelScore, 0});
          return Op1(Op::kLoadModelScore, 0, 0, 1);
        }
        if (e.ref == RefKind::kModelAvailable) return Op1(Op::kLoadModelAvailable, 0, 0, 1);
        if (static_cast<TxnField>(e.index) == TxnField::kAmount) {
          AddDetail({Detail::kAmount, 0});
          return Op1(Op::kLoadAmount, 0, 0, 1);
        }
        if (static_cast<TxnField>(e.index) == TxnField::kHour) return Op1(Op::kLoadHour, 0, 0, 1);
        return Op1(Op::kLoadString, static_cast<uint32_t>(e.index), 0, 1);
      case ExprKind::kListRef:
        return;  // consumed by kIn / kCall
      case ExprKind::kUnary:
        Emit(*e.args[0]);
        return Op1(e.op == TokenKind::kMinus ? Op::kNeg : Op::kNot);
      case ExprKind::kBinary:
        return Binary(e);
      case ExprKind::kIn:
        if (e.args[0]->kind == ExprKind::kPath && e.args[0]->ref == RefKind::kTxnField &&
            program_.lists[e.args[1]->index].kind != ListKind::kCountries) {
          const Membership m{static_cast<TxnField>(e.args[0]->index),
                             static_cast<uint32_t>(e.args[1]->index)};
          uint32_t slot = 0;
          while (slot < program_.memberships.size() &&
                 (program_.memberships[slot].field != m.field ||
                  program_.memberships[slot].list != m.list)) {
            ++slot;
          }
          if (slot < kMaxMemberships) {
            if (slot == program_.memberships.size()) program_.memberships.push_back(m);
            return Op1(Op::kInListMemo, slot, e.negated ? 1 : 0, 1);
          }
        }
        if (e.args[0]->kind == ExprKind::kPath && e.args[0]->ref == RefKind::kTxnField) {
          return Op1(Op::kInListField, static_cast<uint32_t>(e.args[1]->index), e.negated ? 1 : 0,
                     1, static_cast<uint16_t>(e.args[0]->index));
        }
        Emit(*e.args[0]);
        return Op1(Op::kInList, static_cast<uint32_t>(e.args[1]->index), e.negated ? 1 : 0);
      case ExprKind::kCall:
        return Call(e);
    }
  }

  void Binary(const Expr& e) {
    if (e.op == TokenKind::kIdent) {
      const bool is_and = e.text == "and";
      Emit(*e.args[0]);
      const size_t jump = program_.code.size();
      Op1(is_and ? Op::kAndJump : Op::kOrJump);
      Emit(*e.args[1]);
      Op1(is_and ? Op::kAnd : Op::kOr, 0, 0, -1);
      program_.code[jump].a = static_cast<uint32_t>(program_.code.size());
      return;
    }
    const uint8_t flag = static_cast<uint8_t>(e.op);
    if (Fused(e, flag)) return;
    Emit(*e.args[0]);
    Emit(*e.args[1]);
    switch (e.op) {
      case TokenKind::kPlus:
        return Op1(Op::kAdd, 0, 0, -1);
      case TokenKind::kMinus:
        return Op1(Op::kSub, 0, 0, -1);
      case TokenKind::kStar:
        return Op1(Op::kMul, 0, 0, -1);
      case TokenKind::kSlash:
        return Op1(Op::kDiv, 0, 0, -1);
      default:
        break;
    }
    const ValueType t = e.args[0]->type;
    Op op = t == ValueType::kMoney    ? Op::kCmpMoney
            : t == ValueType::kString ? Op::kCmpStr
                                      : Op::kCmpNum;
    Op1(op, 0, flag, -1);
  }

  // The literal an expression stands for (through constants), if it is one.
  const Expr* Literal(const Expr& e) const {
    if (e.kind == ExprKind::kName && e.ref == RefKind::kConstant) {
      return Literal(*ast_.constants[e.index].value);
    }
    if (e.kind == ExprKind::kNumber || e.kind == ExprKind::kMoney) return &e;
    return nullptr;
  }

  // feature/model.score/txn.amount compared with a literal: one instruction.
  bool Fused(const Expr& e, uint8_t flag) {
    if (e.op != TokenKind::kLt && e.op != TokenKind::kLe && e.op != TokenKind::kGt &&
        e.op != TokenKind::kGe && e.op != TokenKind::kEq && e.op != TokenKind::kNe) {
      return false;
    }
    const Expr& left = *e.args[0];
    const Expr* lit = Literal(*e.args[1]);
    if (lit == nullptr || program_.constants.size() >= 65535) return false;
    Value v{};
    v.num = lit->number;
    v.minor = lit->minor_units;
    v.currency = lit->currency;
    const uint16_t b = static_cast<uint16_t>(program_.constants.size());
    if (left.kind == ExprKind::kName && left.ref == RefKind::kFeature &&
        lit->kind == ExprKind::kNumber) {
      program_.constants.push_back(v);
      AddDetail({Detail::kFeature, static_cast<uint32_t>(left.index)});
      Op1(Op::kCmpFeatureConst, static_cast<uint32_t>(left.index), flag, 1, b);
      return true;
    }
    if (left.kind == ExprKind::kPath && left.ref == RefKind::kModelScore &&
        lit->kind == ExprKind::kNumber) {
      program_.constants.push_back(v);
      AddDetail({Detail::kModelScore, 0});
      Op1(Op::kCmpModelConst, 0, flag, 1, b);
      return true;
    }
    if (left.kind == ExprKind::kPath && left.ref == RefKind::kTxnField &&
        static_cast<TxnField>(left.index) == TxnField::kAmount && lit->kind == ExprKind::kMoney) {
      program_.constants.push_back(v);
      AddDetail({Detail::kAmount, 0});
      Op1(Op::kCmpAmountConst, 0, flag, 1, b);
      return true;
    }
    return false;
  }

  void Call(const Expr& e) {
    const std::string& f = e.text;
    if (f == "abs" || f == "log1p") {
      Emit(*e.args[0]);
      return Op1(f == "abs" ? Op::kAbs : Op::kLog1p);
    }
    if (f == "min" || f == "max") {
      Emit(*e.args[0]);
      for (size_t i = 1; i < e.args.size(); ++i) {
        Emit(*e.args[i]);
        Op1(f == "min" ? Op::kMin : Op::kMax, 0, 0, -1);
      }
      return;
    }
    ScreenCall call{f == "watchlist_match", static_cast<TxnField>(e.args[0]->index),
                    static_cast<uint32_t>(e.args[1]->index)};
    uint32_t slot = 0;
    while (slot < program_.screens.size()) {
      const ScreenCall& s = program_.screens[slot];
      if (s.watchlist == call.watchlist && s.field == call.field && s.list == call.list) break;
      ++slot;
    }
    if (slot == program_.screens.size()) {
      if (slot >= kMaxScreenCalls) {
        errors_.push_back({std::string(file_), e.pos,
                           "more than " + std::to_string(kMaxScreenCalls) +
                               " distinct screening calls in one policy"});
      }
      program_.screens.push_back(call);
    }
    AddDetail({Detail::kScreen, slot});
    Op1(call.watchlist ? Op::kWatchlist : Op::kTextMatch, slot, 0, 1);
  }

  const PolicyAst& ast_;
  PolicyProgram& program_;
  std::string_view file_;
  std::vector<Diagnostic>& errors_;
  std::vector<Detail>* details_ = nullptr;
  int depth_ = 0;
  size_t max_depth_ = 0;
};

}  // namespace

PolicyProgram CompilePolicy(const PolicyAst& ast, std::vector<CompiledList> lists,
                            std::span<const std::string_view> feature_names, std::string_view file,
                            std::vector<Diagnostic>& errors) {
  PolicyProgram program;
  program.name = ast.name;
  program.lists = std::move(lists);
  program.feature_names.assign(feature_names.begin(), feature_names.end());
  Compiler(ast, program, file, errors).Run();
  return program;
}

}  // namespace verdict
