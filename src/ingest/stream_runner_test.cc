// StreamRunner on a real engine and journal with a scripted transport: every message is
// decided and published before it is committed, a poison message goes to the dead letter, and
// a message delivered again (as after a crash) is answered with the decision already made.
#include "ingest/stream_runner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <thread>

#include "common/clock.h"
#include "journal/test_util.h"

namespace verdict::ingest {
namespace {

using journal::testing_util::TempDir;

std::string Txn(const std::string& id, const std::string& amount = "10.00") {
  return R"({"transaction_id":")" + id + R"(","timestamp":"2026-12-02T10:00:00Z","amount":")" +
         amount + R"(","currency":"USD","sender":{"account":"S1"},"receiver":{"account":"R1"}})";
}

// The "decision_id" of a decision's JSON.
std::string DecisionId(const std::string& json) {
  const std::string key = "\"decision_id\":\"";
  const size_t at = json.find(key);
  if (at == std::string::npos) return "";
  const size_t begin = at + key.size();
  return json.substr(begin, json.find('"', begin) - begin);
}

// A broker in memory: messages queued by the test, publications confirmed at the next Poll.
// Thread-safe (the runner's thread and the test's).
class ScriptedTransport : public StreamTransport {
 public:
  struct Published {
    uint64_t position;
    MessageOutcome outcome;
  };

  void Deliver(std::string payload, uint64_t position) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    InputMessage m;
    m.payload = std::move(payload);
    m.position = position;
    inbox_.push_back(std::move(m));
  }
  std::vector<Published> published() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return published_;
  }
  std::vector<uint64_t> committed() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return committed_;
  }
  // True if every message was committed only after its outcome was published.
  bool CommittedAfterPublishing() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return !commit_before_publish_;
  }

  Status Connect() override { return Status::Ok(); }
  Result<std::optional<InputMessage>> Next(int timeout_ms) override EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      if (!inbox_.empty()) {
        InputMessage m = std::move(inbox_.front());
        inbox_.pop_front();
        return std::optional<InputMessage>(std::move(m));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(timeout_ms, 5)));
    return std::optional<InputMessage>();
  }
  Status Publish(uint64_t id, const InputMessage& message, const MessageOutcome& outcome) override
      EXCLUDES(mu_) {
    MutexLock lock(mu_);
    published_.push_back({message.position, outcome});
    published_positions_.push_back(message.position);
    to_confirm_.push_back(id);
    return Status::Ok();
  }
  Status Poll(std::vector<uint64_t>* confirmed) override EXCLUDES(mu_) {
    MutexLock lock(mu_);
    confirmed->insert(confirmed->end(), to_confirm_.begin(), to_confirm_.end());
    to_confirm_.clear();
    return Status::Ok();
  }
  Status Commit(const InputMessage& message) override EXCLUDES(mu_) {
    MutexLock lock(mu_);
    bool was_published = false;
    for (uint64_t p : published_positions_) was_published |= p == message.position;
    commit_before_publish_ |= !was_published;
    committed_.push_back(message.position);
    return Status::Ok();
  }
  std::optional<int64_t> Lag() override { return std::nullopt; }
  void Close() override {}

 private:
  Mutex mu_;
  std::deque<InputMessage> inbox_ GUARDED_BY(mu_);
  std::vector<Published> published_ GUARDED_BY(mu_);
  std::vector<uint64_t> published_positions_ GUARDED_BY(mu_);
  std::vector<uint64_t> to_confirm_ GUARDED_BY(mu_);
  std::vector<uint64_t> committed_ GUARDED_BY(mu_);
  bool commit_before_publish_ GUARDED_BY(mu_) = false;
};

class StreamRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.data_dir = dir_.path();
    options.sched.workers = 1;
    Result<std::unique_ptr<Engine>> engine =
        Engine::Create(options, metrics_, SystemClock::Instance());
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(engine).value();
    stream_.topic = "payments";
    stream_.decisions_topic = "decisions";
    stream_.dead_letter = "dlq";
    stream_.tenant = "acme";
  }

  TempDir dir_;
  MetricsRegistry metrics_;
  std::unique_ptr<Engine> engine_;
  IngestOptions stream_;
};

