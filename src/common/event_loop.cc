#include "common/event_loop.h"

#include <atomic>
#include <utility>
#include <vector>

namespace verdict {
namespace {

thread_local EventLoop* current_loop = nullptr;
thread_local std::vector<std::function<void()>> idle_work;
std::atomic<uint64_t> next_loop_id{1};

}  // namespace

EventLoop::EventLoop() : id_(next_loop_id.fetch_add(1, std::memory_order_relaxed)) {}

EventLoop* EventLoop::Current() { return current_loop; }

void EventLoop::SetCurrent(EventLoop* loop) { current_loop = loop; }

void EventLoop::PostWhenIdle(std::function<void()> work) { idle_work.push_back(std::move(work)); }

bool EventLoop::HasIdleWork() { return !idle_work.empty(); }

void EventLoop::RunIdleWork() {
  while (!idle_work.empty()) {
    std::vector<std::function<void()>> work;
    work.swap(idle_work);
    for (auto& w : work) w();
  }
}

}  // namespace verdict
