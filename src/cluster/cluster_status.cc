#include "cluster/cluster_status.h"

#include <algorithm>
#include <map>
#include <string>

#include "cluster/cluster_keys.h"
#include "common/json_writer.h"

namespace verdict::cluster {

Result<ClusterStatus> ReadClusterStatus(CoordinationStore& store) {
  ClusterStatus status;
  auto nodes = store.Range(kNodesPrefix, /*prefix_match=*/true);
  if (!nodes.ok()) return nodes.status();
  for (const KeyValue& kv : nodes->kvs) {
    status.nodes.push_back({kv.key.substr(kNodesPrefix.size()), kv.value, 0});
  }
  auto controller = store.Range(kControllerKey, /*prefix_match=*/false);
  if (!controller.ok()) return controller.status();
  if (!controller->kvs.empty()) status.controller = controller->kvs.front().value;
  auto map = store.Range(kPartitionMapKey, /*prefix_match=*/false);
  if (!map.ok()) return map.status();
  if (!map->kvs.empty()) {
    const std::string& text = map->kvs.front().value;
    const auto partitions = static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n'));
    auto decoded = DecodeMap(text, partitions);
    if (!decoded.ok()) {
      return Status(StatusCode::kInternal,
                    "stored partition map is unusable: " + decoded.status().message(),
                    decoded.status().field());
    }
    status.map = std::move(*decoded);
  }
  std::map<std::string, NodeStatus*> by_id;
  for (NodeStatus& node : status.nodes) by_id[node.id] = &node;
  for (const PartitionOwner& owner : status.map) {
    auto it = by_id.find(owner.node);
    if (it == by_id.end()) {
      ++status.orphaned;
    } else {
      ++it->second->partitions;
    }
  }
  return status;
}

std::string ClusterStatusJson(const ClusterStatus& status) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("controller");
  status.controller.empty() ? w.Null() : w.String(status.controller);
  w.Key("nodes").BeginArray();
  for (const NodeStatus& node : status.nodes) {
    w.BeginObject().Key("id").String(node.id).Key("url").String(node.url);
    w.Key("partitions").Uint(node.partitions).EndObject();
  }
  w.EndArray();
  w.Key("partitions").BeginArray();
  for (size_t p = 0; p < status.map.size(); ++p) {
    w.BeginObject().Key("partition").Uint(p).Key("owner");
    status.map[p].node.empty() ? w.Null() : w.String(status.map[p].node);
    w.Key("epoch").Uint(status.map[p].epoch).EndObject();
  }
  w.EndArray();
  w.Key("orphaned").Uint(status.orphaned);
  w.EndObject();
  out.push_back('\n');
  return out;
}

std::string ClusterStatusText(const ClusterStatus& status) {
  std::string out =
      "controller: " + (status.controller.empty() ? "none" : status.controller) + "\n";
  for (const NodeStatus& node : status.nodes) {
    out += "node " + node.id + " " + node.url + ": " + std::to_string(node.partitions) +
           " partitions\n";
  }
  out += "partitions: " + std::to_string(status.map.size());
  if (status.orphaned) out += " (" + std::to_string(status.orphaned) + " without a live owner)";
  out += "\n";
  for (size_t p = 0; p < status.map.size(); ++p) {
    out += "  " + std::to_string(p) + ": " +
           (status.map[p].node.empty() ? "-" : status.map[p].node) + " epoch " +
           std::to_string(status.map[p].epoch) + "\n";
  }
  return out;
}

}  // namespace verdict::cluster
