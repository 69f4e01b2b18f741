#include "tracing/span_queue.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace verdict::tracing {

bool SpanQueue::Push(std::vector<Span>& spans) {
  bool wake = false;
  {
    MutexLock lock(mu_);
    if (closed_ || spans.size() > capacity_ - std::min(capacity_, spans_.size())) return false;
    std::move(spans.begin(), spans.end(), std::back_inserter(spans_));
    unfinished_ += spans.size();
    // Only a waiting consumer's threshold is worth a wake-up; below it, its deadline will do.
    wake = spans_.size() >= wanted_;
  }
  spans.clear();
  if (wake) ready_.Signal();
  return true;
}

std::vector<Span> SpanQueue::Take(size_t min_spans, size_t max_spans,
                                  std::chrono::steady_clock::time_point deadline) {
  MutexLock lock(mu_);
  wanted_ = std::max<size_t>(1, min_spans);
  while (!closed_ && spans_.size() < min_spans) {
    if (!ready_.WaitUntil(mu_, deadline)) break;
  }
  wanted_ = std::numeric_limits<size_t>::max();
  const size_t n = std::min(max_spans, spans_.size());
  std::vector<Span> taken;
  taken.reserve(n);
  std::move(spans_.begin(), spans_.begin() + static_cast<std::ptrdiff_t>(n),
            std::back_inserter(taken));
  spans_.erase(spans_.begin(), spans_.begin() + static_cast<std::ptrdiff_t>(n));
  return taken;
}

void SpanQueue::Finished(size_t n) {
  MutexLock lock(mu_);
  unfinished_ -= std::min(n, unfinished_);
}

size_t SpanQueue::unfinished() const {
  MutexLock lock(mu_);
  return unfinished_;
}

void SpanQueue::Close() {
  {
    MutexLock lock(mu_);
    closed_ = true;
  }
  ready_.SignalAll();
}

bool SpanQueue::closed() const {
  MutexLock lock(mu_);
  return closed_;
}

size_t SpanQueue::size() const {
  MutexLock lock(mu_);
  return spans_.size();
}

}  // namespace verdict::tracing
