// JournalProof: a decision record's standing in the tamper-evident journal, as a report carries
// it: the record's hash and its RFC 6962 inclusion proof in the tree of the latest signed
// checkpoint when that covers it, else in the tree of every durable record (the head, unsigned).
// Value type; ProveRecord reads the journal and is thread-safe as the journal's reads are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "journal/journal.h"

namespace verdict::reports {

// An inclusion proof reads every record of its tree; past this many, a report names the command
// that verifies the journal instead (the route answers on an I/O thread).
inline constexpr uint64_t kMaxProofTreeSize = 100'000;

enum class ProofAnchor {
  kCheckpoint,  // the latest signed checkpoint covers the record
  kHead,        // not yet covered: proved against the durable records' tree, unsigned
  kNone,        // the tree is too large to prove here
};
std::string_view ProofAnchorName(ProofAnchor anchor);  // "checkpoint", "head", "none"

struct JournalProof {
  uint64_t seq = 0;
  std::string record_hash;   // hex
  std::string input_sha256;  // hex: SHA-256 of the transaction as journaled
  std::string public_key;    // hex: the journal's checkpoint signing key
  ProofAnchor anchor = ProofAnchor::kNone;
  uint64_t tree_size = 0;  // of the anchoring tree
  std::string root;        // hex root of that tree
  // The latest signed checkpoint (whether or not it covers the record): its size, time and
  // whether its signature verifies under the journal's key; checkpoint_size 0 when none.
  uint64_t checkpoint_size = 0;
  int64_t checkpoint_time_us = 0;
  bool signature_valid = false;
  std::vector<std::string> path;  // hex audit path, leaf to root
  bool verified = false;          // the path leads from the record's hash to `root`
};

Result<JournalProof> ProveRecord(const journal::Journal& journal,
                                 const journal::JournalRecord& record);

}  // namespace verdict::reports
