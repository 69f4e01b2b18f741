#include "journal/background_sync.h"

#include <pthread.h>

namespace verdict::journal {

BackgroundSync::BackgroundSync(std::function<Status()> sync, const std::string& thread_name)
    : sync_(std::move(sync)) {
  thread_ = std::thread([this] { Run(); });
  pthread_setname_np(thread_.native_handle(), thread_name.substr(0, 15).c_str());
}

BackgroundSync::~BackgroundSync() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.SignalAll();
  thread_.join();
}

void BackgroundSync::Start() {
  {
    MutexLock lock(mu_);
    asked_ = true;
  }
  cv_.SignalAll();
}

Status BackgroundSync::Wait() {
  MutexLock lock(mu_);
  while (asked_ || running_) cv_.Wait(mu_);
  return failure_;
}

bool BackgroundSync::Running() const {
  MutexLock lock(mu_);
  return asked_ || running_;
}

void BackgroundSync::Run() {
  MutexLock lock(mu_);
  for (;;) {
    while (!asked_ && !stop_) cv_.Wait(mu_);
    if (!asked_) return;  // stopping, and nothing asked for
    asked_ = false;
    running_ = true;
    lock.Unlock();
    Status status = sync_();
    lock.Lock();
    running_ = false;
    if (!status.ok() && failure_.ok()) failure_ = std::move(status);
    cv_.SignalAll();
  }
}

}  // namespace verdict::journal
