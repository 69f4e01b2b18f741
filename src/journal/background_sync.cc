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
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BackgroundSync::Start() {
  {
    std::lock_guard lock(mu_);
    asked_ = true;
  }
  cv_.notify_all();
}

Status BackgroundSync::Wait() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return !asked_ && !running_; });
  return failure_;
}

bool BackgroundSync::Running() const {
  std::lock_guard lock(mu_);
  return asked_ || running_;
}

void BackgroundSync::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return asked_ || stop_; });
    if (!asked_) return;  // stopping, and nothing asked for
    asked_ = false;
    running_ = true;
    lock.unlock();
    Status status = sync_();
    lock.lock();
    running_ = false;
    if (!status.ok() && failure_.ok()) failure_ = std::move(status);
    cv_.notify_all();
  }
}

}  // namespace verdict::journal
