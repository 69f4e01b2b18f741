// PrefaultHeap: touches `bytes` of heap once at start-up and has the allocator keep it, so that
// the memory the journal's memtables and the request path later take from the heap is already
// mapped. On the benchmark VM each first touch of a page is a fault of several µs: 4,000 a
// second under the overload load, about 7 % of the engine's CPU, gone once prefaulted
// (docs/PERFORMANCE.md, issue 7, session 9).
// With tcmalloc (release builds) freed memory is then never handed back to the kernel; with
// another allocator (sanitizer builds) the touch still happens and nothing else changes.
// Call once, before the threads that allocate start. Not thread-safe.
#pragma once

#include <cstddef>

namespace verdict {

// Returns whether the allocator was told to keep freed memory (tcmalloc found).
bool PrefaultHeap(size_t bytes);

}  // namespace verdict
