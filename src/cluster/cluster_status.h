// ClusterStatus: what `verdict cluster status` shows, read from etcd: the live nodes, the
// controller, and the partition map with each partition's owner and epoch. Plain values;
// ReadClusterStatus is one consistent-enough snapshot (three reads), for operators, not for
// decisions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/coordination_store.h"
#include "cluster/partition_map.h"
#include "common/result.h"

namespace verdict::cluster {

struct NodeStatus {
  std::string id;
  std::string url;
  size_t partitions = 0;  // owned in the map
};

struct ClusterStatus {
  std::vector<NodeStatus> nodes;  // live (leased) nodes, by id
  std::string controller;         // empty: none
  PartitionMap map;               // empty: no map published yet
  // Partitions whose owner is not a live node (waiting for the controller).
  size_t orphaned = 0;
};

Result<ClusterStatus> ReadClusterStatus(CoordinationStore& store);
// {"controller", "nodes": [{"id", "url", "partitions"}], "partitions": [{"partition",
// "owner", "epoch"}], "orphaned"}
std::string ClusterStatusJson(const ClusterStatus& status);
// A few lines for a terminal.
std::string ClusterStatusText(const ClusterStatus& status);

}  // namespace verdict::cluster
