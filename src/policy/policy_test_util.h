// Helpers shared by the policy tests: a small feature schema, transaction builders and
// compile-or-fail wrappers. Test-only; not thread-safe.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <string_view>

#include "core/currency.h"
#include "core/transaction.h"
#include "policy/policy_bundle.h"

namespace verdict::testing {

inline constexpr std::array<std::string_view, 4> kTestFeatures = {
    "amount", "sender_out_count_24h", "receiver_in_count_24h", "sender_out_sum_24h"};

inline Money Usd(int64_t cents) { return Money(cents, *FindCurrency("USD")); }
inline Money In(std::string_view code, int64_t minor) { return Money(minor, *FindCurrency(code)); }

inline Transaction MakeTxn(Money amount) {
  Transaction txn;
  txn.transaction_id = "tx-1";
  txn.timestamp_us = 1'764'670'530'000'000;  // 2025-12-02T10:15:30Z
  txn.amount = amount;
  txn.sender = {{"ACC-1", "BANKUS33"}, "US", "John Smith"};
  txn.receiver = {{"ACC-2", "BANKGB22"}, "GB", "Acme Ltd"};
  txn.channel = "wire";
  txn.type = "transfer";
  return txn;
}

inline BundleSource Source(std::string text, std::map<std::string, std::string> files = {}) {
  BundleSource source;
  source.policy_file = "test.policy";
  source.version = "t1";
  source.policy_text = std::move(text);
  source.files = std::move(files);
  return source;
}

inline std::shared_ptr<const CompiledPolicy> MustCompile(
    std::string text, std::map<std::string, std::string> files = {}) {
  auto compiled = CompileBundle(Source(std::move(text), std::move(files)), kTestFeatures);
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  return compiled.ok() ? compiled.value() : nullptr;
}

// The diagnostics of compiling `text`, as "line:column: message" strings.
inline std::vector<Diagnostic> ErrorsOf(std::string text,
                                        std::map<std::string, std::string> files = {}) {
  return ValidateBundle(Source(std::move(text), std::move(files)), kTestFeatures);
}

}  // namespace verdict::testing
