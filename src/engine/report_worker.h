// ReportWorker: the one thread that produces case reports away from the I/O threads. A report
// proves its record's inclusion by reading every journal record of the tree it proves against
// (a few hundred milliseconds at 90,000 records, docs/PERFORMANCE.md "Case reports") and
// journals its export with an fsync; on an I/O thread either would hold up every connection of
// that thread, decisions included (I5). Jobs run one at a time, in order; at most `max_queued`
// wait. Thread-safe; owns its thread, which the destructor joins after telling the jobs still
// waiting that they will not run.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <thread>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace verdict {

class ReportWorker {
 public:
  // Called exactly once: with true on the worker's thread, or with false from the destructor
  // when the job will not run (the engine is stopping).
  using Job = std::function<void(bool run)>;

  explicit ReportWorker(size_t max_queued);
  ~ReportWorker();
  ReportWorker(const ReportWorker&) = delete;
  ReportWorker& operator=(const ReportWorker&) = delete;

  // False, and `job` dropped without being called, when max_queued jobs are already waiting.
  bool Post(Job job) EXCLUDES(mu_);

 private:
  void Loop() EXCLUDES(mu_);

  const size_t max_queued_;
  Mutex mu_;
  CondVar cv_;
  std::deque<Job> jobs_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace verdict
