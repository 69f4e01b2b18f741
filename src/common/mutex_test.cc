#include "common/mutex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace verdict {
namespace {

class Counter {
 public:
  void Add() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    ++value_;
    cv_.SignalAll();
  }
  int WaitAtLeast(int n) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    while (value_ < n) cv_.Wait(mu_);
    return value_;
  }
  bool WaitAtLeastFor(int n, std::chrono::milliseconds timeout) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (value_ < n) {
      if (!cv_.WaitUntil(mu_, deadline)) return value_ >= n;
    }
    return true;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  int value_ GUARDED_BY(mu_) = 0;
};

TEST(MutexTest, ExcludesConcurrentIncrements) {
  Counter counter;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) counter.Add();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counter.WaitAtLeast(4000), 4000);
}

TEST(MutexTest, WaitWakesOnSignal) {
  Counter counter;
  std::thread adder([&] { counter.Add(); });
  EXPECT_EQ(counter.WaitAtLeast(1), 1);
  adder.join();
}

TEST(MutexTest, WaitUntilReturnsFalseAtDeadline) {
  Counter counter;
  EXPECT_FALSE(counter.WaitAtLeastFor(1, std::chrono::milliseconds(5)));
  counter.Add();
  EXPECT_TRUE(counter.WaitAtLeastFor(1, std::chrono::milliseconds(5)));
}

TEST(MutexTest, TryLockFailsWhileHeldElsewhere) {
  Mutex mu;
  mu.Lock();
  bool taken = true;
  std::thread other([&] {
    taken = false;
    if (mu.TryLock()) {
      taken = true;
      mu.Unlock();
    }
  });
  other.join();
  EXPECT_FALSE(taken);
  mu.AssertHeld();
  mu.Unlock();
}

bool IsFree(Mutex& mu) {
  if (!mu.TryLock()) return false;
  mu.Unlock();
  return true;
}

TEST(MutexTest, MutexLockCanReleaseAndRetake) {
  Mutex mu;
  {
    MutexLock lock(mu);
    lock.Unlock();
    EXPECT_TRUE(IsFree(mu));  // free while released
    lock.Lock();
    mu.AssertHeld();
  }
  EXPECT_TRUE(IsFree(mu));  // the scope released it
}

#ifndef NDEBUG
TEST(MutexDeathTest, AssertHeldAbortsWhenNotHeld) {
  Mutex mu;
  EXPECT_DEATH(mu.AssertHeld(), "");
}
#endif

class Shared {
 public:
  int Read() EXCLUDES(mu_) {
    ReaderLock lock(mu_);
    return value_;
  }
  void Write(int value) EXCLUDES(mu_) {
    WriterLock lock(mu_);
    value_ = value;
  }
  // Two readers at once on one thread: a shared lock does not exclude another shared lock.
  bool ReadTwiceNested() EXCLUDES(mu_) {
    ReaderLock lock(mu_);
    std::thread other([this] { (void)Read(); });
    other.join();
    return value_ >= 0;
  }

 private:
  SharedMutex mu_;
  int value_ GUARDED_BY(mu_) = 0;
};

TEST(SharedMutexTest, ReadersShareWritersExclude) {
  Shared shared;
  EXPECT_TRUE(shared.ReadTwiceNested());
  shared.Write(1);
  EXPECT_EQ(shared.Read(), 1);
}

}  // namespace
}  // namespace verdict
