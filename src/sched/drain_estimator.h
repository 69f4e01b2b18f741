// QueueDrainEstimator: how fast the scheduler's queue drains while it is backlogged, and so how
// long a request joining its back would wait. An exponentially weighted average of the time
// per transaction taken (a batch counts each of its transactions), measured over windows in
// which the queue never ran empty: time spent idle, waiting for arrivals, says nothing of
// capacity. The window's time includes everything that slows the drain (the decisions
// themselves, a held-back journal, a paused machine). The estimate is offered only while the
// queue is backlogged, so an old slow spell does not outlive its backlog.
// Not thread-safe: the Scheduler calls it under its mutex.
#pragma once

#include <cstddef>
#include <cstdint>

namespace verdict {

class QueueDrainEstimator {
 public:
  // A window closes into a sample once it has lasted `min_window_us`: shorter ones would be
  // dominated by a single transaction's jitter.
  explicit QueueDrainEstimator(double alpha = 0.2, int64_t min_window_us = 10'000)
      : alpha_(alpha), min_window_us_(min_window_us) {}

  // A worker that had finished what it took before took `taken` transactions at now_us,
  // leaving `left` waiting.
  void OnTake(int64_t now_us, uint64_t taken, uint64_t left) {
    if (window_start_us_ >= 0 && window_taken_ > 0 && now_us - window_start_us_ >= min_window_us_) {
      // What this worker took has been worked off by now. With several workers, others' may
      // still be running: the sample then runs low, which only means fewer refusals.
      const double sample =
          static_cast<double>(now_us - window_start_us_) / static_cast<double>(window_taken_);
      per_unit_us_ = measured_ ? per_unit_us_ + alpha_ * (sample - per_unit_us_) : sample;
      measured_ = true;
      window_start_us_ = now_us;
      window_taken_ = 0;
    }
    if (left == 0) {  // the backlog ends here: what follows depends on arrivals
      CloseWindow();
      return;
    }
    if (window_start_us_ < 0) window_start_us_ = now_us;
    window_taken_ += taken;
  }

  // Transactions taken ahead of the rest of a batch still being worked (preemption): they count
  // in an open window, which only a worker's next OnTake, when they are done, may sample. They
  // open none: the window would then hold the rest of that batch's time but not its count.
  void OnPreemptingTake(uint64_t taken, uint64_t left) {
    if (left == 0) {
      CloseWindow();
    } else if (window_start_us_ >= 0) {
      window_taken_ += taken;
    }
  }

  // Whether an estimate is on offer: the queue has stayed backlogged since a worker's last take,
  // and this backlog has been measured.
  bool usable() const { return measured_ && window_start_us_ >= 0; }
  // 0 until a backlogged window has been measured.
  double per_unit_us() const { return per_unit_us_; }
  // The wait of a request queued behind `ahead` transactions.
  double WaitUs(uint64_t ahead) const { return per_unit_us_ * static_cast<double>(ahead); }

 private:
  // A backlog's figure is not carried into the next one: that is measured afresh, and nothing
  // is offered until its first window has closed.
  void CloseWindow() {
    window_start_us_ = -1;
    window_taken_ = 0;
    measured_ = false;
  }

  const double alpha_;
  const int64_t min_window_us_;
  int64_t window_start_us_ = -1;  // -1: the queue ran empty at the last take
  uint64_t window_taken_ = 0;     // transactions taken since the window opened
  double per_unit_us_ = 0;
  bool measured_ = false;
};

}  // namespace verdict
