#include "journal/background_priority.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "journal/store.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace {

constexpr int64_t kAllowanceUs = 500'000;

// A thread standing in for one of RocksDB's pool threads: it runs BeginJob or EndJob on itself
// when told to, and reports its tid.
class PoolThread {
 public:
  explicit PoolThread(BackgroundPriority& priority)
      : priority_(priority), thread_([this] { Run(); }) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return tid_ != 0; });
  }
  ~PoolThread() {
    Do(Step::kExit);
    thread_.join();
  }
  pid_t tid() const { return tid_; }
  int policy() const { return sched_getscheduler(tid_); }
  void Begin() { Do(Step::kBegin); }
  void End() { Do(Step::kEnd); }

 private:
  enum class Step { kNone, kBegin, kEnd, kExit };
  void Do(Step step) {
    std::unique_lock lock(mu_);
    step_ = step;
    cv_.notify_all();
    cv_.wait(lock, [this] { return step_ == Step::kNone || step_ == Step::kExit; });
  }
  void Run() {
    std::unique_lock lock(mu_);
    tid_ = gettid();
    cv_.notify_all();
    for (;;) {
      cv_.wait(lock, [this] { return step_ != Step::kNone; });
      if (step_ == Step::kExit) return;
      if (step_ == Step::kBegin) priority_.BeginJob();
      if (step_ == Step::kEnd) priority_.EndJob();
      step_ = Step::kNone;
      cv_.notify_all();
    }
  }

  BackgroundPriority& priority_;
  std::mutex mu_;
  std::condition_variable cv_;
  Step step_ = Step::kNone;
  pid_t tid_ = 0;
  std::thread thread_;  // last: starts once the members above exist
};

#define SKIP_UNLESS_SUPPORTED()                                                   \
  if (!BackgroundPriority::Supported()) {                                         \
    GTEST_SKIP() << "this process may not leave SCHED_IDLE (no CAP_SYS_NICE and " \
                    "RLIMIT_NICE < 20)";                                          \
  }

TEST(BackgroundPriority, AJobRunsIdleUntilItsAllowanceThenNormal) {
  SKIP_UNLESS_SUPPORTED();
  ManualClock clock(1'000'000);
  BackgroundPriority priority(kAllowanceUs, &clock);
  PoolThread job(priority);
  ASSERT_EQ(job.policy(), SCHED_OTHER);

  job.Begin();
  EXPECT_EQ(job.policy(), SCHED_IDLE);
  EXPECT_EQ(priority.began(), 1u);
  clock.AdvanceMicros(kAllowanceUs - 1);
  EXPECT_EQ(priority.BoostOverdue(), 0);
  EXPECT_EQ(job.policy(), SCHED_IDLE);

  clock.AdvanceMicros(1);
  EXPECT_EQ(priority.BoostOverdue(), 1);
  EXPECT_EQ(job.policy(), SCHED_OTHER);
  EXPECT_EQ(priority.boosted(), 1u);
  clock.AdvanceMicros(kAllowanceUs);
  EXPECT_EQ(priority.BoostOverdue(), 0) << "a job is raised once";

  job.End();
  EXPECT_EQ(job.policy(), SCHED_OTHER);
  EXPECT_EQ(priority.boosted(), 1u);
}

TEST(BackgroundPriority, AJobThatEndsInTimeIsRestoredAndForgotten) {
  SKIP_UNLESS_SUPPORTED();
  ManualClock clock(1'000'000);
  BackgroundPriority priority(kAllowanceUs, &clock);
  PoolThread job(priority);
  job.Begin();
  ASSERT_EQ(job.policy(), SCHED_IDLE);
  job.End();
  EXPECT_EQ(job.policy(), SCHED_OTHER);
  clock.AdvanceMicros(10 * kAllowanceUs);
  EXPECT_EQ(priority.BoostOverdue(), 0);
  EXPECT_EQ(priority.boosted(), 0u);
}

