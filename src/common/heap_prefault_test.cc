#include "common/heap_prefault.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstring>
#include <memory>

namespace verdict {
namespace {

long MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// After a prefault with tcmalloc, taking and touching as much again costs (nearly) no page
// faults: the pages were mapped once and kept. Without tcmalloc (sanitizer builds) there is
// no claim to check, only that the call works.
TEST(HeapPrefaultTest, KeptMemoryIsReusedWithoutFaults) {
  constexpr size_t kBytes = 64 << 20;
  const bool kept = PrefaultHeap(kBytes);
  if (!kept) GTEST_SKIP() << "tcmalloc is not the allocator in this build";
  const long before = MinorFaults();
  {
    std::unique_ptr<char[]> block(new char[kBytes / 2]);
    std::memset(block.get(), 1, kBytes / 2);
  }
  const long faults = MinorFaults() - before;
  // 32 MiB freshly mapped would be 8,192 faults of 4 KiB pages.
  EXPECT_LT(faults, 512) << faults << " page faults";
}

}  // namespace
}  // namespace verdict
