#include "journal/merkle.h"

#include <bit>

#include "journal/bytes.h"

namespace verdict::journal {
namespace {

// Largest power of two strictly below n (n >= 2).
uint64_t SplitPoint(uint64_t n) { return std::bit_floor(n - 1); }

}  // namespace

Digest MerkleLeafHash(std::string_view leaf_data) {
  static constexpr char kLeafPrefix[1] = {0x00};
  return Sha256Concat(std::string_view(kLeafPrefix, 1), leaf_data);
}

Digest MerkleNodeHash(const Digest& left, const Digest& right) {
  static constexpr char kNodePrefix[1] = {0x01};
  return Sha256Concat(std::string_view(kNodePrefix, 1), AsBytes(left), AsBytes(right));
}

Digest MerkleRoot(std::span<const Digest> leaves) {
  if (leaves.empty()) return Sha256("");
  if (leaves.size() == 1) return leaves[0];
  uint64_t k = SplitPoint(leaves.size());
  return MerkleNodeHash(MerkleRoot(leaves.subspan(0, k)), MerkleRoot(leaves.subspan(k)));
}

std::vector<Digest> MerkleInclusionProof(std::span<const Digest> leaves, uint64_t index) {
  std::vector<Digest> path;
  if (index >= leaves.size()) return path;
  // Iterative form of RFC 6962 PATH(m, D[n]): descend, collecting the sibling subtree roots,
  // then reverse so the proof runs leaf to root.
  while (leaves.size() > 1) {
    uint64_t k = SplitPoint(leaves.size());
    if (index < k) {
      path.push_back(MerkleRoot(leaves.subspan(k)));
      leaves = leaves.subspan(0, k);
    } else {
      path.push_back(MerkleRoot(leaves.subspan(0, k)));
      leaves = leaves.subspan(k);
      index -= k;
    }
  }
  return {path.rbegin(), path.rend()};
}

bool VerifyMerkleInclusion(const Digest& leaf_hash, uint64_t index, uint64_t tree_size,
                           std::span<const Digest> proof, const Digest& root) {
  // RFC 9162 §2.1.3.2.
  if (index >= tree_size) return false;
  uint64_t fn = index;
  uint64_t sn = tree_size - 1;
  Digest r = leaf_hash;
  for (const Digest& p : proof) {
    if (sn == 0) return false;
    if ((fn & 1) != 0 || fn == sn) {
      r = MerkleNodeHash(p, r);
      if ((fn & 1) == 0) {
        while ((fn & 1) == 0 && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = MerkleNodeHash(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && r == root;
}

void CompactMerkle::AppendLeafHash(const Digest& leaf_hash) {
  Digest h = leaf_hash;
  for (uint64_t t = size_; (t & 1) != 0; t >>= 1) {
    h = MerkleNodeHash(frontier_.back(), h);
    frontier_.pop_back();
  }
  frontier_.push_back(h);
  ++size_;
}

Digest CompactMerkle::Root() const {
  if (frontier_.empty()) return Sha256("");
  Digest r = frontier_.back();
  for (size_t i = frontier_.size() - 1; i-- > 0;) r = MerkleNodeHash(frontier_[i], r);
  return r;
}

std::string CompactMerkle::Serialize() const {
  std::string out;
  ByteWriter w(out);
  w.U64(size_);
  for (const Digest& d : frontier_) w.Raw(AsBytes(d));
  return out;
}

Result<CompactMerkle> CompactMerkle::Deserialize(std::string_view bytes) {
  ByteReader r(bytes);
  CompactMerkle m;
  m.size_ = r.U64();
  if (!r.ok() || r.remaining() != 32u * static_cast<size_t>(std::popcount(m.size_))) {
    return InvalidArgument("malformed Merkle frontier");
  }
  while (!r.at_end()) m.frontier_.push_back(r.Array<32>());
  return m;
}

}  // namespace verdict::journal
