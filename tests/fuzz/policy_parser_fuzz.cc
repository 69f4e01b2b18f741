// libFuzzer target: the policy language front end (lexer, parser, checker, compiler) must
// never crash, hang or leak on any policy text, must report every refusal with a position,
// and whatever it accepts must evaluate safely (bounded stack, no unknown opcodes).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/currency.h"
#include "core/transaction.h"
#include "policy/policy_bundle.h"

namespace {

constexpr std::array<std::string_view, 4> kFeatures = {"amount", "sender_out_count_1h",
                                                       "receiver_in_count_24h", "dormant_days"};

verdict::Transaction FuzzTxn() {
  verdict::Transaction txn;
  txn.transaction_id = "fuzz";
  txn.timestamp_us = 1'764'670'530'000'000;
  txn.amount = verdict::Money(995'000, *verdict::FindCurrency("EUR"));
  txn.sender = {{"ACC-1", "BANKUS33"}, "US", "Ivan Petrov"};
  txn.receiver = {{"ACC-2", "BANKGB22"}, "IR", "Acme Trading Ltd"};
  txn.channel = "wire";
  txn.remittance = "invoice 4411 bitcoin";
  return txn;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  verdict::BundleSource source;
  source.version = "fuzz";
  source.policy_file = "fuzz.policy";
  source.policy_text.assign(reinterpret_cast<const char*>(data), size);
  std::vector<verdict::Diagnostic> errors;
  auto policy = verdict::CompileBundle(source, kFeatures, &errors);
  if (!policy.ok()) {
    if (errors.empty()) __builtin_trap();  // every refusal names at least one position
    for (const auto& e : errors) {
      if (e.pos.line < 1 || e.pos.column < 1 || e.message.empty()) __builtin_trap();
    }
    return 0;
  }
  static const verdict::Transaction txn = FuzzTxn();
  std::array<double, 4> values = {9950, 12, 40, 400};
  verdict::FeatureView view{values, kFeatures, "fuzz"};
  verdict::PolicyTrace trace;
  auto with_model = (*policy)->Evaluate(txn, view, 0.8, &trace);
  auto without = (*policy)->Evaluate(txn, view, std::nullopt);
  if (with_model.reasons.size() < trace.fired_rules.size()) __builtin_trap();
  (void)without;
  return 0;
}
