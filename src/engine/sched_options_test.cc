// [sched] configuration (SchedulerOptions), read by engine_options.cc: the journal backlog
// that holds non-realtime work back in the scheduler, and which classes may preempt.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "engine/engine_options.h"

namespace verdict {
namespace {

TEST(SchedOptionsTest, JournalBacklogDefaultsTo256AndZeroTurnsItOff) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_EQ(defaults->sched.downstream_limit, 256u);
  auto off = ParseEngineOptions("[sched]\njournal_backlog = 0\n", "t.toml");
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_EQ(off->sched.downstream_limit, 0u);
}

TEST(SchedOptionsTest, BadJournalBacklogIsAnErrorNamingTheKey) {
  for (const char* toml : {"[sched]\njournal_backlog = -1\n", "[sched]\njournal_backlog = \"x\"\n",
                           "[sched]\njournal_backlog = 99999999\n"}) {
    auto options = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(options.ok()) << toml;
    EXPECT_EQ(options.status().field(), "sched.journal_backlog") << options.status().ToString();
  }
}

TEST(SchedOptionsTest, InlineWhenIdleIsOnByDefaultAndCanBeTurnedOff) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_TRUE(defaults->sched.inline_when_idle);
  auto off = ParseEngineOptions("[sched]\ninline_when_idle = false\n", "t.toml");
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->sched.inline_when_idle);
  auto bad = ParseEngineOptions("[sched]\ninline_when_idle = 1\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "sched.inline_when_idle") << bad.status().ToString();
}

TEST(SchedOptionsTest, RealtimeAloneMayPreemptByDefaultAndStandardCanBeMadeTo) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_TRUE(defaults->sched.classes[0].may_preempt);
  EXPECT_FALSE(defaults->sched.classes[1].may_preempt);
  EXPECT_FALSE(defaults->sched.classes[2].may_preempt);
  auto both = ParseEngineOptions("[sched]\nstandard_may_preempt = true\n", "t.toml");
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_TRUE(both->sched.classes[0].may_preempt);
  EXPECT_TRUE(both->sched.classes[1].may_preempt);
  auto none = ParseEngineOptions("[sched]\nrealtime_may_preempt = false\n", "t.toml");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->sched.classes[0].may_preempt);
  // Standard ahead of bulk work while realtime waits behind it would break strict priority.
  auto inverted = ParseEngineOptions(
      "[sched]\nrealtime_may_preempt = false\nstandard_may_preempt = true\n", "t.toml");
  ASSERT_FALSE(inverted.ok());
  EXPECT_EQ(inverted.status().field(), "sched.realtime_may_preempt")
      << inverted.status().ToString();
  auto bad = ParseEngineOptions("[sched]\nstandard_may_preempt = \"yes\"\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "sched.standard_may_preempt") << bad.status().ToString();
  // Bulk never preempts: there is no such key.
  auto bulk = ParseEngineOptions("[sched]\nbulk_may_preempt = true\n", "t.toml");
  ASSERT_FALSE(bulk.ok());
  EXPECT_EQ(bulk.status().field(), "sched.bulk_may_preempt") << bulk.status().ToString();
}

TEST(SchedOptionsTest, TheShippedConfigurationSaysTheDefault) {
  const char* root = std::getenv("VERDICT_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "CTest sets VERDICT_SOURCE_DIR";
  auto shipped = LoadEngineOptions(std::string(root) + "/config/verdict.toml");
  ASSERT_TRUE(shipped.ok()) << shipped.status().ToString();
  EXPECT_EQ(shipped->sched.downstream_limit, 256u);
  EXPECT_TRUE(shipped->sched.inline_when_idle);
  EXPECT_TRUE(shipped->sched.classes[0].may_preempt);
  EXPECT_FALSE(shipped->sched.classes[1].may_preempt);
}

}  // namespace
}  // namespace verdict
