// Helpers shared by the engine's tests (one translation unit in unity builds, so they live here
// once rather than in each test file's anonymous namespace). Test-only; not thread-safe unless
// said.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/transaction_json.h"
#include "common/clock.h"
#include "core/transaction.h"

namespace verdict::engine_testing {

// Every reading moves time on by 10 µs, so each stage between two readings lasts at least that.
// Thread-safe.
class TickingClock final : public Clock {
 public:
  int64_t NowMicros() const override { return micros_.fetch_add(10) + 10; }
  int64_t MonotonicNanos() const override { return NowMicros() * 1000; }

 private:
  mutable std::atomic<int64_t> micros_{1'700'000'000'000'000};
};

// A file of the source tree: CTest runs the tests from the source root and sets
// VERDICT_SOURCE_DIR; a direct run from the root finds it too.
inline std::string SourcePath(std::string_view relative) {
  const char* root = std::getenv("VERDICT_SOURCE_DIR");
  return (root != nullptr ? std::string(root) + "/" : std::string()) + std::string(relative);
}

// A transaction of `amount` USD from `sender` to `receiver`, at `timestamp` (RFC 3339).
inline Transaction MakeTransaction(std::string_view id, std::string_view amount,
                                   std::string_view sender, std::string_view receiver,
                                   std::string_view timestamp = "2026-12-02T10:00:00Z") {
  std::string json = R"({"transaction_id":")" + std::string(id) + R"(","timestamp":")" +
                     std::string(timestamp) + R"(","amount":")" + std::string(amount) +
                     R"(","currency":"USD","sender":{"account":")" + std::string(sender) +
                     R"("},"receiver":{"account":")" + std::string(receiver) + R"("}})";
  Result<Transaction> txn = TransactionDecoder().DecodeOne(json);
  if (!txn.ok()) std::abort();  // the tests' own input: a typo, not a finding
  return std::move(txn).value();
}

}  // namespace verdict::engine_testing
