// EventLoop: how code running on an event-loop thread (an HTTP I/O thread) hands work back to
// that loop, to run after the events the loop already has in hand. The loop's owner installs
// it on each of its threads; code on a thread without one sees none and runs its work another
// way. The scheduler uses it to see every request a loop has read before deciding any of them
// (docs/architecture.md, sched), and the journal to commit, on that thread, what the turn
// decided (docs/architecture.md, journal). Post is thread-safe; PostWhenIdle, RunIdleWork and
// SetCurrent affect the calling thread only.
#pragma once

#include <cstdint>
#include <functional>

namespace verdict {

class EventLoop {
 public:
  EventLoop();
  virtual ~EventLoop() = default;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Queues `work` behind what the loop already has ready; it runs on one of the loop's threads.
  // A loop that has stopped keeps it unrun until it is destroyed with the loop (so `work` may
  // only refer to what outlives the loop's running).
  virtual void Post(std::function<void()> work) = 0;
  // Queues `work` to run on the calling thread, which must be running a loop (Current()), once it
  // has run the handlers that are ready and before it waits for events again: one idle step
  // for everything a turn produced. The loop's owner calls RunIdleWork after each turn and as
  // its thread leaves the loop, so the work runs even when the loop stops.
  static void PostWhenIdle(std::function<void()> work);
  // Runs (and clears) the calling thread's idle work, including work that it queues.
  static void RunIdleWork();
  // Whether the calling thread has idle work queued.
  static bool HasIdleWork();

  // Unique among the loops of this process, unlike an address, which a later loop may reuse.
  uint64_t id() const { return id_; }

  // The calling thread's loop, or nullptr.
  static EventLoop* Current();
  // Installs `loop` (not owned; nullptr uninstalls) as the calling thread's.
  static void SetCurrent(EventLoop* loop);

 private:
  const uint64_t id_;
};

}  // namespace verdict
