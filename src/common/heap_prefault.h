// PrefaultHeap: touches `bytes` of heap once at start-up and has the allocator keep it, so that
// the memory the journal's memtables and the request path later take from the heap is already
// mapped. A page's first touch is a fault that can cost several µs on a virtual machine; under
// overload those faults take a visible share of the engine's CPU, which prefaulting removes
// (see docs/perf-log/2026-12-04-load-session-09.md).
// With tcmalloc (release builds) freed memory is then never handed back to the kernel; with
// another allocator (sanitizer builds) the touch still happens and nothing else changes.
// Call once, before the threads that allocate start. Not thread-safe.
#pragma once

#include <cstddef>

namespace verdict {

// Returns whether the allocator was told to keep freed memory (tcmalloc found).
bool PrefaultHeap(size_t bytes);

}  // namespace verdict
