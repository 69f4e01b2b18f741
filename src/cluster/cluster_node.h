// ClusterNode: one node's membership loop (DESIGN §9): its lease, the controller round, and its
// view of which partitions it owns. Tick() is the loop's body (renew the lease, run the
// controller, read the map); MayServe answers, for the request path, whether this node may
// acknowledge for a partition now: the map gives it the partition and its own lease certainly
// holds. That view only keeps a cut-off node from answering late; the journal's fence decides
// (PgPartitionLog), so two nodes can never both have a decision acknowledged for a partition.
// Thread-safe: Tick from one thread (the node's lease loop), the rest from any.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/controller.h"
#include "cluster/coordination_store.h"
#include "cluster/node_lease.h"
#include "cluster/partition_map.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"

namespace verdict::cluster {

struct ClusterNodeOptions {
  std::string node_id;
  std::string url;  // where other nodes reach this one
  int64_t lease_seconds = 5;
  uint32_t partitions = 64;
  Placement placement = Placement::kSpread;
};

struct OwnedPartition {
  uint32_t partition = 0;
  uint64_t epoch = 0;
  bool operator==(const OwnedPartition&) const = default;
};

class ClusterNode {
 public:
  // Joins the cluster (NodeLease::Join): refused when a live node has the id.
  static Result<std::unique_ptr<ClusterNode>> Join(CoordinationStore& store, const Clock& clock,
                                                   ClusterNodeOptions options);
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  // One round: renews the lease, runs the controller (it acts only on the node holding the
  // controller key) and takes the map it read as this node's view. An error leaves the last
  // view in place; MayServe still ends with the lease's own bound. A node whose lease expired
  // (a stalled or cut-off process) joins again with a new lease in the next round: it comes
  // back as a new member, and the controller gives it partitions only as it would a newcomer.
  Status Tick() EXCLUDES(mu_);
  // Leaves the cluster: revokes the lease (NodeLease::Revoke).
  Status Leave() EXCLUDES(mu_);
  // Whether this node may acknowledge decisions for `partition` now.
  bool MayServe(uint32_t partition) const EXCLUDES(mu_);
  // The partitions the last map gives this node, with their epochs (the fence a claim raises);
  // empty once the lease is lost.
  std::vector<OwnedPartition> Owned() const EXCLUDES(mu_);
  bool is_controller() const EXCLUDES(mu_);
  // The URL of the live node the last map gives `partition`, if it is another node (where this
  // node forwards requests for it); none when this node owns it or no live node does.
  std::optional<std::string> OwnerUrl(uint32_t partition) const EXCLUDES(mu_);
  bool lease_held() const EXCLUDES(mu_);
  const std::string& node_id() const { return options_.node_id; }
  // Milliseconds between rounds: a third of the lease, so two rounds may fail before it lapses.
  int64_t tick_interval_ms() const { return options_.lease_seconds * 1000 / 3; }

 private:
  ClusterNode(CoordinationStore& store, const Clock& clock, ClusterNodeOptions options,
              std::unique_ptr<NodeLease> lease);
  std::shared_ptr<NodeLease> lease() const EXCLUDES(mu_);

  CoordinationStore& store_;
  const Clock& clock_;
  const ClusterNodeOptions options_;
  Controller controller_;
  mutable Mutex mu_;
  // Replaced when the node joins again after its lease expired.
  std::shared_ptr<NodeLease> lease_ GUARDED_BY(mu_);
  PartitionMap map_ GUARDED_BY(mu_);
  bool is_controller_ GUARDED_BY(mu_) = false;
  // Live nodes' URLs by id, as last read.
  std::map<std::string, std::string> node_urls_ GUARDED_BY(mu_);
};

}  // namespace verdict::cluster
