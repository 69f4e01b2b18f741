// WorkerPool: a bounded FIFO of tasks run by a fixed set of worker threads. Thread-safe.
// The skeleton's scheduler; the priority scheduler (issue 7) replaces it behind TrySubmit.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace verdict {

class WorkerPool {
 public:
  using Task = std::function<void()>;

  // `workers` 0 means one per hardware thread.
  WorkerPool(size_t workers, size_t capacity);
  ~WorkerPool();  // runs what is queued, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // False when the queue is full or the pool is stopping: the caller answers 429/503.
  bool TrySubmit(Task task);
  void Stop();

  size_t worker_count() const { return threads_.size(); }
  size_t queued() const;

 private:
  void Run();

  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Task> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace verdict
