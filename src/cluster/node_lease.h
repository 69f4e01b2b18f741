// NodeLease: a node's membership in the cluster: an etcd lease with the node's key on it
// (cluster_keys.h), renewed by Renew(), and the node's own view of whether it still holds it.
// The view is conservative: a renewal counts from the moment its request was sent, so the node
// believes its lease lost no later than etcd expires it, and stops acknowledging for its
// partitions before the controller can give them away. Correctness does not rest on it (the
// journal's fence does, DESIGN §9); it keeps a cut-off node from answering 503s late.
// Thread-safe: Renew from one thread (the node's lease loop), Held from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "cluster/coordination_store.h"
#include "common/clock.h"
#include "common/result.h"

namespace verdict::cluster {

struct NodeLeaseOptions {
  std::string node_id;
  std::string url;  // where other nodes forward requests to this one
  int64_t ttl_seconds = 5;
};

class NodeLease {
 public:
  // Grants a lease and registers the node under it; refused when another live node has the id.
  static Result<std::unique_ptr<NodeLease>> Join(CoordinationStore& store, const Clock& clock,
                                                 NodeLeaseOptions options);
  NodeLease(const NodeLease&) = delete;
  NodeLease& operator=(const NodeLease&) = delete;

  // Keeps the lease alive. kUnavailable when etcd cannot be reached, or has expired the lease
  // (then Held() is false for good: the node must Join again, as a new member).
  Status Renew();
  // Gives the lease up (its key goes with it), so that the partitions can move at once rather
  // than when it expires. Held() is false afterwards.
  Status Revoke();
  // Whether the lease is certainly still alive in etcd now.
  bool Held() const;
  int64_t lease_id() const { return lease_; }
  const std::string& node_id() const { return options_.node_id; }

 private:
  NodeLease(CoordinationStore& store, const Clock& clock, NodeLeaseOptions options, int64_t lease,
            int64_t held_until_nanos);

  CoordinationStore& store_;
  const Clock& clock_;
  const NodeLeaseOptions options_;
  const int64_t lease_;
  // Monotonic nanos until which the lease is certainly alive; 0 once etcd said it expired.
  std::atomic<int64_t> held_until_nanos_;
};

}  // namespace verdict::cluster
