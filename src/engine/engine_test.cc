// Engine::Decide end to end on a real journal: what the stored record keeps of the answer.
#include "engine/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "api/transaction_json.h"
#include "common/event_loop.h"
#include "engine/engine_test_util.h"
#include "journal/test_util.h"

namespace verdict {
namespace {

using engine_testing::TickingClock;
using journal::testing_util::TempDir;

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

// A loop that is never run: a thread the test starts plays the I/O thread calling DecideAndWait
// (as an admin route's handler would). Work posted to it is kept, never run.
class NeverRunLoop final : public EventLoop {
 public:
  void Post(std::function<void()> work) override { posted.push_back(std::move(work)); }
  std::vector<std::function<void()>> posted;
};

// With commit_on_io_thread a decision enqueued on a loop thread is held for that thread's idle
// step, which cannot run while the thread blocks in DecideAndWait: it must hand the commit to
// the journal's writer rather than wait for itself.
TEST(EngineTest, DecideAndWaitOnALoopThreadHandsItsCommitToTheWriter) {
  TempDir dir;
  EngineOptions options;
  options.data_dir = dir.path();
  options.sched.workers = 1;
  options.journal.commit_on_io_thread = true;
  // A checkpoint with every group: the idle writer never polls for a due checkpoint (it does
  // while records wait for one), which would take the held entry late and hide a missing
  // hand-off should the engine ever journal something as it starts.
  options.journal.checkpoint_every_records = 1;
  MetricsRegistry metrics;
  Result<std::unique_ptr<Engine>> engine =
      Engine::Create(options, metrics, SystemClock::Instance());
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Result<Transaction> txn = TransactionDecoder().DecodeOne(
      R"({"transaction_id":"t1","timestamp":"2026-12-02T10:00:00Z","amount":"12.00",)"
      R"("currency":"USD","sender":{"account":"S1"},"receiver":{"account":"R1"}})");
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();

  NeverRunLoop loop;
  std::promise<Result<Decision>> answered;
  std::future<Result<Decision>> answer = answered.get_future();
  std::thread io_thread([&] {
    EventLoop::SetCurrent(&loop);
    answered.set_value((*engine)->DecideAndWait(*txn, 0));
    EventLoop::RunIdleWork();  // what a loop does as its thread leaves it
    EventLoop::SetCurrent(nullptr);
  });
  const bool in_time = answer.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  // Without the hand-off the thread waits forever: release it from here (Flush hands what is
  // queued to the writer), so that the test fails instead of hanging.
  if (!in_time) {
    EXPECT_TRUE((*engine)->journal().Flush().ok());
  }
  io_thread.join();
  EXPECT_TRUE(in_time) << "DecideAndWait waited for its own thread's idle step";
  Result<Decision> decision = answer.get();
  ASSERT_TRUE(decision.ok()) << decision.status().ToString();
  EXPECT_EQ((*engine)->journal().durable_sequence(), 1u);
  EXPECT_TRUE(loop.posted.empty());  // the answer did not depend on the loop running
}

}  // namespace
}  // namespace verdict