TEST_F(StreamRunnerTest, EveryMessageIsDecidedPublishedThenCommitted) {
  // Owned by the runner; read by the test only while the runner lives.
  auto* transport = new ScriptedTransport();
  for (uint64_t i = 0; i < 20; ++i) transport->Deliver(Txn("t" + std::to_string(i)), i);
  transport->Deliver("{not json", 20);
  std::vector<ScriptedTransport::Published> published;
  std::vector<uint64_t> committed;
  bool in_order = false;
  {
    auto owned = std::unique_ptr<StreamTransport>(transport);
    StreamRunner runner(*engine_, stream_, std::move(owned), metrics_);
    runner.Start();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (transport->committed().size() < 21 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    published = transport->published();
    committed = transport->committed();
    in_order = transport->CommittedAfterPublishing();
    runner.Stop();
  }
  ASSERT_EQ(committed.size(), 21u);
  EXPECT_TRUE(in_order);
  size_t decisions = 0;
  size_t dead = 0;
  for (const auto& p : published) {
    if (p.position == 20) {
      EXPECT_TRUE(p.outcome.decisions.empty());
      EXPECT_EQ(p.outcome.dead_letter_error.rfind("{\"errors\":[{\"item\":-1,\"error\":{\"code\":"
                                                  "\"invalid_argument\",",
                                                  0),
                0u)
          << p.outcome.dead_letter_error;
      ++dead;
      continue;
    }
    ASSERT_EQ(p.outcome.decisions.size(), 1u);
    EXPECT_EQ(p.outcome.decisions[0].first, "t" + std::to_string(p.position));
    EXPECT_NE(p.outcome.decisions[0].second.find("\"decision_id\""), std::string::npos);
    ++decisions;
  }
  EXPECT_EQ(decisions, 20u);
  EXPECT_EQ(dead, 1u);
  // The decisions are the tenant's, in the journal.
  Result<std::optional<Decision>> stored = engine_->FindDecisionForTransaction("acme", "t3");
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->has_value());
}

TEST_F(StreamRunnerTest, AMessageReadAgainIsAnsweredWithTheSameDecision) {
  std::string first_json;
  {
    auto* transport = new ScriptedTransport();
    transport->Deliver(Txn("again"), 0);
    auto owned = std::unique_ptr<StreamTransport>(transport);
    StreamRunner runner(*engine_, stream_, std::move(owned), metrics_);
    runner.Start();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (transport->committed().empty() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(transport->published().size(), 1u);
    first_json = transport->published()[0].outcome.decisions.at(0).second;
    runner.Stop();
  }
  // Delivered again (its commit lost in a crash): the stored decision, not a new one.
  auto* transport = new ScriptedTransport();
  transport->Deliver(Txn("again"), 0);
  // A different body under the same id is not decided: it goes to the dead letter.
  transport->Deliver(Txn("again", "99.00"), 1);
  auto owned = std::unique_ptr<StreamTransport>(transport);
  StreamRunner runner(*engine_, stream_, std::move(owned), metrics_);
  runner.Start();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (transport->committed().size() < 2 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::vector<ScriptedTransport::Published> published = transport->published();
  runner.Stop();
  ASSERT_EQ(published.size(), 2u);
  for (const auto& p : published) {
    if (p.position == 0) {
      ASSERT_EQ(p.outcome.decisions.size(), 1u);
      // The stored decision (its journal timing is the original's, so compare the id).
      EXPECT_EQ(DecisionId(p.outcome.decisions[0].second), DecisionId(first_json));
      EXPECT_FALSE(DecisionId(first_json).empty());
    } else {
      EXPECT_TRUE(p.outcome.decisions.empty());
      EXPECT_NE(p.outcome.dead_letter_error.find("already_exists"), std::string::npos)
          << p.outcome.dead_letter_error;
    }
  }
}

TEST_F(StreamRunnerTest, ASaturatedEngineSlowsTheStreamAndLosesNothing) {
  // An engine whose bulk queue holds two: most admissions are refused, and the stream waits.
  engine_.reset();
  TempDir dir;
  EngineOptions options;
  options.data_dir = dir.path();
  options.sched.workers = 1;
  options.sched.bulk_queue_capacity = 2;
  options.sched.inline_when_idle = false;
  MetricsRegistry metrics;
  Result<std::unique_ptr<Engine>> engine =
      Engine::Create(options, metrics, SystemClock::Instance());
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  stream_.priority = Priority::kBulk;
  stream_.max_in_flight = 64;
  auto* transport = new ScriptedTransport();
  constexpr size_t kMessages = 200;
  for (uint64_t i = 0; i < kMessages; ++i) transport->Deliver(Txn("b" + std::to_string(i)), i);
  std::vector<ScriptedTransport::Published> published;
  {
    auto owned = std::unique_ptr<StreamTransport>(transport);
    StreamRunner runner(**engine, stream_, std::move(owned), metrics);
    runner.Start();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (transport->committed().size() < kMessages &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    published = transport->published();
    runner.Stop();
  }
  ASSERT_EQ(published.size(), kMessages);
  for (const auto& p : published) {
    EXPECT_EQ(p.outcome.decisions.size(), 1u) << p.outcome.dead_letter_error;
  }
  const std::string text = metrics.RenderPrometheus();
  // Refused admissions were waited out, not dropped or dead-lettered.
  const std::string waits = "verdict_ingest_backpressure_waits_total{stream=\"kafka:payments\"} ";
  const size_t at = text.find(waits);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_GT(std::stoll(text.substr(at + waits.size())), 0) << text;
  EXPECT_NE(text.find("verdict_ingest_messages_total{stream=\"kafka:payments\",result=\"decided\"} "
                      "200\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace verdict::ingest
