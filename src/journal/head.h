// JournalHead: the "head" meta entry (last seq, last record hash, Merkle frontier), written in
// every commit batch so a restart continues the chain without re-reading records. Value type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"
#include "journal/digest.h"
#include "journal/merkle.h"

namespace verdict::journal {

struct JournalHead {
  uint64_t last_seq = 0;
  Digest last_hash{};
  CompactMerkle merkle;  // merkle.size() == last_seq
};

// "VJH1" | last_seq u64 BE | last_hash[32] | CompactMerkle::Serialize()
std::string EncodeHead(const JournalHead& head);
Result<JournalHead> DecodeHead(std::string_view bytes);

}  // namespace verdict::journal
