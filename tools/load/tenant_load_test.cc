#include <gtest/gtest.h>

#include "load/load_generator.h"

namespace load {
namespace {

TEST(TenantLoadTest, ParsesNameRateAndOptionalKey) {
  auto plain = ParseTenantLoad("acme:250");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->name, "acme");
  EXPECT_EQ(plain->rate_per_s, 250);
  EXPECT_EQ(plain->key, "");
  auto keyed = ParseTenantLoad("globex:12.5:vk_abc:def");
  ASSERT_TRUE(keyed.ok());
  EXPECT_EQ(keyed->rate_per_s, 12.5);
  EXPECT_EQ(keyed->key, "vk_abc:def");  // everything after the second colon
}

TEST(TenantLoadTest, BadSpecsAreErrorsNamingTheOption) {
  for (const char* bad : {"acme", ":100", "acme:", "acme:fast", "acme:0", "acme:-5", "acme:10x"}) {
    auto t = ParseTenantLoad(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().field(), "--tenant") << bad;
  }
}

TEST(TenantLoadTest, RunLoadRefusesDuplicateTenants) {
  LoadOptions options;
  options.tenants = {{"a", 10, ""}, {"a", 20, ""}};
  auto result = RunLoad(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().field(), "--tenant");
}

}  // namespace
}  // namespace load
