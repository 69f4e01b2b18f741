#include "engine/report_worker.h"

#include <utility>

namespace verdict {

ReportWorker::ReportWorker(size_t max_queued)
    : max_queued_(max_queued), thread_([this] { Loop(); }) {}

ReportWorker::~ReportWorker() {
  std::deque<Job> left;
  {
    MutexLock lock(mu_);
    stopping_ = true;
    left.swap(jobs_);
  }
  cv_.SignalAll();
  // Told before the join: they are answered without waiting for the job that runs.
  for (Job& job : left) job(false);
  thread_.join();
}

bool ReportWorker::Post(Job job) {
  {
    MutexLock lock(mu_);
    if (stopping_ || jobs_.size() >= max_queued_) return false;
    jobs_.push_back(std::move(job));
  }
  cv_.Signal();
  return true;
}

void ReportWorker::Loop() {
  for (;;) {
    Job job;
    {
      MutexLock lock(mu_);
      while (!stopping_ && jobs_.empty()) cv_.Wait(mu_);
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job(true);
  }
}

}  // namespace verdict
