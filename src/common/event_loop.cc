#include "common/event_loop.h"

#include <atomic>

namespace verdict {
namespace {

thread_local EventLoop* current_loop = nullptr;
std::atomic<uint64_t> next_loop_id{1};

}  // namespace

EventLoop::EventLoop() : id_(next_loop_id.fetch_add(1, std::memory_order_relaxed)) {}

EventLoop* EventLoop::Current() { return current_loop; }

void EventLoop::SetCurrent(EventLoop* loop) { current_loop = loop; }

}  // namespace verdict