TEST(BackgroundPriority, EachJobHasItsOwnAllowance) {
  SKIP_UNLESS_SUPPORTED();
  ManualClock clock(1'000'000);
  Counter boosts;
  BackgroundPriority priority(kAllowanceUs, &clock, &boosts);
  PoolThread flush(priority);
  PoolThread compaction(priority);
  flush.Begin();
  clock.AdvanceMicros(kAllowanceUs / 2);
  compaction.Begin();
  clock.AdvanceMicros(kAllowanceUs / 2);
  EXPECT_EQ(priority.BoostOverdue(), 1);
  EXPECT_EQ(flush.policy(), SCHED_OTHER);
  EXPECT_EQ(compaction.policy(), SCHED_IDLE);
  clock.AdvanceMicros(kAllowanceUs / 2);
  EXPECT_EQ(priority.BoostOverdue(), 1);
  EXPECT_EQ(compaction.policy(), SCHED_OTHER);
  EXPECT_EQ(boosts.value(), 2u);
  flush.End();
  compaction.End();
}

// A sealed memtable queues another flush behind the running one: every job is raised at once.
TEST(BackgroundPriority, ASealedMemtableRaisesEveryJobAtOnce) {
  SKIP_UNLESS_SUPPORTED();
  ManualClock clock(1'000'000);
  BackgroundPriority priority(kAllowanceUs, &clock);
  PoolThread flush(priority);
  PoolThread compaction(priority);
  flush.Begin();
  compaction.Begin();
  priority.OnMemTableSealed(rocksdb::MemTableInfo{});
  EXPECT_EQ(flush.policy(), SCHED_OTHER);
  EXPECT_EQ(compaction.policy(), SCHED_OTHER);
  EXPECT_EQ(priority.boosted(), 2u);
  clock.AdvanceMicros(kAllowanceUs);
  EXPECT_EQ(priority.BoostOverdue(), 0) << "already raised";
  EXPECT_EQ(priority.BoostAll(), 0);
  flush.End();
  compaction.End();
}

TEST(BackgroundPriority, AfterARaiseJobsBeginAtNormalPriorityForABusyWindow) {
  SKIP_UNLESS_SUPPORTED();
  ManualClock clock(1'000'000);
  BackgroundPriority priority(kAllowanceUs, &clock);
  PoolThread job(priority);
  job.Begin();
  clock.AdvanceMicros(kAllowanceUs);
  ASSERT_EQ(priority.BoostOverdue(), 1);
  job.End();

  job.Begin();
  EXPECT_EQ(job.policy(), SCHED_OTHER) << "the core was busy a moment ago";
  clock.AdvanceMicros(kAllowanceUs);
  EXPECT_EQ(priority.BoostOverdue(), 0) << "nothing to raise";
  job.End();

  clock.AdvanceMicros((BackgroundPriority::kBusyWindowFactor - 1) * kAllowanceUs);
  job.Begin();
  EXPECT_EQ(job.policy(), SCHED_IDLE) << "the window has passed";
  job.End();
  EXPECT_EQ(priority.began(), 3u);
  EXPECT_EQ(priority.boosted(), 1u);
}

// A job that fails has no Completed callback; the next job on its thread replaces it rather than
// leaving a stale entry behind (which would be raised, and counted, for nothing).
TEST(BackgroundPriority, ANewJobOnAThreadReplacesOneThatNeverEnded) {
  SKIP_UNLESS_SUPPORTED();
  ManualClock clock(1'000'000);
  BackgroundPriority priority(kAllowanceUs, &clock);
  PoolThread job(priority);
  job.Begin();
  clock.AdvanceMicros(kAllowanceUs / 2);
  job.Begin();  // the first job's end was never reported
  clock.AdvanceMicros(kAllowanceUs / 2);
  EXPECT_EQ(priority.BoostOverdue(), 0) << "the second job's allowance counts from its start";
  clock.AdvanceMicros(kAllowanceUs / 2);
  EXPECT_EQ(priority.BoostOverdue(), 1);
  EXPECT_EQ(priority.began(), 2u);
  job.End();
  EXPECT_EQ(job.policy(), SCHED_OTHER);
}

TEST(BackgroundPriority, TheStoreReportsItsFlushes) {
  SKIP_UNLESS_SUPPORTED();
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

TEST(BackgroundPriority, AReadOnlyStoreTakesNoListener) {
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
