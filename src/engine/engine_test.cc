// Engine::Decide end to end on a real journal: what the stored record keeps of the answer.
#include "engine/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "api/transaction_json.h"
#include "journal/test_util.h"

namespace verdict {
namespace {

using journal::testing_util::TempDir;

// Every reading moves time on by 10 µs, so each stage between two readings lasts at least that.
class TickingClock final : public Clock {
 public:
  int64_t NowMicros() const override { return micros_.fetch_add(10) + 10; }
  int64_t MonotonicNanos() const override { return NowMicros() * 1000; }

 private:
  mutable std::atomic<int64_t> micros_{1'700'000'000'000'000};
};

TEST(EngineTest, TheStoredRecordKeepsTheStageTimingsKnownWhenItWasWritten) {
  TempDir dir;
  EngineOptions options;
  options.data_dir = dir.path();
  options.sched.workers = 1;
  MetricsRegistry metrics;
  TickingClock clock;
  Result<std::unique_ptr<Engine>> engine = Engine::Create(options, metrics, clock);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Result<Transaction> txn = TransactionDecoder().DecodeOne(
      R"({"transaction_id":"t1","timestamp":"2026-12-02T10:00:00Z","amount":"9000.00",)"
      R"("currency":"USD","sender":{"account":"S1"},"receiver":{"account":"R1"}})");
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  const int64_t received_ns = clock.MonotonicNanos();
  Result<Decision> answered = (*engine)->DecideAndWait(*txn, received_ns);
  ASSERT_TRUE(answered.ok()) << answered.status().ToString();
  Result<std::optional<Decision>> stored =
      (*engine)->FindDecision(Caller{}.tenant, answered->decision_id);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_TRUE(stored->has_value());

  const StageTimings& kept = (*stored)->timings;
  const StageTimings& sent = answered->timings;
  EXPECT_GT(kept.queue_us, 0);
  EXPECT_GT(kept.features_us, 0);
  EXPECT_GT(kept.model_us, 0);
  EXPECT_GT(kept.policy_us, 0);
  EXPECT_EQ(kept.queue_us, sent.queue_us);
  EXPECT_EQ(kept.features_us, sent.features_us);
  EXPECT_EQ(kept.model_us, sent.model_us);
  EXPECT_EQ(kept.policy_us, sent.policy_us);
  // The commit's duration is known only to the answer.
  EXPECT_EQ(kept.journal_us, 0);
  EXPECT_GT(sent.journal_us, 0);
  EXPECT_GE(kept.total_us, kept.queue_us + kept.features_us + kept.model_us + kept.policy_us);
  EXPECT_GT(sent.total_us, kept.total_us);
}

}  // namespace
}  // namespace verdict
