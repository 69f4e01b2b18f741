#include "common/tenant_map.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace verdict {
namespace {

TEST(TenantMapTest, FindsOnlyWhatWasSet) {
  TenantMap<int> map;
  EXPECT_EQ(map.Find("alpha"), std::nullopt);
  map.Set("alpha", 1);
  EXPECT_EQ(map.Find("alpha"), 1);
  EXPECT_EQ(map.Find("beta"), std::nullopt);
  EXPECT_EQ(map.Find("alph"), std::nullopt);
  map.Set("alpha", 2);
  EXPECT_EQ(map.Find("alpha"), 2);
  EXPECT_EQ(map.size(), 1u);
}

TEST(TenantMapTest, FindOrInsertMakesOncePerTenantAndNulloptLeavesItUnset) {
  TenantMap<int> map;
  int made = 0;
  auto make = [&]() -> std::optional<int> { return ++made; };
  EXPECT_EQ(map.FindOrInsert("alpha", make), 1);
  EXPECT_EQ(map.FindOrInsert("alpha", make), 1);
  EXPECT_EQ(map.FindOrInsert("beta", make), 2);
  EXPECT_EQ(made, 2);
  EXPECT_EQ(map.FindOrInsert("gamma", [] { return std::optional<int>(); }), std::nullopt);
  EXPECT_EQ(map.Find("gamma"), std::nullopt);
  EXPECT_EQ(map.size(), 2u);
}

TEST(TenantMapTest, AReaderKeepsTheValueItFoundAcrossAReplacement) {
  TenantMap<std::shared_ptr<const std::string>> map;
  map.Set("alpha", std::make_shared<const std::string>("v1"));
  std::shared_ptr<const std::string> held = *map.Find("alpha");
  map.Set("alpha", std::make_shared<const std::string>("v2"));
  EXPECT_EQ(*held, "v1");
  EXPECT_EQ(**map.Find("alpha"), "v2");
}

TEST(TenantMapTest, ConcurrentInsertsAndReadsAgree) {
  TenantMap<int> map;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&map, t] {
      for (int i = 0; i < 200; ++i) {
        const std::string tenant = "t" + std::to_string(i);
        const int value = map.FindOrInsert(tenant, [i] { return std::optional<int>(i); }).value();
        EXPECT_EQ(value, i) << "thread " << t;
        EXPECT_EQ(map.Find(tenant), i);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(map.size(), 200u);
}

}  // namespace
}  // namespace verdict
