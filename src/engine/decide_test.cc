// Engine::Decide's branches that only whole-binary tests reached before: a replayed
// transaction, a conflicting one, the breaker's fallback, the drift freeze, and a journal
// refusal that must leave both accounts as they were. On a real journal and the demo model.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/engine_test_util.h"
#include "features/feature_vector.h"
#include "journal/test_util.h"

namespace verdict {
namespace {

using engine_testing::MakeTransaction;
using engine_testing::SourcePath;
using engine_testing::TickingClock;
using journal::testing_util::TempDir;

bool HasReason(const Decision& decision, std::string_view code) {
  return std::any_of(decision.reasons.begin(), decision.reasons.end(),
                     [&](const Reason& r) { return r.code == code; });
}

class DecideTest : public ::testing::Test {
 protected:
  DecideTest() {
    options_.data_dir = dir_.path();
    options_.sched.workers = 1;
    options_.model.path = SourcePath("models/demo/model.json");
  }

  Engine& Start() {
    Result<std::unique_ptr<Engine>> made = Engine::Create(options_, metrics_, clock_);
    if (!made.ok()) ADD_FAILURE() << made.status().ToString();
    engine_ = std::move(made).value();
    return *engine_;
  }

  // The feature vector the journal keeps for a decision.
  std::vector<double> RecordedFeatures(const Decision& decision) {
    Result<std::optional<journal::JournalRecord>> record =
        engine_->journal().FindByDecisionId(decision.decision_id);
    EXPECT_TRUE(record.ok() && record->has_value());
    return record.ok() && record->has_value() ? (*record)->features : std::vector<double>{};
  }

  TempDir dir_;
  EngineOptions options_;
  MetricsRegistry metrics_;
  TickingClock clock_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(DecideTest, TheSameTransactionAgainIsAnsweredWithTheStoredDecision) {
  Engine& engine = Start();
  const uint64_t seq = engine.journal().durable_sequence();  // the model's admin events
  const Transaction txn = MakeTransaction("t1", "9000.00", "S1", "R1");
  Result<Decision> first = engine.DecideAndWait(txn, clock_.MonotonicNanos());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Result<Decision> again = engine.DecideAndWait(txn, clock_.MonotonicNanos());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->decision_id, first->decision_id);
  EXPECT_EQ(again->outcome, first->outcome);
  EXPECT_EQ(again->score, first->score);
  // As stored (its timings end before the commit), not decided again.
  Result<std::optional<Decision>> stored = engine.FindDecision(Caller{}.tenant, first->decision_id);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ(again->timings.total_us, (*stored)->timings.total_us);
  EXPECT_EQ(again->timings.journal_us, 0);
  EXPECT_EQ(engine.journal().durable_sequence(), seq + 1);  // nothing new journaled
}

TEST_F(DecideTest, TheSameTransactionIdWithAnotherBodyIsAConflict) {
  Engine& engine = Start();
  const uint64_t seq = engine.journal().durable_sequence();
  ASSERT_TRUE(engine.DecideAndWait(MakeTransaction("t1", "9000.00", "S1", "R1"), 0).ok());
  Result<Decision> other = engine.DecideAndWait(MakeTransaction("t1", "9001.00", "S1", "R1"), 0);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(other.status().field(), "transaction_id");
  // The engine's own check, under the account locks, not the journal's last line of defence.
  EXPECT_NE(other.status().message().find("different transaction body"), std::string::npos)
      << other.status().ToString();
  EXPECT_EQ(engine.journal().durable_sequence(), seq + 1);
}

TEST_F(DecideTest, AnOpenBreakerSendsTheNextDecisionDownTheFallbackPath) {
  // Every scoring overruns (the clock moves 10 µs a reading), and one failure opens the breaker
  // for longer than the test runs.
  options_.model_budget_us = 1;
  options_.sched.breaker.failures_to_open = 1;
  options_.sched.breaker.open_for_us = int64_t{3600} * 1'000'000;
  Engine& engine = Start();
  Result<Decision> first = engine.DecideAndWait(MakeTransaction("t1", "12.00", "S1", "R1"), 0);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->path, DecisionPath::kModel);
  Result<Decision> second = engine.DecideAndWait(MakeTransaction("t2", "12.00", "S2", "R2"), 0);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->path, DecisionPath::kFallback);
  ASSERT_TRUE(HasReason(*second, "FALLBACK"));
  EXPECT_FALSE(HasReason(*second, "DRIFT_FREEZE"));
  for (const Reason& r : second->reasons) {
    if (r.code == "FALLBACK") {
      EXPECT_NE(r.message.find("circuit breaker"), std::string::npos);
    }
  }
  EXPECT_TRUE(second->contributions.empty());  // no model, no explanation
}

