#include "reports/journal_proof.h"

#include "journal/checkpoint.h"
#include "journal/digest.h"
#include "journal/merkle.h"

namespace verdict::reports {

std::string_view ProofAnchorName(ProofAnchor anchor) {
  switch (anchor) {
    case ProofAnchor::kCheckpoint:
      return "checkpoint";
    case ProofAnchor::kHead:
      return "head";
    case ProofAnchor::kNone:
      break;
  }
  return "none";
}

Result<JournalProof> ProveRecord(const journal::Journal& journal,
                                 const journal::JournalRecord& record) {
  JournalProof proof;
  proof.seq = record.seq;
  proof.record_hash = journal::ToHex(record.record_hash);
  proof.input_sha256 = journal::ToHex(record.input_sha256);
  const journal::PublicKey& key = journal.public_key();
  proof.public_key =
      journal::ToHex(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()));
  VERDICT_ASSIGN_OR_RETURN(std::optional<journal::Checkpoint> checkpoint,
                           journal.LatestCheckpoint());
  if (checkpoint) {
    proof.checkpoint_size = checkpoint->tree_size;
    proof.checkpoint_time_us = checkpoint->time_us;
    proof.signature_valid = journal::VerifyCheckpointSignature(*checkpoint, key);
  }
  const bool covered = checkpoint && checkpoint->tree_size >= record.seq;
  const uint64_t tree_size = covered ? checkpoint->tree_size : journal.durable_sequence();
  if (tree_size < record.seq || tree_size > kMaxProofTreeSize) {
    proof.anchor = ProofAnchor::kNone;
    proof.tree_size = tree_size;
    return proof;
  }
  VERDICT_ASSIGN_OR_RETURN(journal::InclusionProof p,
                           journal.ProveInclusion(record.seq, tree_size));
  proof.anchor = covered ? ProofAnchor::kCheckpoint : ProofAnchor::kHead;
  proof.tree_size = p.tree_size;
  // Against a checkpoint, the root is the signed one, not the one recomputed from the records.
  const journal::Digest& root = covered ? checkpoint->root : p.root;
  proof.root = journal::ToHex(root);
  for (const journal::Digest& d : p.path) proof.path.push_back(journal::ToHex(d));
  proof.verified =
      p.leaf_hash == journal::MerkleLeafHash(journal::AsBytes(record.record_hash)) &&
      p.root == root &&
      journal::VerifyMerkleInclusion(p.leaf_hash, p.seq - 1, p.tree_size, p.path, root);
  return proof;
}

}  // namespace verdict::reports
