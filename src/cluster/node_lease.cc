#include "cluster/node_lease.h"

#include <utility>

#include "cluster/cluster_keys.h"
#include "cluster/partition_map.h"

namespace verdict::cluster {

Result<std::unique_ptr<NodeLease>> NodeLease::Join(CoordinationStore& store, const Clock& clock,
                                                   NodeLeaseOptions options) {
  if (!ValidNodeId(options.node_id)) {
    return InvalidArgument("node id must be 1-64 printable characters without spaces",
                           "cluster.node_id");
  }
  if (options.ttl_seconds < 1) {
    return InvalidArgument("lease time must be at least 1 s", "cluster.lease_seconds");
  }
  const int64_t sent = clock.MonotonicNanos();
  auto lease = store.GrantLease(options.ttl_seconds);
  if (!lease.ok()) return lease.status();
  // Only if no live node has the id: two processes started with one id must not both serve.
  auto registered =
      store.Txn({Compare{NodeKey(options.node_id), Compare::Target::kCreateRevision, 0, {}}},
                {PutRequest{NodeKey(options.node_id), options.url, *lease}});
  if (!registered.ok() || !registered->succeeded) {
    (void)store.RevokeLease(*lease);
    if (!registered.ok()) return registered.status();
    return Status(StatusCode::kAlreadyExists, "a live node already has the id " + options.node_id,
                  "cluster.node_id");
  }
  const int64_t held_until = sent + options.ttl_seconds * int64_t{1'000'000'000};
  return std::unique_ptr<NodeLease>(
      new NodeLease(store, clock, std::move(options), *lease, held_until));
}

NodeLease::NodeLease(CoordinationStore& store, const Clock& clock, NodeLeaseOptions options,
                     int64_t lease, int64_t held_until_nanos)
    : store_(store),
      clock_(clock),
      options_(std::move(options)),
      lease_(lease),
      held_until_nanos_(held_until_nanos) {}

Status NodeLease::Renew() {
  if (held_until_nanos_.load(std::memory_order_acquire) == 0) {
    return Unavailable("lease of node " + options_.node_id + " has expired");
  }
  const int64_t sent = clock_.MonotonicNanos();
  auto ttl = store_.KeepAlive(lease_);
  if (!ttl.ok()) return ttl.status();  // the old bound stands: it may still run out
  if (*ttl <= 0) {
    held_until_nanos_.store(0, std::memory_order_release);
    return Unavailable("lease of node " + options_.node_id + " has expired");
  }
  const int64_t until = sent + *ttl * int64_t{1'000'000'000};
  // Never extend a bound once it has passed: the lease may have lapsed in between.
  int64_t current = held_until_nanos_.load(std::memory_order_acquire);
  while (current != 0 && current > clock_.MonotonicNanos() && until > current &&
         !held_until_nanos_.compare_exchange_weak(current, until, std::memory_order_acq_rel)) {
  }
  if (current != 0 && current <= clock_.MonotonicNanos()) {
    held_until_nanos_.store(0, std::memory_order_release);
    return Unavailable("lease of node " + options_.node_id + " ran out before it was renewed");
  }
  return Status::Ok();
}

Status NodeLease::Revoke() {
  held_until_nanos_.store(0, std::memory_order_release);
  return store_.RevokeLease(lease_);
}

bool NodeLease::Held() const {
  const int64_t until = held_until_nanos_.load(std::memory_order_acquire);
  return until != 0 && clock_.MonotonicNanos() < until;
}

}  // namespace verdict::cluster
