#include "journal/background_priority.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "journal/store.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace {

constexpr int64_t kAllowanceUs = 500'000;
constexpr pid_t kFlushTid = 101;
constexpr pid_t kCompactionTid = 102;
using Kind = BackgroundPriority::Kind;

// Records each thread's policy instead of setting it; `on_lower` runs just before a lowering
// takes effect, to stand for a raise racing with it.
struct FakePolicies {
  std::mutex mu;
  std::map<pid_t, int> policy;
  std::function<void()> on_lower;
  BackgroundPriority::PolicySetter Setter() {
    return [this](pid_t tid, int p) {
      if (p == SCHED_IDLE && on_lower) on_lower();  // lands just before the lowering
      std::lock_guard lock(mu);
      policy[tid] = p;
      return true;
    };
  }
  int Of(pid_t tid) {
    std::lock_guard lock(mu);
    auto it = policy.find(tid);
    return it == policy.end() ? -1 : it->second;
  }
};

class BackgroundPriorityTest : public ::testing::Test {
 protected:
  ManualClock clock_{1'000'000};
  FakePolicies fake_;
  Counter boosts_;
  BackgroundPriority priority_{kAllowanceUs, &clock_, &boosts_, fake_.Setter()};
};

TEST_F(BackgroundPriorityTest, AJobRunsIdleUntilItsAllowanceThenNormal) {
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_IDLE);
  clock_.AdvanceMicros(kAllowanceUs - 1);
  EXPECT_EQ(priority_.Poll(), 0);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_IDLE);
  clock_.AdvanceMicros(1);
  EXPECT_EQ(priority_.Poll(), 1);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER);
  clock_.AdvanceMicros(kAllowanceUs);
  EXPECT_EQ(priority_.Poll(), 0) << "a job is raised once";
  priority_.EndJob(kFlushTid);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER);
  EXPECT_EQ(priority_.boosted(), 1u);
  EXPECT_EQ(boosts_.value(), 1u);
}

TEST_F(BackgroundPriorityTest, AJobThatEndsInTimeIsRestoredAndForgotten) {
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  priority_.EndJob(kFlushTid);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER);
  clock_.AdvanceMicros(10 * kAllowanceUs);
  EXPECT_EQ(priority_.Poll(), 0);
  EXPECT_EQ(priority_.boosted(), 0u);
}

TEST_F(BackgroundPriorityTest, EachJobHasItsOwnAllowance) {
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  clock_.AdvanceMicros(kAllowanceUs / 2);
  priority_.BeginJob(kCompactionTid, Kind::kCompaction);
  clock_.AdvanceMicros(kAllowanceUs / 2);
  EXPECT_EQ(priority_.Poll(), 1);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER);
  EXPECT_EQ(fake_.Of(kCompactionTid), SCHED_IDLE);
  clock_.AdvanceMicros(kAllowanceUs / 2);
  EXPECT_EQ(priority_.Poll(), 1);
  EXPECT_EQ(fake_.Of(kCompactionTid), SCHED_OTHER);
}

// A sealed memtable queues another flush behind the running one: flushes are raised at once;
// a compaction is no part of that queue.
TEST_F(BackgroundPriorityTest, ASealedMemtableRaisesTheFlushesAtOnce) {
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  priority_.BeginJob(kCompactionTid, Kind::kCompaction);
  priority_.OnMemTableSealed(rocksdb::MemTableInfo{});
  EXPECT_EQ(priority_.Poll(), 1);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER);
  EXPECT_EQ(fake_.Of(kCompactionTid), SCHED_IDLE);
}

TEST_F(BackgroundPriorityTest, AWriteStallRaisesEveryJobAndANormalConditionNone) {
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  priority_.BeginJob(kCompactionTid, Kind::kCompaction);
  rocksdb::WriteStallInfo info;
  info.condition.cur = rocksdb::WriteStallCondition::kNormal;
  info.condition.prev = rocksdb::WriteStallCondition::kDelayed;
  priority_.OnStallConditionsChanged(info);
  EXPECT_EQ(priority_.Poll(), 0);
  info.condition.cur = rocksdb::WriteStallCondition::kStopped;
  priority_.OnStallConditionsChanged(info);
  EXPECT_EQ(priority_.Poll(), 2);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER);
  EXPECT_EQ(fake_.Of(kCompactionTid), SCHED_OTHER);
}

TEST_F(BackgroundPriorityTest, AfterARaiseJobsBeginAtNormalPriorityForABusyWindow) {
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  clock_.AdvanceMicros(kAllowanceUs);
  ASSERT_EQ(priority_.Poll(), 1);
  priority_.EndJob(kFlushTid);

  priority_.BeginJob(kFlushTid, Kind::kFlush);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER) << "the core was busy a moment ago";
  clock_.AdvanceMicros(kAllowanceUs);
  EXPECT_EQ(priority_.Poll(), 0) << "nothing to raise";
  priority_.EndJob(kFlushTid);

  clock_.AdvanceMicros((BackgroundPriority::kBusyWindowFactor - 1) * kAllowanceUs);
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_IDLE) << "the window has passed";
  EXPECT_EQ(priority_.began(), 3u);
}

