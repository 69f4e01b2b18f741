// Where the cluster keeps its state in etcd (DESIGN §9). One place, so that the nodes, the
// controller, `verdict cluster status` and scripts/cluster agree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace verdict::cluster {

// A live node: "/verdict/nodes/<id>" = its URL, on the node's lease.
inline constexpr std::string_view kNodesPrefix = "/verdict/nodes/";
// The controller: the id of the node that rebalances, on that node's lease.
inline constexpr std::string_view kControllerKey = "/verdict/controller";
// The partition map (EncodeMap): one key, so that a change of several owners is one write.
inline constexpr std::string_view kPartitionMapKey = "/verdict/partition_map";

// The cluster journal's chain in PostgreSQL: one chain for now, owned with the whole partition
// map (Placement::kSingleOwner), so the owner of partition 0 owns the journal.
inline constexpr uint32_t kClusterJournalChain = 0;

inline std::string NodeKey(std::string_view node_id) {
  return std::string(kNodesPrefix).append(node_id);
}

}  // namespace verdict::cluster
