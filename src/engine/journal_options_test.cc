// [journal] and [engine] configuration read by engine_options.cc: the payload cipher, the group
// commit delay, the commit log, the commit on the I/O thread, the store's background priority and
// the heap prefault.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "engine/engine_options.h"

namespace verdict {
namespace {

TEST(JournalOptionsTest, GroupDelayDefaultsTo1000Above5000PerSecondAndZeroTurnsItOff) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->journal.group_delay_us, 1000);
  EXPECT_EQ(defaults->journal.group_delay_above_per_s, 5000);
  auto set = ParseEngineOptions("[journal]\ngroup_delay_us = 0\ngroup_delay_above_per_s = 2500\n",
                                "t.toml");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->journal.group_delay_us, 0);
  EXPECT_EQ(set->journal.group_delay_above_per_s, 2500);
}

TEST(JournalOptionsTest, BadGroupDelayIsAnErrorNamingTheKey) {
  for (const char* toml : {"[journal]\ngroup_delay_us = -1\n", "[journal]\ngroup_delay_us = 1.5\n",
                           "[journal]\ngroup_delay_us = 100001\n"}) {
    auto options = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(options.ok()) << toml;
    EXPECT_EQ(options.status().field(), "journal.group_delay_us") << options.status().ToString();
  }
  for (const char* toml :
       {"[journal]\ngroup_delay_above_per_s = 0\n", "[journal]\ngroup_delay_above_per_s = \"x\"\n",
        "[journal]\ngroup_delay_above_per_s = 10000001\n"}) {
    auto options = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(options.ok()) << toml;
    EXPECT_EQ(options.status().field(), "journal.group_delay_above_per_s")
        << options.status().ToString();
  }
}

TEST(JournalOptionsTest, CipherDefaultsToAesGcmTakesSm4AndRefusesAnythingElse) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->journal.cipher, journal::PayloadCipherKind::kAes256Gcm);
  auto sm4 = ParseEngineOptions("[journal]\ncipher = \"sm4-ctr-hmac-sm3\"\n", "t.toml");
  ASSERT_TRUE(sm4.ok()) << sm4.status().ToString();
  EXPECT_EQ(sm4->journal.cipher, journal::PayloadCipherKind::kSm4CtrHmacSm3);
  for (const char* toml : {"[journal]\ncipher = \"sm4-gcm\"\n", "[journal]\ncipher = 1\n",
                           "[journal]\ncipher = \"AES-256-GCM\"\n"}) {
    auto options = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(options.ok()) << toml;
    EXPECT_EQ(options.status().field(), "journal.cipher") << options.status().ToString();
  }
}

TEST(JournalOptionsTest, CommitLogDefaultsTo64MiBZeroTurnsItOffAndMoreThan1GiBIsAnError) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->journal.commit_log_mb, 64u);
  auto off = ParseEngineOptions("[journal]\ncommit_log_mb = 0\n", "t.toml");
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_EQ(off->journal.commit_log_mb, 0u);
  for (const char* toml :
       {"[journal]\ncommit_log_mb = 1025\n", "[journal]\ncommit_log_mb = -1\n"}) {
    auto options = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(options.ok()) << toml;
    EXPECT_EQ(options.status().field(), "journal.commit_log_mb") << options.status().ToString();
  }
}

TEST(JournalOptionsTest, CommitOnIoThreadIsOnByDefaultAndMustBeABoolean) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_TRUE(defaults->journal.commit_on_io_thread);
  auto off = ParseEngineOptions("[journal]\ncommit_on_io_thread = false\n", "t.toml");
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->journal.commit_on_io_thread);
  auto bad = ParseEngineOptions("[journal]\ncommit_on_io_thread = 1\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "journal.commit_on_io_thread") << bad.status().ToString();
}

TEST(JournalOptionsTest, BackgroundIdleDefaultsTo500MsZeroTurnsItOffAndMoreThanAMinuteIsAnError) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->journal.background_idle_ms, 500);
  auto off = ParseEngineOptions("[journal]\nbackground_idle_ms = 0\n", "t.toml");
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_EQ(off->journal.background_idle_ms, 0);
  for (const char* toml :
       {"[journal]\nbackground_idle_ms = -1\n", "[journal]\nbackground_idle_ms = 60001\n",
        "[journal]\nbackground_idle_ms = \"500\"\n"}) {
    auto options = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(options.ok()) << toml;
    EXPECT_EQ(options.status().field(), "journal.background_idle_ms")
        << options.status().ToString();
  }
}

TEST(JournalOptionsTest, TheShippedConfigurationSaysTheDefault) {
  const char* root = std::getenv("VERDICT_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "CTest sets VERDICT_SOURCE_DIR";
  auto shipped = LoadEngineOptions(std::string(root) + "/config/verdict.toml");
  ASSERT_TRUE(shipped.ok()) << shipped.status().ToString();
  EXPECT_EQ(shipped->journal.group_delay_us, 1000);
  EXPECT_EQ(shipped->journal.group_delay_above_per_s, 5000);
  EXPECT_EQ(shipped->journal.commit_log_mb, 64u);
  EXPECT_TRUE(shipped->journal.commit_on_io_thread);
  EXPECT_EQ(shipped->journal.background_idle_ms, 500);
}

TEST(EngineHeapOptionsTest, PrefaultIsOffByDefaultAndOnInTheShippedConfiguration) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->heap_prefault_mb, 0u);
  const char* root = std::getenv("VERDICT_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "CTest sets VERDICT_SOURCE_DIR";
  auto shipped = LoadEngineOptions(std::string(root) + "/config/verdict.toml");
  ASSERT_TRUE(shipped.ok()) << shipped.status().ToString();
  EXPECT_EQ(shipped->heap_prefault_mb, 256u);
  auto bad = ParseEngineOptions("[engine]\nheap_prefault_mb = -1\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "engine.heap_prefault_mb");
}

}  // namespace
}  // namespace verdict
