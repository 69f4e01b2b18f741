// RFC 6962 Merkle tree hashing (leaf prefix 0x00, node prefix 0x01) over the journal's record
// hashes: roots, inclusion proofs, and CompactMerkle, the O(log n) frontier the writer keeps so a
// checkpoint costs no re-read. Functions are stateless; CompactMerkle is a value type, not
// synchronized.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "journal/digest.h"

namespace verdict::journal {

// Leaf data of journal record i is its 32-byte record hash.
Digest MerkleLeafHash(std::string_view leaf_data);
Digest MerkleNodeHash(const Digest& left, const Digest& right);
// MTH of the given leaf hashes; SHA-256("") for none (RFC 6962 §2.1).
Digest MerkleRoot(std::span<const Digest> leaf_hashes);

// The audit path of leaf `index` in the tree of all `leaf_hashes` (RFC 6962 §2.1.1).
std::vector<Digest> MerkleInclusionProof(std::span<const Digest> leaf_hashes, uint64_t index);
// True when `proof` shows that `leaf_hash` is leaf `index` of a tree of `tree_size` with `root`.
bool VerifyMerkleInclusion(const Digest& leaf_hash, uint64_t index, uint64_t tree_size,
                           std::span<const Digest> proof, const Digest& root);

// The roots of the perfect subtrees covering leaves [0, size), largest first: enough to append
// and to compute the root of the current size.
class CompactMerkle {
 public:
  void AppendLeafHash(const Digest& leaf_hash);
  uint64_t size() const { return size_; }
  Digest Root() const;

  // size u64 BE, then the popcount(size) subtree roots, largest first.
  std::string Serialize() const;
  static Result<CompactMerkle> Deserialize(std::string_view bytes);

 private:
  uint64_t size_ = 0;
  std::vector<Digest> frontier_;
};

}  // namespace verdict::journal
