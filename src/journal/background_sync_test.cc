// BackgroundSync: a sync runs once asked for, on its own thread; Wait reports how it ended, and
// keeps reporting a failure.
#include "journal/background_sync.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

namespace verdict::journal {
namespace {

TEST(BackgroundSyncTest, WaitWithNothingAskedForIsOkAndRunsNothing) {
  std::atomic<int> runs{0};
  BackgroundSync sync([&] { return ++runs, Status::Ok(); }, "test-sync");
  EXPECT_TRUE(sync.Wait().ok());
  EXPECT_EQ(runs.load(), 0);
}

TEST(BackgroundSyncTest, StartRunsTheSyncOnAnotherThreadAndWaitWaitsForIt) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> on_caller{false};
  std::atomic<int> runs{0};
  const auto caller = std::this_thread::get_id();
  BackgroundSync sync(
      [&] {
        on_caller = std::this_thread::get_id() == caller;
        released.wait();  // Start has returned by now: it does not wait for the sync
        ++runs;
        return Status::Ok();
      },
      "test-sync");
  sync.Start();
  EXPECT_TRUE(sync.Running());  // the sync waits for the release
  release.set_value();
  EXPECT_TRUE(sync.Wait().ok());
  EXPECT_FALSE(sync.Running());
  EXPECT_EQ(runs.load(), 1);
  EXPECT_FALSE(on_caller.load());
}

TEST(BackgroundSyncTest, WaitReturnsOnlyOnceTheSyncHasEnded) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  BackgroundSync sync(
      [&] {
        released.wait();
        return Status::Ok();
      },
      "test-sync");
  sync.Start();
  std::future<Status> waited = std::async(std::launch::async, [&] { return sync.Wait(); });
  // Not a timing claim: a Wait that returned early would be ready here; one that waits never is.
  EXPECT_EQ(waited.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  release.set_value();
  EXPECT_TRUE(waited.get().ok());
}

TEST(BackgroundSyncTest, AFailureStaysReportedAfterLaterSyncsSucceed) {
  std::atomic<int> runs{0};
  BackgroundSync sync([&] { return ++runs == 1 ? Unavailable("disk gone") : Status::Ok(); },
                      "test-sync");
  sync.Start();
  Status first = sync.Wait();
  EXPECT_FALSE(first.ok());
  EXPECT_EQ(first.message(), "disk gone");
  sync.Start();
  EXPECT_FALSE(sync.Wait().ok());
  EXPECT_EQ(runs.load(), 2);
}

TEST(BackgroundSyncTest, ASyncAskedForBeforeDestructionStillRuns) {
  std::atomic<int> runs{0};
  {
    BackgroundSync sync([&] { return ++runs, Status::Ok(); }, "test-sync");
    sync.Start();
  }
  EXPECT_EQ(runs.load(), 1);
}

}  // namespace
}  // namespace verdict::journal
