// QueueDrainEstimator: how fast the scheduler's queue drains while it is backlogged, and so how
// long a request joining its back would wait. An exponentially weighted average of the time
// per item taken, measured over windows in which the queue never ran empty: time spent idle,
// waiting for arrivals, says nothing of capacity. The window's time includes everything that
// slows the drain (the decisions themselves, a held-back journal, a paused machine).
// Not thread-safe: the Scheduler calls it under its mutex.
#pragma once

#include <cstddef>
#include <cstdint>

namespace verdict {

class QueueDrainEstimator {
 public:
  // A window closes into a sample once it has lasted `min_window_us`: shorter ones would be
  // dominated by a single item's jitter.
  explicit QueueDrainEstimator(double alpha, int64_t min_window_us = 10'000)
      : alpha_(alpha), min_window_us_(min_window_us) {}

  // A worker that had finished what it took before took `taken` more at now_us, leaving `left`
  // waiting. (With several workers, another's items may still be in progress: the estimate is
  // then approximate.)
  void OnTake(int64_t now_us, size_t taken, size_t left) {
    if (window_start_us_ >= 0 && window_items_ > 0 && now_us - window_start_us_ >= min_window_us_) {
      // Everything taken since the window opened has been worked off by now (a worker takes
      // again only when it has finished what it took).
      const double sample =
          static_cast<double>(now_us - window_start_us_) / static_cast<double>(window_items_);
      per_item_us_ = measured_ ? per_item_us_ + alpha_ * (sample - per_item_us_) : sample;
      measured_ = true;
      window_start_us_ = now_us;
      window_items_ = 0;
    }
    if (left == 0) {  // the backlog ends here: what follows depends on arrivals
      window_start_us_ = -1;
      window_items_ = 0;
      return;
    }
    if (window_start_us_ < 0) window_start_us_ = now_us;
    window_items_ += taken;
  }

  // Items taken ahead of the rest of a batch still being worked (preemption): they count in
  // the open window, which only a worker's next OnTake, when they are done, may close.
  void OnPreemptingTake(size_t taken) {
    if (window_start_us_ >= 0) window_items_ += taken;
  }

  bool measured() const { return measured_; }
  // 0 until a backlogged window has been measured.
  double per_item_us() const { return per_item_us_; }
  // The wait of a request queued behind `ahead` items.
  double WaitUs(size_t ahead) const { return per_item_us_ * static_cast<double>(ahead); }

 private:
  const double alpha_;
  const int64_t min_window_us_;
  int64_t window_start_us_ = -1;  // -1: no backlog since the last take
  size_t window_items_ = 0;       // taken since the window opened
  double per_item_us_ = 0;
  bool measured_ = false;
};

}  // namespace verdict
