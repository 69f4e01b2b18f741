// TenantTable: the tenants the scheduler shares out service between, each with a small integer
// id, a weight and a rate limit (TokenBucket). Configured tenants come first; others are added
// on first sight with weight 1 and no limit. Owned by the Scheduler; thread-safe (lookups by id
// are lock-free, interning a new name takes a mutex).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "sched/scheduler_options.h"
#include "sched/token_bucket.h"

namespace verdict {

using TenantId = uint32_t;
// Id 0 is always the tenant named "default": the one everything belongs to until requests
// carry their caller's tenant, and the one `--insecure-dev`-style single-tenant setups use.
constexpr TenantId kDefaultTenantId = 0;
constexpr std::string_view kDefaultTenantName = "default";

class TenantTable {
 public:
  // At most this many tenants get their own id; names beyond share the last one (a fairness
  // lane, not an isolation boundary: isolation is enforced elsewhere, I7).
  static constexpr size_t kMaxTenants = 4096;

  struct Tenant {
    Tenant(std::string n, double w, double rate, double burst)
        : name(std::move(n)), weight(w), bucket(rate, burst > 0 ? burst : rate) {}
    const std::string name;
    const double weight;
    TokenBucket bucket;
    std::atomic<bool> counted{false};  // its weight is in total_weight()
  };

  // `configured` must have valid entries (names unique and non-empty, weight > 0): the
  // configuration loader checks them.
  explicit TenantTable(const std::vector<TenantOptions>& configured);

  // The id of `name`, adding it when new.
  TenantId Intern(std::string_view name) EXCLUDES(mu_);
  // `id` must come from Intern or be kDefaultTenantId.
  Tenant& Get(TenantId id) { return *slots_[id]; }
  const Tenant& Get(TenantId id) const { return *slots_[id]; }
  size_t size() const { return count_.load(std::memory_order_acquire); }

  // Counts the tenant's weight towards the total once (on its first request; configured
  // tenants count from the start). Returns weight / total weight: its share of the queues.
  double CapacityShare(TenantId id);
  double total_weight() const { return total_weight_.load(std::memory_order_relaxed); }

 private:
  TenantId AddLocked(std::string name, double weight, double rate, double burst) REQUIRES(mu_);
  void Count(Tenant& tenant);

  Mutex mu_;  // serializes adding slots (AddLocked)
  std::map<std::string, TenantId, std::less<>> names_ GUARDED_BY(mu_);
  // Not GUARDED_BY: a slot is written once under mu_ and then read without a lock, published
  // by count_'s release store; the analysis has no term for "guarded until published".
  std::array<std::unique_ptr<Tenant>, kMaxTenants> slots_;
  std::atomic<size_t> count_{0};
  std::atomic<double> total_weight_{0};
};

}  // namespace verdict
