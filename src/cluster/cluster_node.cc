#include "cluster/cluster_node.h"

#include <utility>

#include "cluster/cluster_keys.h"

namespace verdict::cluster {

Result<std::unique_ptr<ClusterNode>> ClusterNode::Join(CoordinationStore& store, const Clock& clock,
                                                       ClusterNodeOptions options) {
  if (options.partitions == 0) {
    return InvalidArgument("partitions must be at least 1", "cluster.partitions");
  }
  auto lease = NodeLease::Join(store, clock, {options.node_id, options.url, options.lease_seconds});
  if (!lease.ok()) return lease.status();
  return std::unique_ptr<ClusterNode>(
      new ClusterNode(store, clock, std::move(options), std::move(*lease)));
}

ClusterNode::ClusterNode(CoordinationStore& store, const Clock& clock, ClusterNodeOptions options,
                         std::unique_ptr<NodeLease> lease)
    : store_(store),
      clock_(clock),
      options_(std::move(options)),
      controller_(store, options_.node_id, options_.partitions, options_.placement),
      lease_(std::move(lease)) {}

std::shared_ptr<NodeLease> ClusterNode::lease() const {
  MutexLock lock(mu_);
  return lease_;
}

Status ClusterNode::Tick() {
  std::shared_ptr<NodeLease> lease = this->lease();
  if (!lease->Held()) {
    // Lapsed (or given up): the old lease may not be renewed; join again as a new member
    // (refused while etcd still holds the old key).
    auto joined =
        NodeLease::Join(store_, clock_, {options_.node_id, options_.url, options_.lease_seconds});
    if (!joined.ok()) return joined.status();
    lease = std::move(*joined);
    MutexLock lock(mu_);
    lease_ = lease;
    map_.clear();
  } else {
    VERDICT_RETURN_IF_ERROR(lease->Renew());
  }
  auto round = controller_.Tick(lease->lease_id());
  if (!round.ok()) return round.status();
  auto nodes = store_.Range(kNodesPrefix, /*prefix_match=*/true);
  if (!nodes.ok()) return nodes.status();
  std::map<std::string, std::string> urls;
  for (const KeyValue& kv : nodes->kvs) urls[kv.key.substr(kNodesPrefix.size())] = kv.value;
  MutexLock lock(mu_);
  map_ = std::move(round->map);
  is_controller_ = round->is_controller;
  node_urls_ = std::move(urls);
  return Status::Ok();
}

Status ClusterNode::Leave() { return lease()->Revoke(); }

bool ClusterNode::lease_held() const { return lease()->Held(); }

bool ClusterNode::MayServe(uint32_t partition) const {
  MutexLock lock(mu_);
  if (!lease_->Held()) return false;
  return partition < map_.size() && map_[partition].node == options_.node_id;
}

std::vector<OwnedPartition> ClusterNode::Owned() const {
  std::vector<OwnedPartition> owned;
  MutexLock lock(mu_);
  if (!lease_->Held()) return owned;
  for (uint32_t p = 0; p < map_.size(); ++p) {
    if (map_[p].node == options_.node_id) owned.push_back({p, map_[p].epoch});
  }
  return owned;
}

std::optional<std::string> ClusterNode::OwnerUrl(uint32_t partition) const {
  MutexLock lock(mu_);
  if (partition >= map_.size() || map_[partition].node == options_.node_id) return std::nullopt;
  auto it = node_urls_.find(map_[partition].node);
  if (it == node_urls_.end()) return std::nullopt;
  return it->second;
}

bool ClusterNode::is_controller() const {
  MutexLock lock(mu_);
  return is_controller_ && lease_->Held();
}

}  // namespace verdict::cluster
