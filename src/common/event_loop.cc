#include "common/event_loop.h"

namespace verdict {
namespace {

thread_local EventLoop* current_loop = nullptr;

}  // namespace

EventLoop* EventLoop::Current() { return current_loop; }

void EventLoop::SetCurrent(EventLoop* loop) { current_loop = loop; }

}  // namespace verdict
