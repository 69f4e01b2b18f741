// Per-tenant resolution on the decision path: what finding a tenant's policy, models
// and metric series costs per decision, against the single atomic snapshot load that was there
// before. Figures in docs/PERFORMANCE.md ("Per-tenant resolution").
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "engine/tenant_metrics.h"
#include "engine/tenant_policies.h"
#include "features/feature_vector.h"
#include "lifecycle/registry_store.h"
#include "lifecycle/tenant_models.h"
#include "policy/fixed_rules.h"

namespace verdict {
namespace {

std::shared_ptr<const ActivePolicy> Rules(int64_t velocity) {
  FixedRulesOptions options;
  options.velocity_review_count_1h = velocity;
  return std::make_shared<const ActivePolicy>(FixedRules::Create(options, kFeatureNames).value());
}

// The caller's tenant as the engine has it: a std::string from the API key.
const std::string kTenant = "tenant-57";

// Before: one deployment-wide policy behind an atomic shared_ptr.
void BM_DeploymentPolicyLoad(benchmark::State& state) {
  std::atomic<std::shared_ptr<const ActivePolicy>> policy(Rules(20));
  for (auto _ : state) {
    auto p = policy.load();
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_DeploymentPolicyLoad);

// Now: arg 0 = no tenant has its own policy (the common case); arg N = N tenants have one and
// the caller's is among them.
void BM_TenantPolicyFor(benchmark::State& state) {
  TenantPolicies policies;
  policies.SetDeployment(Rules(20));
  for (int i = 0; i < state.range(0); ++i) {
    policies.Set("tenant-" + std::to_string(i), Rules(21 + i));
  }
  for (auto _ : state) {
    auto p = policies.For(kTenant);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_TenantPolicyFor)->Arg(0)->Arg(100)->Arg(1000);

// The models a decision uses: no tenant has its own lifecycle (arg 0), or N tenants have one
// (lifecycles without a primary, so the lookup finds the tenant and falls back, the longest
// path).
void BM_TenantModelsCurrent(benchmark::State& state) {
  static const std::vector<std::string_view> kSchema = {"amount"};
  lifecycle::MemoryRegistryStore store;
  SystemClock clock;
  lifecycle::LifecycleOptions options;
  options.registry.models_dir = "/nonexistent";
  options.registry.schema = kSchema;
  options.tick_interval_ms = 0;
  auto deployment =
      lifecycle::ModelLifecycle::Create(options, store, nullptr, clock, nullptr).value();
  lifecycle::TenantModels models(
      *deployment, [&](const std::string&) -> Result<lifecycle::TenantModels::Made> {
        lifecycle::TenantModels::Made made;
        made.store = std::make_unique<lifecycle::MemoryRegistryStore>();
        VERDICT_ASSIGN_OR_RETURN(
            made.lifecycle,
            lifecycle::ModelLifecycle::Create(options, *made.store, nullptr, clock, nullptr));
        return made;
      });
  for (int i = 0; i < state.range(0); ++i) {
    if (!models.OwnOrCreate("tenant-" + std::to_string(i)).ok()) state.SkipWithError("create");
  }
  for (auto _ : state) {
    auto resolved = models.Current(kTenant);
    benchmark::DoNotOptimize(resolved);
  }
}
BENCHMARK(BM_TenantModelsCurrent)->Arg(0)->Arg(100);

// The tenant's decision counters and latency histogram, after its first decision.
void BM_TenantMetricsFor(benchmark::State& state) {
  MetricsRegistry registry;
  TenantMetrics metrics(registry);
  for (int i = 0; i < state.range(0); ++i) metrics.For("tenant-" + std::to_string(i));
  metrics.For(kTenant);
  for (auto _ : state) {
    const TenantMetrics::Series* s = &metrics.For(kTenant);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_TenantMetricsFor)->Arg(1)->Arg(100);

}  // namespace
}  // namespace verdict

BENCHMARK_MAIN();
