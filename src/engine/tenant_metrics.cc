#include "engine/tenant_metrics.h"

#include <string>

namespace verdict {

TenantMetrics::Series TenantMetrics::Make(std::string_view label) {
  Series s{};
  const std::string tenant(label);
  for (Outcome outcome : {Outcome::kAllow, Outcome::kReview, Outcome::kBlock}) {
    for (DecisionPath path : {DecisionPath::kModel, DecisionPath::kFallback}) {
      s.decisions[static_cast<int>(outcome)][static_cast<int>(path)] = metrics_.GetCounter(
          "verdict_engine_decisions_total", "Decisions by outcome, path and tenant",
          {{"outcome", std::string(OutcomeName(outcome))},
           {"path", std::string(DecisionPathName(path))},
           {"tenant", tenant}});
    }
  }
  s.latency =
      metrics_.GetHistogram("verdict_engine_decision_seconds",
                            "Decision latency by tenant, from arrival to the durable answer",
                            LatencyBucketsSeconds(), {{"tenant", tenant}});
  return s;
}

const TenantMetrics::Series& TenantMetrics::For(std::string_view tenant) {
  std::optional<const Series*> found =
      by_tenant_.FindOrInsert(tenant, [&]() -> std::optional<const Series*> {
        MutexLock lock(series_mu_);
        if (by_tenant_.size() >= kMaxTenants) {
          if (overflow_ == nullptr) overflow_ = &series_.emplace_back(Make(kOverflowTenant));
          return overflow_;
        }
        return &series_.emplace_back(Make(tenant));
      });
  return **found;
}

}  // namespace verdict
