// [cluster] configuration read by engine_options.cc: absent means the single node; present, its
// required keys, ranges and unknown keys are checked and named.
#include <gtest/gtest.h>

#include <string>

#include "engine/engine_options.h"

namespace verdict {
namespace {

constexpr char kCluster[] =
    "[cluster]\nnode_id = \"n1\"\netcd = \"http://127.0.0.1:2379\"\n"
    "postgres = \"postgresql://127.0.0.1:5432/verdict\"\n";

TEST(ClusterOptionsTest, AbsentTableIsTheSingleNode) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_FALSE(defaults->cluster.enabled);
}

TEST(ClusterOptionsTest, TableIsReadWithDefaults) {
  auto options = ParseEngineOptions(std::string(kCluster) + "partitions = 16\n", "t.toml");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->cluster.enabled);
  EXPECT_EQ(options->cluster.node_id, "n1");
  EXPECT_EQ(options->cluster.etcd, "http://127.0.0.1:2379");
  EXPECT_EQ(options->cluster.postgres, "postgresql://127.0.0.1:5432/verdict");
  EXPECT_EQ(options->cluster.partitions, 16u);
  EXPECT_EQ(options->cluster.lease_seconds, 5);
  EXPECT_EQ(options->cluster.advertise_url, "");
  EXPECT_TRUE(options->cluster.warm_standby);
}

TEST(ClusterOptionsTest, BadOrMissingKeysAreNamed) {
  struct Case {
    std::string toml;
    std::string field;
  };
  const Case cases[] = {
      {"[cluster]\netcd = \"http://e\"\npostgres = \"p\"\n", "cluster.node_id"},
      {"[cluster]\nnode_id = \"n\"\npostgres = \"p\"\n", "cluster.etcd"},
      {"[cluster]\nnode_id = \"n\"\netcd = \"http://e\"\npostgres = \"\"\n", "cluster.postgres"},
      {std::string(kCluster) + "partitions = 0\n", "cluster.partitions"},
      {std::string(kCluster) + "lease_seconds = 1\n", "cluster.lease_seconds"},
      {std::string(kCluster) + "owner = \"x\"\n", "cluster.owner"},
      {"cluster = 3\n", "cluster"},
      {std::string(kCluster) + "warm_standby = 1\n", "cluster.warm_standby"},
  };
  for (const Case& c : cases) {
    auto options = ParseEngineOptions(c.toml, "t.toml");
    ASSERT_FALSE(options.ok()) << c.toml;
    EXPECT_EQ(options.status().field(), c.field) << options.status().ToString();
    EXPECT_NE(options.status().message().find("t.toml"), std::string::npos);
  }
}

}  // namespace
}  // namespace verdict
