#include "sched/worker_pool.h"

#include <algorithm>

namespace verdict {

WorkerPool::WorkerPool(size_t workers, size_t capacity) : capacity_(capacity) {
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
  for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { Run(); });
}

WorkerPool::~WorkerPool() { Stop(); }

bool WorkerPool::TrySubmit(Task task) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(task));
  }
  ready_.notify_one();
  return true;
}

void WorkerPool::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

size_t WorkerPool::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

void WorkerPool::Run() {
  while (true) {
    Task task;
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace verdict
