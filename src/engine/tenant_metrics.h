// TenantMetrics: the per-tenant decision metrics: verdict_engine_decisions_total by outcome,
// path and tenant, and verdict_engine_decision_seconds (the decision's total latency) by
// tenant. A tenant's series are registered on its first decision and then found lock-free
// without allocating (TenantMap). Tenants come from API keys, never from request bodies, and
// at most kMaxTenants get their own label; later ones share tenant="(others)" (no tenant name
// has parentheses, security/api_key.h), so the series count stays bounded. Owns the lookup
// table; the registry owns the metrics. Thread-safe.
#pragma once

#include <cstddef>
#include <deque>
#include <string_view>

#include "common/metrics.h"
#include "common/mutex.h"
#include "common/tenant_map.h"
#include "common/thread_annotations.h"
#include "core/decision.h"

namespace verdict {

class TenantMetrics {
 public:
  static constexpr size_t kMaxTenants = 256;
  static constexpr std::string_view kOverflowTenant = "(others)";

  struct Series {
    Counter* decisions[3][2];  // [outcome][path]
    Histogram* latency;        // seconds, from arrival to durable answer
  };

  explicit TenantMetrics(MetricsRegistry& metrics) : metrics_(metrics) {}

  // The tenant's series, registered on first use.
  const Series& For(std::string_view tenant) EXCLUDES(series_mu_);

 private:
  Series Make(std::string_view label);

  MetricsRegistry& metrics_;
  TenantMap<const Series*> by_tenant_;
  // Taken only to register a tenant's series (by_tenant_ is read lock-free).
  Mutex series_mu_;
  std::deque<Series> series_ GUARDED_BY(series_mu_);  // stable addresses
  const Series* overflow_ GUARDED_BY(series_mu_) = nullptr;
};

}  // namespace verdict
