// GroupPacer: how long the journal's writer waits for more entries before it takes a group.
// Every group costs one WAL write and one fdatasync whatever its size: CPU time, device round
// trips, and on a virtual machine host-side I/O work that counts against its CPU quota
// (docs/PERFORMANCE.md). At a high arrival rate a
// short wait gathers several more entries into each sync; at a low rate it would only add
// latency, so the pacer waits only while the rate measured over the last window is at least
// `min_rate_per_s`.
// Value type; not thread-safe (the journal uses it under its lock).
#pragma once

#include <cstddef>
#include <cstdint>

namespace verdict::journal {

class GroupPacer {
 public:
  // Waits up to max_delay_us (0: never) while the measured rate is at least min_rate_per_s
  // entries a second (> 0: with no rate measured yet it never waits).
  GroupPacer(int64_t max_delay_us, double min_rate_per_s);

  // The writer took `entries` at `now_ns` (monotonic).
  void OnTake(size_t entries, int64_t now_ns);

  // How long to wait before taking the next group, with `queued` entries waiting at `now_ns`.
  // 0 below min_rate_per_s, or once `queued` reaches `enough` (the group is big already).
  int64_t DelayUs(size_t queued, size_t enough, int64_t now_ns) const;

  // Entries per second over the last complete window, or over the current one once it has
  // run longer than a window (so an idle spell lowers it before the next take).
  double RatePerSecond(int64_t now_ns) const;

  // The rate is measured over windows this long.
  static constexpr int64_t kWindowNs = 10'000'000;

 private:
  int64_t max_delay_us_;
  double min_rate_per_s_;
  int64_t window_start_ns_ = -1;  // -1: nothing taken yet
  size_t window_entries_ = 0;
  double last_rate_per_s_ = 0;
};

}  // namespace verdict::journal
