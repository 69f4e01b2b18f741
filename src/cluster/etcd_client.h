// EtcdClient: CoordinationStore over etcd's JSON gateway (/v3/kv/range, /v3/kv/txn,
// /v3/lease/grant|keepalive|revoke), the API etcd serves beside gRPC on its client port. Debian
// packages etcd's server but no C or C++ client; the gateway needs only HTTP/1.1 and JSON, which
// the engine already has (docs/architecture.md, cluster). Keys and values are base64 in the
// JSON, 64-bit numbers are strings, and fields with default values are left out.
// Thread-safe: calls are serialized over one kept-alive connection.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/coordination_store.h"
#include "cluster/http_client.h"
#include "common/mutex.h"

namespace verdict::cluster {

class EtcdClient final : public CoordinationStore {
 public:
  // `url`: "http://host:port" of one etcd member. `timeout`: per call.
  static Result<std::unique_ptr<EtcdClient>> Create(std::string_view url,
                                                    std::chrono::milliseconds timeout);

  Result<RangeResult> Range(std::string_view prefix, bool prefix_match) override EXCLUDES(mu_);
  Result<TxnResult> Txn(const std::vector<Compare>& compares,
                        const std::vector<PutRequest>& puts) override EXCLUDES(mu_);
  Result<int64_t> GrantLease(int64_t ttl_seconds) override EXCLUDES(mu_);
  Result<int64_t> KeepAlive(int64_t lease) override EXCLUDES(mu_);
  Status RevokeLease(int64_t lease) override EXCLUDES(mu_);

 private:
  explicit EtcdClient(HttpEndpoint endpoint, std::chrono::milliseconds timeout)
      : http_(std::move(endpoint), timeout) {}
  // POSTs to the gateway and returns the body of a 200 answer.
  Result<std::string> Call(std::string_view path, const std::string& body) EXCLUDES(mu_);

  Mutex mu_;
  HttpClient http_ GUARDED_BY(mu_);
};

// Base64 (RFC 4648, padded) as the gateway encodes bytes.
std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);

}  // namespace verdict::cluster
