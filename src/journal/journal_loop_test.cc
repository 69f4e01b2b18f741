// The journal's commit on an event-loop thread (JournalOptions::commit_on_event_loop): what a
// loop thread enqueues while the writer is idle is committed by that thread in its idle step,
// one group for the turn, and a loop thread that blocks on the journal hands its commit to the
// writer instead of waiting for itself.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/event_loop.h"
#include "common/metrics.h"
#include "journal/journal.h"
#include "journal/test_util.h"
#include "journal/verifier.h"

namespace verdict::journal {
namespace {

using testing_util::MakeEntry;
using testing_util::OpenOrDie;
using testing_util::TempDir;

// A loop that is never run: the test's own thread plays its I/O thread and runs its idle work.
class TestLoop : public EventLoop {
 public:
  void Post(std::function<void()> work) override { posted.push_back(std::move(work)); }
  std::vector<std::function<void()>> posted;
};

// Installs `loop` as the calling thread's for the scope.
class OnLoop {
 public:
  explicit OnLoop(EventLoop* loop) { EventLoop::SetCurrent(loop); }
  ~OnLoop() {
    EventLoop::RunIdleWork();  // nothing may outlive the test's journal
    EventLoop::SetCurrent(nullptr);
  }
  OnLoop(const OnLoop&) = delete;
  OnLoop& operator=(const OnLoop&) = delete;
};

JournalOptions LoopOptions(const TempDir& dir, bool commit_on_event_loop,
                           MetricsRegistry* metrics = nullptr) {
  JournalOptions o;
  o.data_dir = dir.Sub("data");
  o.commit_on_event_loop = commit_on_event_loop;
  o.metrics = metrics;
  return o;
}

// Records each commit callback's sequence number and thread.
struct Commits {
  std::mutex mu;
  std::vector<uint64_t> seqs;
  std::vector<std::thread::id> threads;
  CommitCallback Callback() {
    return [this](const Result<CommitInfo>& r) {
      std::lock_guard lock(mu);
      seqs.push_back(r.ok() ? r->seq : 0);
      threads.push_back(std::this_thread::get_id());
    };
  }
};

void ExpectChainVerifies(const TempDir& dir, uint64_t records) {
  VerifyOptions vo;
  vo.data_dir = dir.Sub("data");
  Result<VerifyReport> report = Verify(vo);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok) << report->problem;
  EXPECT_EQ(report->records, records);
}

TEST(JournalLoopTest, ATurnsEntriesAreCommittedTogetherOnTheLoopThreadInItsIdleStep) {
  TempDir dir;
  MetricsRegistry metrics;
  auto j = OpenOrDie(LoopOptions(dir, /*commit_on_event_loop=*/true, &metrics));
  ASSERT_NE(j, nullptr);
  Counter* loop_commits = metrics.GetCounter("verdict_journal_loop_commits_total", "");
  Counter* commits_total = metrics.GetCounter("verdict_journal_commits_total", "");
  TestLoop loop;
  Commits commits;
  {
    OnLoop on(&loop);
    for (uint64_t i = 1; i <= 3; ++i)
      ASSERT_TRUE(j->Enqueue(MakeEntry(i), commits.Callback()).ok());
    // The writer was not woken: the turn's entries wait for the loop's idle step.
    EXPECT_TRUE(EventLoop::HasIdleWork());
    EXPECT_EQ(j->durable_sequence(), 0u);
    EventLoop::RunIdleWork();
    EXPECT_EQ(j->durable_sequence(), 3u);
  }
  EXPECT_EQ(loop_commits->value(), 1u);  // one group for the turn
  EXPECT_EQ(commits_total->value(), 1u);
  ASSERT_EQ(commits.seqs, (std::vector<uint64_t>{1, 2, 3}));
  for (const std::thread::id& t : commits.threads) EXPECT_EQ(t, std::this_thread::get_id());
  EXPECT_TRUE(loop.posted.empty());
  j.reset();
  ExpectChainVerifies(dir, 3);
}

TEST(JournalLoopTest, WithoutTheOptionTheWriterCommitsALoopThreadsEntries) {
  TempDir dir;
  auto j = OpenOrDie(LoopOptions(dir, /*commit_on_event_loop=*/false));
  ASSERT_NE(j, nullptr);
  TestLoop loop;
  Commits commits;
  {
    OnLoop on(&loop);
    ASSERT_TRUE(j->Enqueue(MakeEntry(1), commits.Callback()).ok());
    EXPECT_FALSE(EventLoop::HasIdleWork());
    ASSERT_TRUE(j->Flush().ok());
  }
  ASSERT_EQ(commits.threads.size(), 1u);
  EXPECT_NE(commits.threads[0], std::this_thread::get_id());
}

TEST(JournalLoopTest, EntriesFromOtherThreadsAndTheLoopsCommitInSequenceOrder) {
  TempDir dir;
  auto j = OpenOrDie(LoopOptions(dir, /*commit_on_event_loop=*/true));
  ASSERT_NE(j, nullptr);
  TestLoop loop;
  Commits commits;
  {
    OnLoop on(&loop);
    ASSERT_TRUE(j->Enqueue(MakeEntry(1), commits.Callback()).ok());
    // A thread without a loop (a worker) enqueues behind it: its entry is held for no idle
    // step, so it wakes the idle writer, which takes the queue; the loop's step then finds it
    // taken or empty, or takes what the writer left, in order either way.
    std::thread([&] { EXPECT_TRUE(j->Enqueue(MakeEntry(2), commits.Callback()).ok()); }).join();
    ASSERT_TRUE(j->Enqueue(MakeEntry(3), commits.Callback()).ok());
    EventLoop::RunIdleWork();
    ASSERT_TRUE(j->Flush().ok());
    EXPECT_EQ(j->durable_sequence(), 3u);
  }
  // Then the writer again, and the loop again: one chain across both.
  ASSERT_TRUE(j->Enqueue(MakeEntry(4), commits.Callback()).ok());
  ASSERT_TRUE(j->Flush().ok());
  {
    OnLoop on(&loop);  // the writer may still hold its group: then it takes this one too
    ASSERT_TRUE(j->Enqueue(MakeEntry(5), commits.Callback()).ok());
  }
  ASSERT_TRUE(j->Flush().ok());
  EXPECT_EQ(commits.seqs, (std::vector<uint64_t>{1, 2, 3, 4, 5}));
  j.reset();
  ExpectChainVerifies(dir, 5);
}

// A loop thread that blocks until its own entry is durable would wait for its own idle step:
// Flush, RecordAdminEvent and the engine's DecideAndWait hand the commit to the writer first.
TEST(JournalLoopTest, ALoopThreadThatBlocksOnTheJournalDoesNotWaitForItself) {
  TempDir dir;
  JournalOptions o = LoopOptions(dir, /*commit_on_event_loop=*/true);
  // A checkpoint with every group: the idle writer then waits without its 50 ms checkpoint
  // poll, which would otherwise end a wait on itself by taking the queue late.
  o.checkpoint_every_records = 1;
  auto j = OpenOrDie(o);
  ASSERT_NE(j, nullptr);
  TestLoop loop;
  Commits commits;
  {
    OnLoop on(&loop);
    ASSERT_TRUE(j->Enqueue(MakeEntry(1), commits.Callback()).ok());
    ASSERT_TRUE(j->Flush().ok());
    EXPECT_EQ(j->durable_sequence(), 1u);
    // Let the writer go back to waiting (else the next entries would go to it anyway, and the
    // admin event's hand-off would not be exercised).
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(j->Enqueue(MakeEntry(2), commits.Callback()).ok());
    ASSERT_TRUE(
        j->RecordAdminEvent(AdminEvent{"bank-a", "admin-1", "key.create", "k1", "{}"}).ok());
    EXPECT_EQ(j->durable_sequence(), 3u);
    // The idle step queued by the first Enqueue finds nothing left to commit.
    EventLoop::RunIdleWork();
  }
  EXPECT_EQ(commits.seqs, (std::vector<uint64_t>{1, 2}));
  for (const std::thread::id& t : commits.threads) EXPECT_NE(t, std::this_thread::get_id());
  j.reset();
  ExpectChainVerifies(dir, 3);
}

// Two I/O threads of one loop (io_threads > 1): each queues its own idle step, so the second
// thread's entry is committed at the end of its own turn, not whenever the first thread's
// turn ends.
TEST(JournalLoopTest, EachThreadOfALoopCommitsInItsOwnIdleStep) {
  TempDir dir;
  auto j = OpenOrDie(LoopOptions(dir, /*commit_on_event_loop=*/true));
  ASSERT_NE(j, nullptr);
  TestLoop loop;
  Commits commits;
  std::promise<void> first_enqueued;
  std::promise<void> second_done;
  std::thread first([&] {
    OnLoop on(&loop);
    EXPECT_TRUE(j->Enqueue(MakeEntry(1), commits.Callback()).ok());
    first_enqueued.set_value();       // whatever the result, so the test cannot hang here
    second_done.get_future().wait();  // a long turn: its idle step runs only after this
  });
  first_enqueued.get_future().wait();
  std::thread second([&] {
    OnLoop on(&loop);
    ASSERT_TRUE(j->Enqueue(MakeEntry(2), commits.Callback()).ok());
    EXPECT_TRUE(EventLoop::HasIdleWork());
    EventLoop::RunIdleWork();
    EXPECT_EQ(j->durable_sequence(), 2u);  // the first thread's entry went with it
  });
  second.join();
  second_done.set_value();
  first.join();
  EXPECT_EQ(commits.seqs, (std::vector<uint64_t>{1, 2}));
  j.reset();
  ExpectChainVerifies(dir, 2);
}

// A loop thread whose Enqueue finds the queue full (max_pending) hands the queue to the writer
// rather than wait for room that only its own idle step would make.
TEST(JournalLoopTest, AFullQueueOnALoopThreadIsHandedToTheWriter) {
  TempDir dir;
  JournalOptions o = LoopOptions(dir, /*commit_on_event_loop=*/true);
  o.max_pending = 2;
  auto j = OpenOrDie(o);
  ASSERT_NE(j, nullptr);
  TestLoop loop;
  Commits commits;
  {
    OnLoop on(&loop);
    for (uint64_t i = 1; i <= 5; ++i)
      ASSERT_TRUE(j->Enqueue(MakeEntry(i), commits.Callback()).ok());
    ASSERT_TRUE(j->Flush().ok());
  }
  EXPECT_EQ(commits.seqs, (std::vector<uint64_t>{1, 2, 3, 4, 5}));
  j.reset();
  ExpectChainVerifies(dir, 5);
}

// Above the group-delay rate the writer's wait for more entries serves better than a loop's
// commit of its own turn: a loop thread's entry then goes to the writer.
TEST(JournalLoopTest, AtAHighRateALoopThreadLeavesTheGroupToTheWriter) {
  TempDir dir;
  ManualClock clock(1'700'000'000'000'000);
  JournalOptions o = LoopOptions(dir, /*commit_on_event_loop=*/true);
  o.clock = &clock;
  o.group_delay_us = 400;
  auto j = OpenOrDie(o);
  ASSERT_NE(j, nullptr);
  // 64 entries per manual millisecond, from a thread without a loop: 64,000/s.
  uint64_t next = 1;
  for (int batch = 0; batch < 12; ++batch, next += 64) {
    for (const auto& r : testing_util::WriteEntries(*j, next, next + 63)) ASSERT_TRUE(r.ok());
    clock.AdvanceMicros(1000);
  }
  // Until the writer waits again after the last batch (else the entry would go to it whatever
  // the rate, and the test would show nothing).
  for (int i = 0; i < 5000 && !j->IdleForTesting(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(j->IdleForTesting());
  TestLoop loop;
  Commits commits;
  {
    OnLoop on(&loop);
    ASSERT_TRUE(j->Enqueue(MakeEntry(next), commits.Callback()).ok());
    EXPECT_FALSE(EventLoop::HasIdleWork());
    ASSERT_TRUE(j->Flush().ok());
  }
  ASSERT_EQ(commits.threads.size(), 1u);
  EXPECT_NE(commits.threads[0], std::this_thread::get_id());
}

}  // namespace
}  // namespace verdict::journal
