#include "journal/exporter.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <sstream>

#include "journal/journal.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace {

using testing_util::MakeEntry;
using testing_util::TempDir;

class ExporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    JournalOptions o;
    o.data_dir = dir_.Sub("data");
    auto j = Journal::Open(o);
    ASSERT_TRUE(j.ok());
    for (uint64_t i = 1; i <= 30; ++i) {
      ASSERT_TRUE(
          (*j)->Enqueue(MakeEntry(i, i % 2 ? "bank-a" : "bank-b"), [](const Result<CommitInfo>&) {})
              .ok());
    }
    ASSERT_TRUE((*j)->Flush().ok());
  }
  TempDir dir_;
};

TEST_F(ExporterTest, FindsByDecisionIdAndTransactionId) {
  auto reader = JournalReader::Open(dir_.Sub("data"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto by_id = (*reader)->Find(testing_util::TestUuid(7).ToString(), "");
  ASSERT_TRUE(by_id.ok());
  ASSERT_EQ(by_id->size(), 1u);
  EXPECT_EQ((*by_id)[0].decision.transaction_id, "tx-7");
  auto by_tx = (*reader)->Find("tx-8", "");
  ASSERT_TRUE(by_tx.ok());
  ASSERT_EQ(by_tx->size(), 1u);
  EXPECT_EQ((*by_tx)[0].tenant, "bank-b");
  EXPECT_TRUE((*reader)->Find("tx-8", "bank-a")->empty());
  EXPECT_EQ((*reader)->Find("tx-8", "bank-b")->size(), 1u);
  EXPECT_TRUE((*reader)->Find("tx-999", "")->empty());
}

TEST_F(ExporterTest, ExportsFilteredJsonLines) {
  auto reader = JournalReader::Open(dir_.Sub("data"));
  ASSERT_TRUE(reader.ok());
  std::ostringstream all;
  auto n = (*reader)->ExportJsonLines({}, all);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 30u);

  JournalRecord r5 = testing_util::MakeRecord(5);
  JournalRecord r10 = testing_util::MakeRecord(10);
  ExportFilter window;
  window.from_us = r5.decided_at_us;
  window.to_us = r10.decided_at_us;
  std::ostringstream some;
  EXPECT_EQ(*(*reader)->ExportJsonLines(window, some), 5u);

  ExportFilter account;
  account.account = "ACC-5";
  account.tenant = "bank-a";
  std::ostringstream acc;
  uint64_t count = *(*reader)->ExportJsonLines(account, acc);
  EXPECT_GE(count, 1u);

  simdjson::ondemand::parser parser;
  std::istringstream lines(some.str());
  std::string line;
  uint64_t expected_seq = 5;
  while (std::getline(lines, line)) {
    simdjson::padded_string padded(line);
    simdjson::ondemand::document doc = parser.iterate(padded);
    EXPECT_EQ(uint64_t(doc["seq"]), expected_seq);
    std::string_view tx = doc["decision"]["transaction_id"];
    EXPECT_EQ(tx, "tx-" + std::to_string(expected_seq));
    std::string_view outcome = doc["decision"]["outcome"];
    EXPECT_FALSE(outcome.empty());
    ++expected_seq;
  }
  EXPECT_EQ(expected_seq, 10u);
}

TEST(ExporterOpenTest, MissingDataDirIsAnError) {
  TempDir dir;
  EXPECT_FALSE(JournalReader::Open(dir.Sub("nope")).ok());
}

}  // namespace
}  // namespace verdict::journal