TEST_F(DecideTest, AFrozenDriftMonitorDecidesByRulesAloneAndSaysSo) {
  // One 1 s window, judged on its own.
  options_.drift.windows_s = {1};
  options_.drift.count_windows = {};
  // Every decision counts, the first judged window sets the level, and L3 freezes.
  options_.drift.min_account_history_days = 0;
  options_.drift.escalate_after_windows = 1;
  options_.drift.freeze_model = true;
  Engine& engine = Start();
  monitor::DriftMonitor* drift = engine.drift(Caller{}.tenant);
  ASSERT_NE(drift, nullptr) << "the demo model has a reference.json";
  // Traffic nothing like the reference: every feature 0 and every score at the top.
  const FeatureVector zeros{};
  for (int i = 0; i < 2000; ++i) drift->Observe(zeros, 0.999);
  drift->Tick(clock_.NowMicros());
  ASSERT_TRUE(drift->frozen()) << "level " << drift->Snapshot().level;

  Result<Decision> decided = engine.DecideAndWait(MakeTransaction("t1", "12.00", "S1", "R1"), 0);
  ASSERT_TRUE(decided.ok()) << decided.status().ToString();
  EXPECT_EQ(decided->path, DecisionPath::kFallback);
  EXPECT_TRUE(HasReason(*decided, "DRIFT_FREEZE"));
  EXPECT_FALSE(HasReason(*decided, "FALLBACK"));
  // The model it would have used is still recorded (I4), though it did not score.
  EXPECT_FALSE(decided->model.name.empty());
  EXPECT_EQ(decided->score, 0);
}

TEST_F(DecideTest, AJournalRefusalLeavesBothAccountsAsTheyWere) {
  Engine& engine = Start();
  const uint64_t seq = engine.journal().durable_sequence();
  Result<Decision> first =
      engine.DecideAndWait(MakeTransaction("t1", "100.00", "S1", "R1", "2026-12-02T10:00:00Z"), 0);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // A transaction id the journal refuses (a NUL byte), after the features were read and both
  // accounts updated in memory.
  Transaction refused_txn = MakeTransaction("t2", "100.00", "S1", "R1", "2026-12-02T10:00:10Z");
  refused_txn.transaction_id = std::string("t2\0x", 4);
  Result<Decision> refused = engine.DecideAndWait(refused_txn, 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.status().ToString();
  EXPECT_EQ(engine.journal().durable_sequence(), seq + 1);

  // The next transaction between the same accounts sees t1 only, on both sides (I3).
  Result<Decision> next =
      engine.DecideAndWait(MakeTransaction("t3", "100.00", "S1", "R1", "2026-12-02T10:00:20Z"), 0);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  const std::vector<double> features = RecordedFeatures(*next);
  ASSERT_EQ(features.size(), kFeatureCount);
  EXPECT_EQ(features[kSenderOutCount1h], 1);
  EXPECT_EQ(features[kSenderOutSum1h], 100);
  EXPECT_EQ(features[kReceiverInCount1h], 1);
  EXPECT_EQ(features[kReceiverInSum1h], 100);
}

}  // namespace
}  // namespace verdict
