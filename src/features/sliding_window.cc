#include "features/sliding_window.h"

#include <algorithm>

namespace verdict {

SlidingWindows::SlidingWindows(std::vector<int64_t> lengths_us, int64_t late_tolerance_us)
    : late_tolerance_us_(late_tolerance_us) {
  for (int64_t length : lengths_us) windows_.push_back(Window{length, 0, Stats{}});
}

void SlidingWindows::Rebuild(int64_t as_of_us) {
  // Events are sorted: those at or before as_of form a prefix.
  size_t visible = 0;
  while (visible < events_.size() && events_[visible].timestamp_us <= as_of_us) ++visible;
  for (Window& w : windows_) {
    w.stats = {};
    w.head = visible;
    for (size_t i = visible; i-- > 0 && events_[i].timestamp_us > as_of_us - w.length_us;) {
      w.head = i;
      ++w.stats.count;
      w.stats.sum += events_[i].amount;
    }
  }
  as_of_ = as_of_us;
  counted_ = visible;
}

void SlidingWindows::DropExpired(int64_t as_of_us) {
  const int64_t horizon = as_of_us - windows_.back().length_us - late_tolerance_us_;
  size_t drop = 0;
  while (drop < events_.size() && events_[drop].timestamp_us <= horizon) ++drop;
  if (drop == 0) return;
  events_.erase(events_.begin(), events_.begin() + static_cast<ptrdiff_t>(drop));
  counted_ -= drop;
  for (Window& w : windows_) w.head -= drop;
}

void SlidingWindows::Query(int64_t as_of_us, Stats* out) {
  const bool in_order =
      as_of_us >= as_of_ && (events_.empty() || events_.back().timestamp_us <= as_of_us);
  if (!in_order) {
    // A late event: compute exactly from the kept events, then leave the running state
    // consistent for the next in-order query.
    Rebuild(as_of_us);
  } else {
    for (Window& w : windows_) {
      for (size_t i = counted_; i < events_.size(); ++i) {
        ++w.stats.count;
        w.stats.sum += events_[i].amount;
      }
      while (w.head < events_.size() && events_[w.head].timestamp_us <= as_of_us - w.length_us) {
        --w.stats.count;
        w.stats.sum -= events_[w.head].amount;
        ++w.head;
      }
      // Subtracting doubles can leave a residue; an empty window is exactly zero.
      if (w.stats.count == 0) w.stats.sum = 0;
    }
    counted_ = events_.size();
    as_of_ = as_of_us;
    // Every window has moved past what this drops (the longest window reaches furthest back,
    // and the horizon lies a tolerance beyond it).
    DropExpired(as_of_us);
  }
  for (size_t i = 0; i < windows_.size(); ++i) out[i] = windows_[i].stats;
}

void SlidingWindows::Add(int64_t timestamp_us, double amount) {
  if (events_.empty() || events_.back().timestamp_us <= timestamp_us) {
    events_.push_back({timestamp_us, amount});
    return;
  }
  auto it = std::upper_bound(events_.begin(), events_.end(), timestamp_us,
                             [](int64_t ts, const Event& e) { return ts < e.timestamp_us; });
  events_.insert(it, {timestamp_us, amount});
  as_of_ = INT64_MAX;  // forces a rebuild on the next query
}

}  // namespace verdict
