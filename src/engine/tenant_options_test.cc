// [tenants.<name>] configuration (SchedulerOptions::tenants), read by engine_options.cc.
#include <gtest/gtest.h>

#include "engine/engine_options.h"

namespace verdict {
namespace {

TEST(TenantOptionsTest, NoTenantsSectionKeepsTheSingleTenantDefaults) {
  auto options = ParseEngineOptions("[engine]\nworkers = 1\n", "t.toml");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->sched.tenants.empty());
}

TEST(TenantOptionsTest, ReadsWeightRateAndBurstPerTenant) {
  auto options = ParseEngineOptions(
      "[tenants.acme]\nweight = 3\nrate = 500\nburst = 50\n[tenants.globex]\nweight = 0.5\n",
      "t.toml");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  ASSERT_EQ(options->sched.tenants.size(), 2u);
  const TenantOptions* acme = nullptr;
  const TenantOptions* globex = nullptr;
  for (const auto& t : options->sched.tenants) (t.name == "acme" ? acme : globex) = &t;
  ASSERT_NE(acme, nullptr);
  ASSERT_NE(globex, nullptr);
  EXPECT_EQ(acme->weight, 3);
  EXPECT_EQ(acme->rate_per_s, 500);
  EXPECT_EQ(acme->burst, 50);
  EXPECT_EQ(globex->name, "globex");
  EXPECT_EQ(globex->weight, 0.5);
  EXPECT_EQ(globex->rate_per_s, 0);
}

TEST(TenantOptionsTest, BadValuesAreErrorsNamingTheKey) {
  struct Case {
    const char* toml;
    const char* field;
  };
  const Case cases[] = {
      {"[tenants.a]\nweight = 0\n", "tenants.a.weight"},
      {"[tenants.a]\nweight = \"high\"\n", "tenants.a.weight"},
      {"[tenants.a]\nrate = -1\n", "tenants.a.rate"},
      {"[tenants.a]\nrate = 10\nburst = 0.5\n", "tenants.a.burst"},
      {"[tenants.a]\nburst = 5\n", "tenants.a.burst"},
      {"[tenants.a]\nwieght = 2\n", "tenants.a.wieght"},
      {"[tenants]\na = 1\n", "tenants.a"},
  };
  for (const Case& c : cases) {
    auto options = ParseEngineOptions(c.toml, "t.toml");
    ASSERT_FALSE(options.ok()) << c.toml;
    EXPECT_EQ(options.status().field(), c.field) << c.toml << options.status().ToString();
    EXPECT_NE(options.status().message().find("t.toml"), std::string::npos);
  }
}

}  // namespace
}  // namespace verdict
