#include "cluster/partition_map.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string>

#include "common/hash.h"

namespace verdict::cluster {

uint32_t PartitionOf(std::string_view tenant, std::string_view account, uint32_t partitions) {
  std::string key;
  key.reserve(tenant.size() + 1 + account.size());
  key.append(tenant).push_back('\0');  // ("ab", "c") and ("a", "bc") differ
  key.append(account);
  return static_cast<uint32_t>(StableHash64(key) % partitions);
}

PartitionMap Rebalance(const PartitionMap& current, std::vector<std::string> live_nodes,
                       uint64_t next_epoch) {
  if (live_nodes.empty() || current.empty()) return current;
  std::sort(live_nodes.begin(), live_nodes.end());
  live_nodes.erase(std::unique(live_nodes.begin(), live_nodes.end()), live_nodes.end());
  const size_t n = live_nodes.size();
  const size_t base = current.size() / n;
  const size_t extra = current.size() % n;

  // Each live node's quota: `base`, and one more for the `extra` nodes that already own the
  // most (they then give up the fewest partitions); ties by id, so the result is deterministic.
  std::map<std::string, size_t> owned;
  for (const auto& node : live_nodes) owned[node] = 0;
  for (const auto& owner : current) {
    if (auto it = owned.find(owner.node); it != owned.end()) ++it->second;
  }
  std::vector<std::string> by_holdings = live_nodes;
  std::stable_sort(by_holdings.begin(), by_holdings.end(),
                   [&](const std::string& a, const std::string& b) { return owned[a] > owned[b]; });
  std::map<std::string, size_t> quota;
  for (size_t i = 0; i < n; ++i) quota[by_holdings[i]] = base + (i < extra ? 1 : 0);

  // Keep each partition with its live owner while the owner is within its quota.
  PartitionMap next = current;
  std::map<std::string, size_t> kept;
  std::vector<size_t> to_assign;
  for (size_t p = 0; p < next.size(); ++p) {
    auto it = quota.find(next[p].node);
    if (it != quota.end() && kept[it->first] < it->second) {
      ++kept[it->first];
    } else {
      to_assign.push_back(p);
    }
  }
  // Hand the rest to the nodes below quota, in id order.
  size_t node = 0;
  for (size_t p : to_assign) {
    while (kept[live_nodes[node]] >= quota[live_nodes[node]]) ++node;
    ++kept[live_nodes[node]];
    next[p] = PartitionOwner{live_nodes[node], next_epoch};
  }
  return next;
}

PartitionMap SingleOwner(const PartitionMap& current, std::vector<std::string> live_nodes,
                         uint64_t next_epoch) {
  if (live_nodes.empty() || current.empty()) return current;
  std::sort(live_nodes.begin(), live_nodes.end());
  const std::string& holder = current.front().node;
  const bool holder_live =
      !holder.empty() && std::binary_search(live_nodes.begin(), live_nodes.end(), holder);
  const std::string& owner = holder_live ? holder : live_nodes.front();
  PartitionMap next = current;
  for (PartitionOwner& entry : next) {
    if (entry.node != owner) entry = PartitionOwner{owner, next_epoch};
  }
  return next;
}

size_t CountMoves(const PartitionMap& before, const PartitionMap& after) {
  size_t moves = 0;
  for (size_t p = 0; p < std::min(before.size(), after.size()); ++p) {
    if (before[p].node != after[p].node) ++moves;
  }
  return moves + (before.size() > after.size() ? before.size() - after.size()
                                               : after.size() - before.size());
}

bool ValidNodeId(std::string_view node_id) {
  if (node_id.empty() || node_id.size() > 64 || node_id == "-") return false;
  for (char c : node_id) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

std::string EncodeOwner(const PartitionOwner& owner) {
  return (owner.node.empty() ? std::string("-") : owner.node) + " " + std::to_string(owner.epoch);
}

Result<PartitionOwner> DecodeOwner(std::string_view text) {
  const size_t space = text.find(' ');
  if (space == std::string_view::npos || space == 0) {
    return InvalidArgument("partition owner must be \"NODE EPOCH\"", "owner");
  }
  PartitionOwner owner;
  owner.node = std::string(text.substr(0, space));
  if (owner.node == "-") {
    owner.node.clear();
  } else if (!ValidNodeId(owner.node)) {
    return InvalidArgument("partition owner is not a valid node id", "owner");
  }
  const std::string_view epoch = text.substr(space + 1);
  const auto [end, error] = std::from_chars(epoch.data(), epoch.data() + epoch.size(), owner.epoch);
  if (error != std::errc() || end != epoch.data() + epoch.size() || epoch.empty()) {
    return InvalidArgument("partition owner epoch must be a non-negative integer", "epoch");
  }
  return owner;
}

std::string EncodeMap(const PartitionMap& map) {
  std::string text;
  for (const auto& owner : map) text.append(EncodeOwner(owner)).push_back('\n');
  return text;
}

Result<PartitionMap> DecodeMap(std::string_view text, uint32_t partitions) {
  PartitionMap map;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      return InvalidArgument("partition map must end with a newline", "partitions");
    }
    auto owner = DecodeOwner(text.substr(0, end));
    if (!owner.ok()) {
      return InvalidArgument(
          "partition " + std::to_string(map.size()) + ": " + owner.status().message(),
          "partitions[" + std::to_string(map.size()) + "]");
    }
    map.push_back(std::move(*owner));
    text.remove_prefix(end + 1);
  }
  if (map.size() != partitions) {
    return InvalidArgument("partition map has " + std::to_string(map.size()) +
                               " partitions, the cluster " + std::to_string(partitions),
                           "partitions");
  }
  return map;
}

}  // namespace verdict::cluster
