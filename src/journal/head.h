// JournalHead: the "head" meta entry (last seq, last record hash, Merkle frontier, and the sealed
// digest of the stored account states), written in every commit batch, with the records and
// states it describes, so a restart continues the chain without re-reading records and checks
// the states it loads (state_seal.h). Value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "journal/digest.h"
#include "journal/merkle.h"
#include "journal/state_seal.h"

namespace verdict::journal {

struct JournalHead {
  uint64_t last_seq = 0;
  Digest last_hash{};
  CompactMerkle merkle;  // merkle.size() == last_seq
  // Absent in heads written before states were sealed, and where the backend keeps no states
  // of its own to seal (a cluster's shared PostgreSQL).
  std::optional<StateDigest> state_digest;
};

// "VJH1" | last_seq u64 BE | last_hash[32] | CompactMerkle::Serialize(), or with a state digest
// "VJH2" | last_seq u64 BE | last_hash[32] | state_digest[16] | CompactMerkle::Serialize()
std::string EncodeHead(const JournalHead& head);
Result<JournalHead> DecodeHead(std::string_view bytes);

class JournalStore;
// The head a RocksDB store holds; none in an empty store.
Result<std::optional<JournalHead>> ReadStoredHead(const JournalStore& store);

}  // namespace verdict::journal
