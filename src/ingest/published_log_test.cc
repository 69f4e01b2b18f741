// PublishedLog: what it records survives a reopen, only whole lines count, and only the last
// `keep` messages are kept.
#include "ingest/published_log.h"

#include <gtest/gtest.h>

#include <fstream>

#include "journal/test_util.h"

namespace verdict::ingest {
namespace {

using journal::testing_util::TempDir;

TEST(PublishedLogTest, WhatIsSyncedSurvivesAReopen) {
  TempDir dir;
  const std::string path = dir.path() + "/ingest/amqp-payments.published";
  const uint64_t a = PublishedLog::DecisionKey("tx-1");
  const uint64_t b = PublishedLog::DeadLetterKey("{bad");
  {
    Result<std::unique_ptr<PublishedLog>> log = PublishedLog::Open(path, 8);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    EXPECT_FALSE((*log)->Has(a));
    (*log)->Add({a, b});
    EXPECT_TRUE((*log)->Has(a));
    ASSERT_TRUE((*log)->Sync().ok());
  }
  Result<std::unique_ptr<PublishedLog>> log = PublishedLog::Open(path, 8);
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE((*log)->Has(a));
  EXPECT_TRUE((*log)->Has(b));
  EXPECT_FALSE((*log)->Has(PublishedLog::DecisionKey("tx-2")));
  EXPECT_NE(PublishedLog::DecisionKey("x"), PublishedLog::DeadLetterKey(""));
}

TEST(PublishedLogTest, ATornLastLineIsIgnored) {
  TempDir dir;
  const std::string path = dir.path() + "/p";
  const uint64_t a = PublishedLog::DecisionKey("tx-1");
  {
    Result<std::unique_ptr<PublishedLog>> log = PublishedLog::Open(path, 8);
    ASSERT_TRUE(log.ok());
    (*log)->Add({a});
    ASSERT_TRUE((*log)->Sync().ok());
  }
  {
    std::ofstream out(path, std::ios::app);
    out << "00000000000000ab 0000";  // a crash mid-write: no newline
  }
  Result<std::unique_ptr<PublishedLog>> log = PublishedLog::Open(path, 8);
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE((*log)->Has(a));
  EXPECT_FALSE((*log)->Has(0xab));
  EXPECT_EQ((*log)->size(), 1u);
}

TEST(PublishedLogTest, KeepsOnlyTheLastMessages) {
  TempDir dir;
  const std::string path = dir.path() + "/p";
  Result<std::unique_ptr<PublishedLog>> log = PublishedLog::Open(path, 3);
  ASSERT_TRUE(log.ok());
  for (uint64_t i = 1; i <= 10; ++i) {
    (*log)->Add({i, 100 + i});
    ASSERT_TRUE((*log)->Sync().ok());
  }
  EXPECT_EQ((*log)->size(), 3u);
  EXPECT_FALSE((*log)->Has(7));
  EXPECT_TRUE((*log)->Has(8));
  EXPECT_TRUE((*log)->Has(110));
  log = PublishedLog::Open(path, 3);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->size(), 3u);
  EXPECT_FALSE((*log)->Has(7));
  EXPECT_TRUE((*log)->Has(8));
  // The file was rewritten rather than left to grow.
  std::ifstream in(path);
  size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  EXPECT_LE(lines, 6u);
}

}  // namespace
}  // namespace verdict::ingest
