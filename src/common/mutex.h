// Mutex, SharedMutex and CondVar: std::mutex, std::shared_mutex and std::condition_variable
// with clang's thread-safety annotations (common/thread_annotations.h), as Abseil's Mutex and
// LevelDB's port::Mutex, so that -Wthread-safety checks every GUARDED_BY member and every
// REQUIRES/EXCLUDES function. Debug builds also record the holder, so AssertHeld() checks at
// run time what the annotation claims. Thread-safe; not copyable or movable.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#ifndef NDEBUG
#include <atomic>
#include <cassert>
#include <thread>
#endif

#include "common/thread_annotations.h"

namespace verdict {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() {
    mu_.lock();
    MarkHeld();
  }
  void Unlock() RELEASE() {
    MarkReleased();
    mu_.unlock();
  }
  bool TryLock() TRY_ACQUIRE(true) {
    if (!mu_.try_lock()) return false;
    MarkHeld();
    return true;
  }
  // Debug builds: aborts unless the calling thread holds the lock. Release builds: nothing.
  void AssertHeld() const ASSERT_CAPABILITY(this) {
#ifndef NDEBUG
    assert(holder_.load(std::memory_order_relaxed) == std::this_thread::get_id());
#endif
  }

 private:
  friend class CondVar;

  void MarkHeld() {
#ifndef NDEBUG
    holder_.store(std::this_thread::get_id(), std::memory_order_relaxed);
#endif
  }
  void MarkReleased() {
#ifndef NDEBUG
    holder_.store(std::thread::id(), std::memory_order_relaxed);
#endif
  }

  std::mutex mu_;
#ifndef NDEBUG
  std::atomic<std::thread::id> holder_{};
#endif
};

// Many readers or one writer. Lock/Unlock take it exclusively, LockShared/UnlockShared shared.
class CAPABILITY("shared_mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  void LockShared() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void UnlockShared() RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds a Mutex for its scope. Unlock() and Lock() release and take it again inside the scope
// (e.g. around a callback that must not run under the lock); the destructor releases it only
// if held.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~MutexLock() RELEASE() {
    if (held_) mu_.Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() RELEASE() {
    mu_.Unlock();
    held_ = false;
  }
  void Lock() ACQUIRE() {
    mu_.Lock();
    held_ = true;
  }

 private:
  Mutex& mu_;
  bool held_ = true;
};

// Holds a SharedMutex shared (ReaderLock) or exclusively (WriterLock) for its scope.
class SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex& mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu_.LockShared(); }
  ~ReaderLock() RELEASE() { mu_.UnlockShared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex& mu_;
};

class SCOPED_CAPABILITY WriterLock {
 public:
  explicit WriterLock(SharedMutex& mu) ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~WriterLock() RELEASE() { mu_.Unlock(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  SharedMutex& mu_;
};

// A condition variable bound to a Mutex at each wait. The analysis cannot see into a predicate
// lambda, so waits are written as loops in the caller:
//   while (!ready_) cv_.Wait(mu_);
// Each wait may wake spuriously; the loop re-checks.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void Wait(Mutex& mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    mu.MarkReleased();
    cv_.wait(lock);
    mu.MarkHeld();
    lock.release();
  }
  // False when the deadline passed (the lock is held again either way).
  template <typename ClockType, typename Duration>
  bool WaitUntil(Mutex& mu, const std::chrono::time_point<ClockType, Duration>& deadline)
      REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    mu.MarkReleased();
    const std::cv_status status = cv_.wait_until(lock, deadline);
    mu.MarkHeld();
    lock.release();
    return status == std::cv_status::no_timeout;
  }
  template <typename Rep, typename Period>
  bool WaitFor(Mutex& mu, const std::chrono::duration<Rep, Period>& timeout) REQUIRES(mu) {
    return WaitUntil(mu, std::chrono::steady_clock::now() + timeout);
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace verdict
