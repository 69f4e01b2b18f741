#include "cluster/txn_key_set.h"

#include "common/hash.h"

namespace verdict::cluster {

uint64_t TxnKeySet::Slot(std::string_view txn_key) {
  const uint64_t hash = StableHash64(txn_key);
  return hash == 0 ? 1 : hash;  // 0 marks an empty slot
}

void TxnKeySet::Insert(std::string_view txn_key) { InsertHash(Slot(txn_key)); }

void TxnKeySet::InsertHash(uint64_t hash) {
  if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    if (slots_[i] == hash) return;
    if (slots_[i] == 0) {
      slots_[i] = hash;
      ++size_;
      return;
    }
  }
}

bool TxnKeySet::MayContain(std::string_view txn_key) const {
  if (slots_.empty()) return false;
  const uint64_t hash = Slot(txn_key);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    if (slots_[i] == hash) return true;
    if (slots_[i] == 0) return false;
  }
}

void TxnKeySet::Grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, 0);
  size_ = 0;
  for (uint64_t hash : old) {
    if (hash != 0) InsertHash(hash);
  }
}

}  // namespace verdict::cluster
