#include "common/heap_prefault.h"

#include <dlfcn.h>
#include <gperftools/malloc_extension.h>

#include <cstring>
#include <memory>
#include <vector>

namespace verdict {

// No vptr check on the virtual call: sanitizer builds have no tcmalloc, so no MallocExtension
// type information to check against (the call is skipped there anyway).
__attribute__((no_sanitize("vptr"))) bool PrefaultHeap(size_t bytes) {
  // Looked up at run time: sanitizer builds do not link tcmalloc (CMakeLists.txt). Its
  // instance is called through the class's virtual interface, which needs no link symbol.
  using Instance = MallocExtension* (*)();
  auto instance =
      reinterpret_cast<Instance>(dlsym(RTLD_DEFAULT, "_ZN15MallocExtension8instanceEv"));
  MallocExtension* tcmalloc = instance != nullptr ? instance() : nullptr;
  if (tcmalloc != nullptr) tcmalloc->SetMemoryReleaseRate(0);
  // Blocks the size of a memtable arena block (RocksDB: an eighth of a 64 MiB write buffer),
  // freed together, so the allocator's free spans are large and reusable for any size.
  constexpr size_t kBlock = 8 << 20;
  std::vector<std::unique_ptr<char[]>> blocks;
  for (size_t done = 0; done < bytes; done += kBlock) {
    blocks.emplace_back(new char[kBlock]);
    std::memset(blocks.back().get(), 0, kBlock);
  }
  return tcmalloc != nullptr;
}

}  // namespace verdict
