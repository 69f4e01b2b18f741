#include "cluster/pg_partition_log.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cluster/postgres_test_server.h"

namespace verdict::cluster {
namespace {

std::vector<LogRecord> Records(uint64_t first, int count, const std::string& tag) {
  std::vector<LogRecord> out;
  for (int i = 0; i < count; ++i) {
    const uint64_t seq = first + static_cast<uint64_t>(i);
    // Bytes COPY's text format must escape: tab, newline, backslash, NUL, high bytes.
    out.push_back({seq, tag + std::string("\t\n\\\0\xff", 5) + std::to_string(seq),
                   "h" + std::to_string(seq)});
  }
  return out;
}

class PgPartitionLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.ready()) << "PostgreSQL did not start (scripts/setup installs it)";
    auto log = PgPartitionLog::Open(server_.url(), 4);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    log_ = std::move(*log);
  }

  PostgresTestServer server_;
  std::unique_ptr<PgPartitionLog> log_;
};

TEST_F(PgPartitionLogTest, AppendsAndReadsBackExactBytes) {
  auto head = log_->Claim(1, "n0", 1);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->seq, 0u);
  const auto records = Records(1, 50, "a");
  ASSERT_TRUE(log_->Append(1, 1, records).ok());
  auto read = log_->Read(1, 1, 1000);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 50u);
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ((*read)[i].seq, records[i].seq);
    EXPECT_EQ((*read)[i].record, records[i].record);
    EXPECT_EQ((*read)[i].hash, records[i].hash);
  }
  auto now = log_->Head(1);
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->seq, 50u);
  EXPECT_EQ(now->hash, "h50");
  EXPECT_EQ(now->owner, "n0");
  // Other partitions are untouched.
  auto other = log_->Head(2);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->seq, 0u);
}

TEST_F(PgPartitionLogTest, FencedWriterCommitsNothing) {
  ASSERT_TRUE(log_->Claim(0, "old", 1).ok());
  ASSERT_TRUE(log_->Append(0, 1, Records(1, 3, "old")).ok());
  // A new owner takes the partition at a higher epoch and continues the chain from its head.
  auto taken = log_->Claim(0, "new", 2);
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->seq, 3u);
  EXPECT_EQ(taken->hash, "h3");
  // The old owner's late group is refused and leaves no trace.
  Status late = log_->Append(0, 1, Records(4, 2, "late"));
  EXPECT_EQ(late.code(), StatusCode::kFailedPrecondition) << late.ToString();
  EXPECT_NE(late.message().find("fenced"), std::string::npos);
  ASSERT_TRUE(log_->Append(0, 2, Records(4, 2, "new")).ok());
  auto read = log_->Read(0, 1, 100);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 5u);
  EXPECT_EQ((*read)[3].record.substr(0, 3), "new");
  // The old owner cannot claim back at its old epoch, nor another node at the same epoch.
  EXPECT_EQ(log_->Claim(0, "old", 1).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(log_->Claim(0, "third", 2).status().code(), StatusCode::kFailedPrecondition);
  // The same owner and epoch again is a no-op, not an error (a retried claim).
  EXPECT_TRUE(log_->Claim(0, "new", 2).ok());
}

TEST_F(PgPartitionLogTest, RecordsMustContinueTheHead) {
  ASSERT_TRUE(log_->Claim(3, "n0", 1).ok());
  ASSERT_TRUE(log_->Append(3, 1, Records(1, 2, "a")).ok());
  EXPECT_EQ(log_->Append(3, 1, Records(4, 1, "gap")).code(), StatusCode::kInternal);
  EXPECT_EQ(log_->Append(3, 1, Records(2, 1, "again")).code(), StatusCode::kInternal);
  auto head = log_->Head(3);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->seq, 2u);
  // The connection is usable after a refused group.
  EXPECT_TRUE(log_->Append(3, 1, Records(3, 1, "b")).ok());
}

TEST_F(PgPartitionLogTest, ClaimWaitsForAGroupInFlightAndFencesTheNext) {
  ASSERT_TRUE(log_->Claim(2, "old", 1).ok());
  auto other = PgPartitionLog::Open(server_.url(), 4);
  ASSERT_TRUE(other.ok());
  // Many groups from the old owner race one claim by a new owner: every group either
  // committed before the claim (and is in the head the claim returns) or was refused.
  std::atomic<uint64_t> committed{0};
  std::thread writer([&] {
    for (uint64_t seq = 1; seq <= 200; ++seq) {
      if (!log_->Append(2, 1, Records(seq, 1, "x")).ok()) break;
      committed = seq;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto taken = (*other)->Claim(2, "new", 2);
  writer.join();
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->seq, committed.load());
  auto read = log_->Read(2, 1, 1000);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->size(), committed.load());
}

TEST_F(PgPartitionLogTest, DatabaseForAnotherPartitionCountIsRefused) {
  auto other = PgPartitionLog::Open(server_.url(), 8);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().field(), "cluster.partitions");
}

TEST_F(PgPartitionLogTest, BrokenConnectionIsReplaced) {
  ASSERT_TRUE(log_->Claim(1, "n0", 1).ok());
  auto admin = PgConnection::Connect(server_.url());
  ASSERT_TRUE(admin.ok());
  // Ends every other session, as a PostgreSQL restart or fail-over would.
  ASSERT_TRUE((*admin)
                  ->Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE pid <> pg_backend_pid() AND datname = current_database()")
                  .ok());
  Status first = log_->Append(1, 1, Records(1, 1, "a"));
  EXPECT_EQ(first.code(), StatusCode::kUnavailable) << first.ToString();
  EXPECT_TRUE(log_->Append(1, 1, Records(1, 1, "a")).ok());
}

TEST_F(PgPartitionLogTest, PartitionOutOfRangeIsRefused) {
  EXPECT_EQ(log_->Claim(4, "n0", 1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(log_->Append(9, 1, Records(1, 1, "a")).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace verdict::cluster