// A job that fails has no Completed callback. The next job on its thread replaces it, and one
// that begins in a busy window is set back to normal priority, not left idle unregistered.
TEST_F(BackgroundPriorityTest, ANewJobOnAThreadReplacesOneThatNeverEnded) {
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  clock_.AdvanceMicros(kAllowanceUs / 2);
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  clock_.AdvanceMicros(kAllowanceUs / 2);
  EXPECT_EQ(priority_.Poll(), 0) << "the second job's allowance counts from its start";

  priority_.BeginJob(kCompactionTid, Kind::kCompaction);
  clock_.AdvanceMicros(kAllowanceUs / 2);
  EXPECT_EQ(priority_.Poll(), 1) << "the second flush";
  ASSERT_EQ(fake_.Of(kCompactionTid), SCHED_IDLE);
  priority_.BeginJob(kCompactionTid, Kind::kCompaction);  // the compaction failed silently
  EXPECT_EQ(fake_.Of(kCompactionTid), SCHED_OTHER);
  clock_.AdvanceMicros(kAllowanceUs);
  EXPECT_EQ(priority_.Poll(), 0) << "no stale entry left to raise";
}

TEST_F(BackgroundPriorityTest, ARaiseWhileAJobLowersItselfIsNotUndone) {
  fake_.on_lower = [this] {
    fake_.on_lower = nullptr;
    priority_.OnMemTableSealed(rocksdb::MemTableInfo{});
    priority_.Poll();  // the watchdog, between the job's registration and its lowering
  };
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER);
  EXPECT_EQ(priority_.boosted(), 1u);
}

TEST_F(BackgroundPriorityTest, CloseRaisesEveryJobAndLowersNoMore) {
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  priority_.BeginJob(kCompactionTid, Kind::kCompaction);
  priority_.Close();
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER);
  EXPECT_EQ(fake_.Of(kCompactionTid), SCHED_OTHER);
  priority_.EndJob(kFlushTid);
  priority_.BeginJob(kFlushTid, Kind::kFlush);
  EXPECT_EQ(fake_.Of(kFlushTid), SCHED_OTHER);
  priority_.Close();  // idempotent
}

TEST(BackgroundPriorityWatchdogTest, RaisesAJobPastItsAllowanceWithoutAnyCall) {
  FakePolicies fake;
  BackgroundPriority priority(/*idle_allowance_us=*/1000, &SystemClock::Instance(), nullptr,
                              fake.Setter());
  priority.StartWatchdog();
  priority.BeginJob(kFlushTid, Kind::kFlush);
  for (int i = 0; i < 1000 && fake.Of(kFlushTid) != SCHED_OTHER; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(fake.Of(kFlushTid), SCHED_OTHER);
  EXPECT_EQ(priority.boosted(), 1u);
}

bool SystemPoliciesChangeable() { return BackgroundPriority::Supported(); }

TEST(BackgroundPrioritySystemTest, AThreadIsLoweredAndRaisedForReal) {
  if (!SystemPoliciesChangeable()) {
    GTEST_SKIP() << "this process may not leave SCHED_IDLE (no CAP_SYS_NICE, RLIMIT_NICE < 20)";
  }
  ManualClock clock(1'000'000);
  BackgroundPriority priority(kAllowanceUs, &clock);
  int during = -1;
  int after_raise = -1;
  int after_end = -1;
  std::thread job([&] {
    const pid_t tid = gettid();
    priority.BeginJob(tid, Kind::kFlush);
    during = sched_getscheduler(0);
    clock.AdvanceMicros(kAllowanceUs);
    priority.Poll();
    after_raise = sched_getscheduler(0);
    priority.EndJob(tid);
    after_end = sched_getscheduler(0);
  });
  job.join();
  EXPECT_EQ(during, SCHED_IDLE);
  EXPECT_EQ(after_raise, SCHED_OTHER);
  EXPECT_EQ(after_end, SCHED_OTHER);
}

TEST(BackgroundPrioritySystemTest, TheStoreReportsItsFlushes) {
  if (!SystemPoliciesChangeable()) {
    GTEST_SKIP() << "this process may not leave SCHED_IDLE (no CAP_SYS_NICE, RLIMIT_NICE < 20)";
  }
  testing_util::TempDir dir;
  auto priority = std::make_shared<BackgroundPriority>(kAllowanceUs, &SystemClock::Instance());
  StoreOptions options;
  options.data_dir = dir.path();
  options.background_priority = priority;
  Result<std::unique_ptr<JournalStore>> store = JournalStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const uint64_t before = priority->began();
  rocksdb::WriteBatch batch;
  ASSERT_TRUE(batch.Put((*store)->handle(Cf::kState), "account", "state").ok());
  ASSERT_TRUE((*store)->Write(batch, /*sync=*/false).ok());
  rocksdb::FlushOptions flush;
  flush.wait = true;
  ASSERT_TRUE((*store)->db()->Flush(flush, (*store)->handle(Cf::kState)).ok());
  EXPECT_GT(priority->began(), before);
}

TEST(BackgroundPriorityStoreTest, AReadOnlyStoreTakesNoListener) {
  testing_util::TempDir dir;
  {
    StoreOptions options;
    options.data_dir = dir.path();
    ASSERT_TRUE(JournalStore::Open(options).ok());
  }
  auto priority = std::make_shared<BackgroundPriority>(kAllowanceUs, &SystemClock::Instance());
  StoreOptions options;
  options.data_dir = dir.path();
  options.read_only = true;
  options.create_if_missing = false;
  options.background_priority = priority;
  Result<std::unique_ptr<JournalStore>> store = JournalStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  options.background_priority.reset();
  EXPECT_EQ(priority.use_count(), 1) << "the store kept the listener";
}

}  // namespace
}  // namespace verdict::journal
