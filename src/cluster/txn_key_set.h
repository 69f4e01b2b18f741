// TxnKeySet: the 64-bit hashes of every transaction key a journal chain holds, so that the
// owner of the chain answers "is this transaction journaled?" for a new transaction (almost
// every one) without a round trip to PostgreSQL: only a key whose hash is present (a retry, or
// a hash collision, about 1 in 2^64 per pair) is looked up. An open-addressing table of 8-byte
// slots, at most 3/4 full: 11-21 bytes per journaled transaction. Not thread-safe (its owner's
// mutex guards it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace verdict::cluster {

class TxnKeySet {
 public:
  void Insert(std::string_view txn_key);
  // False only if `txn_key` was never inserted.
  bool MayContain(std::string_view txn_key) const;
  size_t size() const { return size_; }

 private:
  static uint64_t Slot(std::string_view txn_key);
  void InsertHash(uint64_t hash);
  void Grow();

  std::vector<uint64_t> slots_;  // 0: empty; a power of two in size
  size_t size_ = 0;
};

}  // namespace verdict::cluster
