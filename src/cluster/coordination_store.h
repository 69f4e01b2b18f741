// CoordinationStore: the part of etcd's v3 API the cluster uses (DESIGN §9): keys with revisions,
// one-shot transactions that compare then write, and leases that expire unless kept alive. The
// real one is EtcdClient (etcd's JSON gateway); tests use FakeCoordinationStore with a fake
// clock. Implementations are thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace verdict::cluster {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t lease = 0;  // 0: none
};

struct RangeResult {
  std::vector<KeyValue> kvs;  // in key order
  int64_t revision = 0;       // the store's revision when read
};

// One comparison of a transaction; all must hold for its writes to happen.
struct Compare {
  enum class Target { kCreateRevision, kModRevision, kValue };
  std::string key;
  Target target = Target::kModRevision;
  int64_t revision = 0;  // kCreateRevision / kModRevision; 0 with kCreateRevision: key absent
  std::string value;     // kValue
};

struct PutRequest {
  std::string key;
  std::string value;
  int64_t lease = 0;  // the key is deleted when this lease expires; 0: never
};

struct TxnResult {
  bool succeeded = false;  // every comparison held and every put was applied
  int64_t revision = 0;    // the store's revision after the transaction
};

class CoordinationStore {
 public:
  virtual ~CoordinationStore() = default;

  // Every key starting with `prefix` (an exact key when `prefix_match` is false).
  virtual Result<RangeResult> Range(std::string_view prefix, bool prefix_match) = 0;
  // If every comparison holds, applies every put, atomically.
  virtual Result<TxnResult> Txn(const std::vector<Compare>& compares,
                                const std::vector<PutRequest>& puts) = 0;
  // A lease of `ttl_seconds`; returns its id.
  virtual Result<int64_t> GrantLease(int64_t ttl_seconds) = 0;
  // Renews the lease; returns its remaining seconds, 0 when it has expired (it is gone then,
  // with every key attached to it).
  virtual Result<int64_t> KeepAlive(int64_t lease) = 0;
  virtual Status RevokeLease(int64_t lease) = 0;
};

}  // namespace verdict::cluster
