// EventLoop: how code running on an event-loop thread (an HTTP I/O thread) hands work back to
// that loop, to run after the events the loop already has in hand. The loop's owner installs
// it on each of its threads; code on a thread without one sees none and runs its work another
// way. The scheduler uses it to see every request a loop has read before deciding any of them
// (docs/architecture.md, sched). Post is thread-safe; SetCurrent affects the calling thread only.
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
