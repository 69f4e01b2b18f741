// SpanQueue: the bounded hand-off between the threads that answer decisions (producers) and
// the exporter thread (the consumer). A producer never waits: spans that do not fit are
// refused and the caller counts them as dropped, so a slow or absent collector costs the
// decision path nothing but the drop. Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <limits>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "tracing/span.h"

namespace verdict::tracing {

class SpanQueue {
 public:
  explicit SpanQueue(size_t capacity) : capacity_(capacity) {}
  SpanQueue(const SpanQueue&) = delete;
  SpanQueue& operator=(const SpanQueue&) = delete;

  // Queues all of `spans` (one decision's: a trace is kept whole or not at all), or none when
  // they do not fit or the queue is closed: returns false then, and `spans` is left as it was.
  bool Push(std::vector<Span>& spans) EXCLUDES(mu_);

  // Waits until `min_spans` are queued, `deadline` passes or the queue is closed, then takes
  // up to `max_spans` of them, oldest first (possibly none).
  std::vector<Span> Take(size_t min_spans, size_t max_spans,
                         std::chrono::steady_clock::time_point deadline) EXCLUDES(mu_);

  // The exporter is done with `n` taken spans (sent or given up on).
  void Finished(size_t n) EXCLUDES(mu_);
  // Spans pushed and not yet Finished: queued, or taken and being sent.
  size_t unfinished() const EXCLUDES(mu_);

  // Refuses further pushes and wakes the consumer; what is queued can still be taken.
  void Close() EXCLUDES(mu_);
  bool closed() const EXCLUDES(mu_);
  size_t size() const EXCLUDES(mu_);

 private:
  const size_t capacity_;
  mutable Mutex mu_;
  CondVar ready_;
  std::deque<Span> spans_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;
  size_t unfinished_ GUARDED_BY(mu_) = 0;
  // The waiting consumer's min_spans (no one waiting: never reached): when a push wakes it.
  size_t wanted_ GUARDED_BY(mu_) = std::numeric_limits<size_t>::max();
};

}  // namespace verdict::tracing
