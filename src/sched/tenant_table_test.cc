#include "sched/tenant_table.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(TenantTableTest, DefaultIsIdZeroConfiguredTenantsKeepTheirSettingsOthersGetWeightOne) {
  TenantTable table({{"acme", 3, 100, 10}, {"globex", 1, 0, 0}});
  EXPECT_EQ(table.Get(kDefaultTenantId).name, "default");
  const TenantId acme = table.Intern("acme");
  EXPECT_NE(acme, kDefaultTenantId);
  EXPECT_EQ(table.Intern("acme"), acme);
  EXPECT_EQ(table.Get(acme).weight, 3);
  EXPECT_EQ(table.Get(acme).bucket.rate_per_s(), 100);
  EXPECT_EQ(table.Get(acme).bucket.burst(), 10);
  EXPECT_TRUE(table.Get(table.Intern("globex")).bucket.unlimited());
  const TenantId other = table.Intern("initech");
  EXPECT_EQ(table.Get(other).weight, 1);
  EXPECT_TRUE(table.Get(other).bucket.unlimited());
  EXPECT_EQ(table.size(), 4u);
}

TEST(TenantTableTest, BurstDefaultsToOneSecondOfTheRate) {
  TenantTable table({{"a", 1, 50, 0}});
  EXPECT_EQ(table.Get(table.Intern("a")).bucket.burst(), 50);
}

TEST(TenantTableTest, CapacityShareCountsConfiguredTenantsAndThoseThatHaveSubmitted) {
  TenantTable table({{"a", 3, 0, 0}, {"b", 1, 0, 0}});
  // The unconfigured default tenant has not submitted: a and b split the capacity 3:1.
  EXPECT_DOUBLE_EQ(table.CapacityShare(table.Intern("b")), 0.25);
  // Once the default tenant submits, it takes its share of 1 / (3 + 1 + 1).
  EXPECT_DOUBLE_EQ(table.CapacityShare(kDefaultTenantId), 0.2);
  EXPECT_DOUBLE_EQ(table.CapacityShare(table.Intern("a")), 0.6);
  // A single-tenant deployment: the whole capacity.
  TenantTable single({});
  EXPECT_DOUBLE_EQ(single.CapacityShare(kDefaultTenantId), 1.0);
}

TEST(TenantTableTest, NamesBeyondTheLimitShareTheLastId) {
  TenantTable table({});
  for (size_t i = 1; i < TenantTable::kMaxTenants; ++i) table.Intern("t" + std::to_string(i));
  EXPECT_EQ(table.size(), TenantTable::kMaxTenants);
  EXPECT_EQ(table.Intern("one-too-many"), TenantTable::kMaxTenants - 1);
  EXPECT_EQ(table.Intern("t1"), 1u);
}

}  // namespace
}  // namespace verdict
