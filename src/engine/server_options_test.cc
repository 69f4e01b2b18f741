// [server] configuration read by engine_options.cc: the read pause after an over-rate (or, when
// set, a bulk) refusal, the I/O threads' busy polling and their nice value.
#include <gtest/gtest.h>

#include <string>

#include "engine/engine_options.h"

namespace verdict {
namespace {

TEST(ServerOptionsTest, MaxReadPauseDefaultsToOneSecondAndZeroTurnsItOff) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->server.max_read_pause_ms, 1000);
  auto off = ParseEngineOptions("[server]\nmax_read_pause_ms = 0\n", "t.toml");
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_EQ(off->server.max_read_pause_ms, 0);
}

TEST(ServerOptionsTest, BadMaxReadPauseIsAnErrorNamingTheKey) {
  for (const char* toml :
       {"[server]\nmax_read_pause_ms = -1\n", "[server]\nmax_read_pause_ms = \"1s\"\n",
        "[server]\nmax_read_pause_ms = 3600001\n"}) {
    auto options = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(options.ok()) << toml;
    EXPECT_EQ(options.status().field(), "server.max_read_pause_ms") << options.status().ToString();
  }
}

TEST(ServerOptionsTest, BusyPollIsOffByDefaultAndAtMostFiveMilliseconds) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->server.busy_poll_us, 0);
  auto on = ParseEngineOptions("[server]\nbusy_poll_us = 5000\n", "t.toml");
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_EQ(on->server.busy_poll_us, 5000);
  for (const char* toml : {"[server]\nbusy_poll_us = -1\n", "[server]\nbusy_poll_us = 5001\n",
                           "[server]\nbusy_poll_us = true\n"}) {
    auto options = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(options.ok()) << toml;
    EXPECT_EQ(options.status().field(), "server.busy_poll_us") << options.status().ToString();
  }
  auto threads = ParseEngineOptions("[server]\nio_threads = 2\nbusy_poll_us = 2000\n", "t.toml");
  ASSERT_FALSE(threads.ok());
  EXPECT_EQ(threads.status().field(), "server.busy_poll_us");
  EXPECT_NE(threads.status().message().find("io_threads = 1"), std::string::npos)
      << threads.status().ToString();
}

TEST(ServerOptionsTest, PauseAfterBulkRefusalIsOffByDefault) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_FALSE(defaults->pause_after_bulk_refusal);
  auto on = ParseEngineOptions("[server]\npause_after_bulk_refusal = true\n", "t.toml");
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_TRUE(on->pause_after_bulk_refusal);
  auto bad = ParseEngineOptions("[server]\npause_after_bulk_refusal = 1\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "server.pause_after_bulk_refusal") << bad.status().ToString();
}

TEST(ServerOptionsTest, IoThreadNiceIsZeroByDefaultAndANiceValue) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->server.io_thread_nice, 0);
  auto set = ParseEngineOptions("[server]\nio_thread_nice = 19\n", "t.toml");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->server.io_thread_nice, 19);
  for (const char* toml : {"[server]\nio_thread_nice = -1\n", "[server]\nio_thread_nice = 20\n",
                           "[server]\nio_thread_nice = \"5\"\n"}) {
    auto options = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(options.ok()) << toml;
    EXPECT_EQ(options.status().field(), "server.io_thread_nice") << options.status().ToString();
  }
}

}  // namespace
}  // namespace verdict

namespace verdict {
namespace {

TEST(ServerOptionsTest, ConnectionsPerAddressAndTenantDefaultBelowTheCap) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->server.max_connections_per_address, 2000u);
  EXPECT_EQ(defaults->server.max_connections_per_tenant, 5000u);
  EXPECT_LT(defaults->server.max_connections_per_address, defaults->server.max_connections);
  EXPECT_LT(defaults->server.max_connections_per_tenant, defaults->server.max_connections);
  auto set = ParseEngineOptions(
      "[server]\nmax_connections_per_address = 8\nmax_connections_per_tenant = 0\n", "t.toml");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->server.max_connections_per_address, 8u);
  EXPECT_EQ(set->server.max_connections_per_tenant, 0u);
}

TEST(ServerOptionsTest, BadConnectionLimitsAreErrorsNamingTheKey) {
  for (const char* key : {"max_connections_per_address", "max_connections_per_tenant"}) {
    for (const char* value : {"-1", "1000001", "\"10\"", "1.5"}) {
      const std::string toml = std::string("[server]\n") + key + " = " + value + "\n";
      auto options = ParseEngineOptions(toml, "t.toml");
      ASSERT_FALSE(options.ok()) << toml;
      EXPECT_EQ(options.status().field(), std::string("server.") + key)
          << options.status().ToString();
    }
  }
}

}  // namespace
}  // namespace verdict
