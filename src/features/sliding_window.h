// SlidingWindows: exact count and sum of one account's amounts over several trailing time
// windows (e.g. 1 h and 24 h) that share one event buffer. Owned by an AccountState; not
// thread-safe (the account's stripe lock guards it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace verdict {

class SlidingWindows {
 public:
  struct Stats {
    int64_t count = 0;
    double sum = 0;
  };

  // `lengths_us` ascending. Events are kept for the longest window plus `late_tolerance_us`,
  // so that a transaction arriving up to that much after newer ones still sees exact windows.
  SlidingWindows(std::vector<int64_t> lengths_us, int64_t late_tolerance_us);

  // Stats over events with as_of - length < timestamp <= as_of, for window i into out[i].
  // Amortized O(1) when as_of does not go backwards; otherwise a scan of the kept events.
  void Query(int64_t as_of_us, Stats* out);
  // Records an event. Events usually arrive in time order; an older one is inserted in place.
  void Add(int64_t timestamp_us, double amount);

  size_t retained_events() const { return events_.size(); }

 private:
  struct Event {
    int64_t timestamp_us;
    double amount;
  };
  struct Window {
    int64_t length_us;
    size_t head = 0;  // index of the first event inside the window as of `as_of_`
    Stats stats;
  };
  void Rebuild(int64_t as_of_us);
  void DropExpired(int64_t as_of_us);

  std::deque<Event> events_;
  std::vector<Window> windows_;
  int64_t late_tolerance_us_;
  // The running stats are valid for this as-of time and for all events up to events_.size().
  int64_t as_of_ = INT64_MIN;
  size_t counted_ = 0;
};

}  // namespace verdict
