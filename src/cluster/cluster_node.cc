#include "cluster/cluster_node.h"

#include <utility>

namespace verdict::cluster {

Result<std::unique_ptr<ClusterNode>> ClusterNode::Join(CoordinationStore& store, const Clock& clock,
                                                       ClusterNodeOptions options) {
  if (options.partitions == 0) {
    return InvalidArgument("partitions must be at least 1", "cluster.partitions");
  }
  auto lease = NodeLease::Join(store, clock, {options.node_id, options.url, options.lease_seconds});
  if (!lease.ok()) return lease.status();
  return std::unique_ptr<ClusterNode>(
      new ClusterNode(store, std::move(options), std::move(*lease)));
}

ClusterNode::ClusterNode(CoordinationStore& store, ClusterNodeOptions options,
                         std::unique_ptr<NodeLease> lease)
    : options_(std::move(options)),
      lease_(std::move(lease)),
      controller_(store, options_.node_id, options_.partitions) {}

Status ClusterNode::Tick() {
  VERDICT_RETURN_IF_ERROR(lease_->Renew());
  auto round = controller_.Tick(lease_->lease_id());
  if (!round.ok()) return round.status();
  MutexLock lock(mu_);
  map_ = std::move(round->map);
  is_controller_ = round->is_controller;
  return Status::Ok();
}

bool ClusterNode::MayServe(uint32_t partition) const {
  if (!lease_->Held()) return false;
  MutexLock lock(mu_);
  return partition < map_.size() && map_[partition].node == options_.node_id;
}

std::vector<OwnedPartition> ClusterNode::Owned() const {
  std::vector<OwnedPartition> owned;
  if (!lease_->Held()) return owned;
  MutexLock lock(mu_);
  for (uint32_t p = 0; p < map_.size(); ++p) {
    if (map_[p].node == options_.node_id) owned.push_back({p, map_[p].epoch});
  }
  return owned;
}

bool ClusterNode::is_controller() const {
  MutexLock lock(mu_);
  return is_controller_ && lease_->Held();
}

}  // namespace verdict::cluster
