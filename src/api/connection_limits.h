// ConnectionLimits: the server's open connections counted by client address and by tenant, so
// that one client (or one tenant's clients) holding many connections, idle or busy, cannot take
// all of the server's max_connections from everyone else. A connection holds a Claim on its
// address from the moment it is accepted, and one on its tenant from its first authenticated
// request; a Claim gives its slot back when destroyed. Owned by the server, which outlives its
// connections; thread-safe (claims are taken and dropped on every I/O thread).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace verdict {

class ConnectionLimits {
 public:
  // 0 for either: no limit of that kind.
  ConnectionLimits(size_t per_address, size_t per_tenant);
  ConnectionLimits(const ConnectionLimits&) = delete;
  ConnectionLimits& operator=(const ConnectionLimits&) = delete;

  // One slot held by one connection. Move-only; an empty Claim (default, or refused) holds none.
  class Claim {
   public:
    Claim() = default;
    Claim(Claim&& other) noexcept { *this = std::move(other); }
    Claim& operator=(Claim&& other) noexcept;
    ~Claim() { Release(); }

    bool held() const { return owner_ != nullptr; }
    const std::string& key() const { return key_; }  // the address or tenant; empty if none

   private:
    friend class ConnectionLimits;
    enum class Kind { kAddress, kTenant };
    Claim(ConnectionLimits* owner, Kind kind, std::string key)
        : owner_(owner), kind_(kind), key_(std::move(key)) {}
    void Release();

    ConnectionLimits* owner_ = nullptr;
    Kind kind_ = Kind::kAddress;
    std::string key_;
  };

  // A slot for one more connection from `address` (any stable spelling of it, e.g. its text),
  // or an empty Claim when that address holds per_address connections already.
  Claim ClaimAddress(std::string_view address) EXCLUDES(mu_);
  // Likewise for a connection whose requests authenticate as `tenant`.
  Claim ClaimTenant(std::string_view tenant) EXCLUDES(mu_);

  // Connections held now (tests, metrics).
  size_t HeldByAddress(std::string_view address) const EXCLUDES(mu_);
  size_t HeldByTenant(std::string_view tenant) const EXCLUDES(mu_);

 private:
  using Counts = std::unordered_map<std::string, size_t>;
  Claim Take(Claim::Kind kind, std::string_view key) EXCLUDES(mu_);
  void Give(Claim::Kind kind, const std::string& key) EXCLUDES(mu_);
  Counts& CountsOf(Claim::Kind kind) REQUIRES(mu_) {
    return kind == Claim::Kind::kAddress ? by_address_ : by_tenant_;
  }

  const size_t per_address_;
  const size_t per_tenant_;
  mutable Mutex mu_;
  Counts by_address_ GUARDED_BY(mu_);  // only addresses holding at least one
  Counts by_tenant_ GUARDED_BY(mu_);
};

}  // namespace verdict
