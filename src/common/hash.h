// Fast non-cryptographic hashing for in-memory partitioning (stripes, canary buckets).
// Stateless and thread-safe. Stable across runs and platforms: results may be persisted.
#pragma once

#include <cstdint>
#include <string_view>

namespace verdict {

// 64-bit FNV-1a followed by a murmur3 finalizer, so low bits are well mixed.
inline uint64_t StableHash64(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace verdict
