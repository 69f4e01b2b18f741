#include "journal/group_pacer.h"

namespace verdict::journal {

GroupPacer::GroupPacer(int64_t max_delay_us, double min_rate_per_s)
    : max_delay_us_(max_delay_us), min_rate_per_s_(min_rate_per_s) {}

void GroupPacer::OnTake(size_t entries, int64_t now_ns) {
  if (window_start_ns_ < 0) window_start_ns_ = now_ns;
  window_entries_ += entries;
  const int64_t elapsed = now_ns - window_start_ns_;
  if (elapsed >= kWindowNs) {
    last_rate_per_s_ = static_cast<double>(window_entries_) * 1e9 / static_cast<double>(elapsed);
    window_start_ns_ = now_ns;
    window_entries_ = 0;
  }
}

double GroupPacer::RatePerSecond(int64_t now_ns) const {
  if (window_start_ns_ < 0) return 0;
  const int64_t elapsed = now_ns - window_start_ns_;
  if (elapsed > kWindowNs) {
    return static_cast<double>(window_entries_) * 1e9 / static_cast<double>(elapsed);
  }
  return last_rate_per_s_;
}

int64_t GroupPacer::DelayUs(size_t queued, size_t enough, int64_t now_ns) const {
  if (max_delay_us_ <= 0 || queued >= enough) return 0;
  return RatePerSecond(now_ns) >= min_rate_per_s_ ? max_delay_us_ : 0;
}

}  // namespace verdict::journal
