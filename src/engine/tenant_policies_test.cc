#include "engine/tenant_policies.h"

#include <gtest/gtest.h>

#include "features/feature_vector.h"
#include "policy/fixed_rules.h"

namespace verdict {
namespace {

// Fixed rules that differ by their velocity limit (and so by their SHA-256).
std::shared_ptr<const ActivePolicy> Rules(int64_t velocity) {
  FixedRulesOptions options;
  options.velocity_review_count_1h = velocity;
  auto rules = FixedRules::Create(options, kFeatureNames);
  EXPECT_TRUE(rules.ok()) << rules.status().message();
  return std::make_shared<const ActivePolicy>(std::move(rules).value());
}

TEST(TenantPoliciesTest, ATenantWithoutItsOwnUsesTheDeployments) {
  TenantPolicies policies;
  auto deployment = Rules(1'000'000);
  policies.SetDeployment(deployment);
  EXPECT_EQ(policies.For("alpha"), deployment);
  EXPECT_EQ(policies.Own("alpha"), nullptr);
  EXPECT_EQ(policies.tenants_with_own(), 0u);
}

TEST(TenantPoliciesTest, ATenantsOwnPolicyDecidesOnlyItsDecisions) {
  TenantPolicies policies;
  auto deployment = Rules(1'000'000);
  policies.SetDeployment(deployment);
  auto alpha = Rules(100);
  policies.Set("alpha", alpha);
  EXPECT_EQ(policies.For("alpha"), alpha);
  EXPECT_EQ(policies.Own("alpha"), alpha);
  EXPECT_EQ(policies.For("beta"), deployment);
  EXPECT_EQ(policies.For("alpha2"), deployment);
  EXPECT_EQ(policies.deployment(), deployment);
  EXPECT_NE(alpha->ref().sha256, deployment->ref().sha256);
}

TEST(TenantPoliciesTest, ADecisionKeepsThePolicyItStartedWith) {
  TenantPolicies policies;
  policies.SetDeployment(Rules(1'000'000));
  auto first = Rules(100);
  policies.Set("alpha", first);
  std::shared_ptr<const ActivePolicy> held = policies.For("alpha");
  policies.Set("alpha", Rules(200));
  EXPECT_EQ(held, first);
  EXPECT_EQ(held->ref().sha256, first->ref().sha256);
  EXPECT_NE(policies.For("alpha"), first);
}

}  // namespace
}  // namespace verdict
