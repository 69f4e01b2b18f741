// FakeCoordinationStore: an in-memory CoordinationStore for tests, with etcd's semantics where
// the cluster relies on them (a global revision bumped by every write, create and mod revisions,
// compare-then-put transactions, leases that expire on an injected clock and take their keys
// with them). Thread-safe. Tests only; the engine always talks to a real etcd.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cluster/coordination_store.h"
#include "common/clock.h"
#include "common/mutex.h"

namespace verdict::cluster {

class FakeCoordinationStore final : public CoordinationStore {
 public:
  explicit FakeCoordinationStore(const Clock& clock) : clock_(clock) {}

  Result<RangeResult> Range(std::string_view prefix, bool prefix_match) override EXCLUDES(mu_) {
    MutexLock lock(mu_);
    ExpireLocked();
    RangeResult result{{}, revision_};
    for (const auto& [key, kv] : kvs_) {
      if (prefix_match ? key.compare(0, prefix.size(), prefix) == 0 : key == prefix) {
        result.kvs.push_back(kv);
      }
    }
    return result;
  }

  Result<TxnResult> Txn(const std::vector<Compare>& compares,
                        const std::vector<PutRequest>& puts) override EXCLUDES(mu_) {
    MutexLock lock(mu_);
    ExpireLocked();
    for (const Compare& c : compares) {
      auto it = kvs_.find(c.key);
      const KeyValue absent;
      const KeyValue& kv = it == kvs_.end() ? absent : it->second;
      const bool holds =
          c.target == Compare::Target::kCreateRevision ? kv.create_revision == c.revision
          : c.target == Compare::Target::kModRevision  ? kv.mod_revision == c.revision
                                                       : (it != kvs_.end() && kv.value == c.value);
      if (!holds) return TxnResult{false, revision_};
    }
    for (const PutRequest& put : puts) {
      if (put.lease != 0 && !leases_.count(put.lease)) {
        return Status(StatusCode::kNotFound, "etcdserver: requested lease not found");
      }
    }
    if (!puts.empty()) ++revision_;
    for (const PutRequest& put : puts) {
      KeyValue& kv = kvs_[put.key];
      if (kv.create_revision == 0) kv.create_revision = revision_;
      kv.key = put.key;
      kv.value = put.value;
      kv.mod_revision = revision_;
      kv.lease = put.lease;
    }
    return TxnResult{true, revision_};
  }

  Result<int64_t> GrantLease(int64_t ttl_seconds) override EXCLUDES(mu_) {
    MutexLock lock(mu_);
    ExpireLocked();
    const int64_t id = next_lease_++;
    leases_[id] = {ttl_seconds, clock_.NowMicros() + ttl_seconds * kMicrosPerSecond};
    return id;
  }

  Result<int64_t> KeepAlive(int64_t lease) override EXCLUDES(mu_) {
    MutexLock lock(mu_);
    if (unreachable_) return Unavailable("fake etcd: unreachable");
    ExpireLocked();
    auto it = leases_.find(lease);
    if (it == leases_.end()) return int64_t{0};
    it->second.second = clock_.NowMicros() + it->second.first * kMicrosPerSecond;
    return it->second.first;
  }

  Status RevokeLease(int64_t lease) override EXCLUDES(mu_) {
    MutexLock lock(mu_);
    DropLeaseLocked(lease);
    return Status::Ok();
  }

  // While set, KeepAlive fails as if the network to etcd were cut.
  void SetUnreachable(bool unreachable) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    unreachable_ = unreachable;
  }

 private:
  void ExpireLocked() REQUIRES(mu_) {
    const int64_t now = clock_.NowMicros();
    std::vector<int64_t> expired;
    for (const auto& [id, lease] : leases_) {
      if (lease.second <= now) expired.push_back(id);
    }
    for (int64_t id : expired) DropLeaseLocked(id);
  }
  void DropLeaseLocked(int64_t lease) REQUIRES(mu_) {
    if (!leases_.erase(lease)) return;
    bool dropped = false;
    for (auto it = kvs_.begin(); it != kvs_.end();) {
      if (it->second.lease == lease) {
        it = kvs_.erase(it);
        dropped = true;
      } else {
        ++it;
      }
    }
    if (dropped) ++revision_;
  }

  const Clock& clock_;
  Mutex mu_;
  std::map<std::string, KeyValue, std::less<>> kvs_ GUARDED_BY(mu_);
  // id -> (ttl seconds, expiry in clock micros)
  std::map<int64_t, std::pair<int64_t, int64_t>> leases_ GUARDED_BY(mu_);
  int64_t revision_ GUARDED_BY(mu_) = 1;
  int64_t next_lease_ GUARDED_BY(mu_) = 1000;
  bool unreachable_ GUARDED_BY(mu_) = false;
};

}  // namespace verdict::cluster
