// The cluster's partition map (DESIGN §9): which node owns each of P partitions, and since which
// epoch. An account's partition is a stable hash of (tenant, account) mod P, so every node
// computes the same one. Rebalance is what the controller writes when a node joins or leaves:
// pure functions over values, no I/O. Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace verdict::cluster {

struct PartitionOwner {
  std::string node;    // empty: not assigned
  uint64_t epoch = 0;  // grows with every change of owner; the journal's fence checks it
  bool operator==(const PartitionOwner&) const = default;
};

// Index = partition number.
using PartitionMap = std::vector<PartitionOwner>;

// The partition of (tenant, account) among `partitions` (> 0). Stable across runs, platforms
// and versions: it decides where an account's state and decisions live.
uint32_t PartitionOf(std::string_view tenant, std::string_view account, uint32_t partitions);

// The map the controller should publish for `live_nodes` (ids, any order, no duplicates):
// every partition owned by a live node; each node owns floor(P/N) or ceil(P/N) partitions;
// a partition whose owner is live keeps it unless that owner holds more than its share, so a
// join or a leave moves as few partitions as balance needs. A partition whose owner changes
// gets epoch `next_epoch`; the others keep theirs. With no live node, `current` is returned.
// The result does not depend on the order of `live_nodes`.
PartitionMap Rebalance(const PartitionMap& current, std::vector<std::string> live_nodes,
                       uint64_t next_epoch);

// How the controller places partitions on live nodes.
enum class Placement {
  // Rebalance: partitions spread evenly over the live nodes.
  kSpread,
  // SingleOwner: one live node owns every partition and the others stand by (the hot standby
  // of a two-node cluster). Until a journal chain exists per partition, the cluster journal
  // is one chain, and this is the placement a node runs.
  kSingleOwner,
};

// The map for kSingleOwner: every partition owned by one live node. The owner of partition 0
// keeps everything while it is live; else the live node with the smallest id takes it all. A
// partition whose owner changes gets epoch `next_epoch`; with no live node, `current` is
// returned. The result does not depend on the order of `live_nodes`.
PartitionMap SingleOwner(const PartitionMap& current, std::vector<std::string> live_nodes,
                         uint64_t next_epoch);

// The number of partitions whose owner differs between `before` and `after`.
size_t CountMoves(const PartitionMap& before, const PartitionMap& after);

// One partition's map entry as stored in etcd: "NODE EPOCH" (a node id is printable ASCII
// without spaces), "- EPOCH" when not assigned.
std::string EncodeOwner(const PartitionOwner& owner);
Result<PartitionOwner> DecodeOwner(std::string_view text);
// The whole map: one entry a line, partition 0 first. DecodeMap refuses a map whose number of
// partitions is not `partitions` (the number is fixed when the cluster is made).
std::string EncodeMap(const PartitionMap& map);
Result<PartitionMap> DecodeMap(std::string_view text, uint32_t partitions);
// Whether `node_id` can name a node: 1-64 printable ASCII characters, no space, not "-".
bool ValidNodeId(std::string_view node_id);

}  // namespace verdict::cluster
