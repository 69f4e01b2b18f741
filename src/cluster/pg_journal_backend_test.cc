#include "cluster/pg_journal_backend.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "cluster/pg_journal_verifier.h"
#include "cluster/postgres_test_server.h"
#include "cluster/warm_state.h"
#include "journal/test_util.h"

namespace verdict::cluster {
namespace {

using journal::Journal;
using journal::JournalOptions;
using journal::testing_util::MakeEntry;
using journal::testing_util::OpenOrDie;
using journal::testing_util::TempDir;
using journal::testing_util::TestUuid;
using journal::testing_util::WriteEntries;

void ExpectAllCommitted(const std::vector<Result<journal::CommitInfo>>& results) {
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.status().ToString();
}

class PgJournalBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.ready()) << "PostgreSQL did not start (scripts/setup installs it)";
  }

  // A journal writing chain `chain` of the cluster journal as `owner` at `epoch`; its signing
  // key in its own folder, as each node has.
  JournalOptions Options(const std::string& owner, uint64_t epoch, uint32_t chain = 0) {
    JournalOptions o;
    o.data_dir = dir_.Sub(owner);
    o.checkpoint_every_records = 10;
    const std::string url = server_.url();
    o.open_backend =
        [url, owner, epoch,
         chain](const JournalOptions&) -> Result<std::unique_ptr<journal::JournalBackend>> {
      auto backend = PgJournalBackend::Open(url, chain, owner, epoch);
      if (!backend.ok()) return backend.status();
      return std::unique_ptr<journal::JournalBackend>(std::move(*backend));
    };
    return o;
  }

  std::unique_ptr<PgJournalBackend> Reader(uint32_t chain = 0) {
    auto reader = PgJournalBackend::OpenReadOnly(server_.url(), chain);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    return reader.ok() ? std::move(*reader) : nullptr;
  }

  journal::VerifyReport VerifyChain0() {
    std::unique_ptr<PgJournalBackend> reader = Reader();
    if (!reader) return {};
    auto report = VerifyPgChain(*reader, std::nullopt, nullptr, /*check_payloads=*/true);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : journal::VerifyReport{};
  }

  // After an unanswered COMMIT of record 3: it committed once, the journal goes on, and the
  // chain of five records verifies.
  void ExpectCommittedOnceAndGoingOn(std::future<Result<journal::CommitInfo>>& third,
                                     std::unique_ptr<Journal>& j) {
    const Result<journal::CommitInfo> committed = third.get();
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    EXPECT_TRUE(j->healthy()) << j->health().ToString();
    ExpectAllCommitted(WriteEntries(*j, 4, 5));
    j.reset();
    const journal::VerifyReport report = VerifyChain0();
    EXPECT_TRUE(report.ok) << report.problem;
    EXPECT_EQ(report.records, 5u);
  }

  PostgresTestServer server_;
  TempDir dir_;
};

TEST_F(PgJournalBackendTest, ChainContinuesAcrossReopenAndReadsReturnWhatWasWritten) {
  {
    std::unique_ptr<Journal> j = OpenOrDie(Options("n1", 1));
    ASSERT_NE(j, nullptr);
    ExpectAllCommitted(WriteEntries(*j, 1, 25));
    ASSERT_TRUE(j->RecordAdminEvent({"bank-a", "key-1", "keys.create", "key-2", ""}).ok());
    ASSERT_TRUE(j->PutRegistry("models/aml/3", "model-bytes").ok());
    ASSERT_TRUE(j->PutRegistry("models/aml/4", "other").ok());
    ASSERT_TRUE(j->PutRegistry("policies/7", "policy").ok());
    ASSERT_TRUE(j->DeleteRegistry("models/aml/4").ok());
  }  // closing signs a checkpoint at 26
  // A new owner (another node, its own signing key) continues the chain.
  std::unique_ptr<Journal> j = OpenOrDie(Options("n2", 2));
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->durable_sequence(), 26u);
  ExpectAllCommitted(WriteEntries(*j, 26, 40));
  EXPECT_EQ(j->durable_sequence(), 41u);

  auto by_id = j->FindByDecisionId(TestUuid(5));
  ASSERT_TRUE(by_id.ok() && by_id->has_value());
  EXPECT_EQ((*by_id)->decision.transaction_id, "tx-5");
  EXPECT_EQ((*by_id)->seq, 5u);
  auto by_txn = j->FindByTransaction("bank-a", "tx-33");
  ASSERT_TRUE(by_txn.ok() && by_txn->has_value());
  EXPECT_EQ((*by_txn)->record.seq, 34u);  // after the admin event
  EXPECT_FALSE(j->FindByTransaction("bank-b", "tx-33")->has_value());
  // A retry of a journaled transaction is refused by the journal itself.
  EXPECT_EQ(j->Enqueue(MakeEntry(7), [](const Result<journal::CommitInfo>&) {}).status().code(),
            StatusCode::kAlreadyExists);

  // The account index, newest first, and the account's state as the last write left it.
  const std::string account = "ACC-5";
  uint64_t last_i = 0;
  std::vector<uint64_t> expected_seqs;
  for (uint64_t i = 1; i <= 40; ++i) {
    const auto entry = MakeEntry(i);
    if (entry.record.accounts[0] == account || entry.record.accounts[1] == account) {
      last_i = i;
      expected_seqs.insert(expected_seqs.begin(), i <= 25 ? i : i + 1);
    }
  }
  ASSERT_GT(last_i, 0u);
  auto listed = j->ListByAccount("bank-a", account, 100);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  std::vector<uint64_t> seqs;
  for (const auto& r : *listed) seqs.push_back(r.seq);
  EXPECT_EQ(seqs, expected_seqs);
  auto state = j->GetAccountState("bank-a/" + account);
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_EQ(**state, "state-after-" + std::to_string(last_i));

  auto admin = j->ListAdminEvents("bank-a", 10);
  ASSERT_TRUE(admin.ok());
  ASSERT_EQ(admin->size(), 1u);
  EXPECT_EQ((*admin)[0].admin.action, "keys.create");
  EXPECT_EQ((*admin)[0].seq, 26u);

  EXPECT_EQ(j->GetRegistry("models/aml/3")->value_or(""), "model-bytes");
  EXPECT_FALSE(j->GetRegistry("models/aml/4")->has_value());
  auto models = j->ListRegistry("models/");
  ASSERT_TRUE(models.ok());
  ASSERT_EQ(models->size(), 1u);
  EXPECT_EQ((*models)[0].first, "models/aml/3");

  auto cp = j->LatestCheckpoint();
  ASSERT_TRUE(cp.ok() && cp->has_value()) << cp.status().ToString();
  EXPECT_GE((*cp)->tree_size, 26u);
  j.reset();

  // Signed by two owners' keys; each checkpoint verifies under the key it carries.
  const journal::VerifyReport report = VerifyChain0();
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, 41u);
  EXPECT_GE(report.checkpoints, 3u);
}

// One group's state writes go to PostgreSQL as one write per key, the last one of the group
// deciding (an erase as well as a write), as applying them in order would.
TEST_F(PgJournalBackendTest, StateWritesOfOneGroupApplyInOrder) {
  std::unique_ptr<Journal> j = OpenOrDie(Options("n1", 1));
  ASSERT_NE(j, nullptr);
  ExpectAllCommitted(WriteEntries(*j, 1, 3));
  journal::JournalEntry entry = MakeEntry(4);
  using journal::testing_util::StateErase;
  using journal::testing_util::StateWrite;
  entry.state_updates = {StateWrite("bank-a/k1", "v1"),     StateErase("bank-a/ACC-1"),
                         StateErase("bank-a/k1"),           StateWrite("bank-a/k3", "first"),
                         StateWrite("bank-a/k3", "second"), StateErase("bank-a/k4"),
                         StateWrite("bank-a/k4", "written")};
  std::promise<Result<journal::CommitInfo>> done;
  ASSERT_TRUE(j->Enqueue(std::move(entry), [&done](const Result<journal::CommitInfo>& r) {
                 done.set_value(r);
               }).ok());
  ASSERT_TRUE(done.get_future().get().ok());
  EXPECT_FALSE(j->GetAccountState("bank-a/k1")->has_value());
  EXPECT_FALSE(j->GetAccountState("bank-a/ACC-1")->has_value());  // written by entry 1
  EXPECT_EQ(j->GetAccountState("bank-a/k3")->value_or(""), "second");
  EXPECT_EQ(j->GetAccountState("bank-a/k4")->value_or(""), "written");
  j.reset();
  // What another node reads is the same.
  std::unique_ptr<PgJournalBackend> reader = Reader();
  ASSERT_NE(reader, nullptr);
  EXPECT_FALSE(reader->GetState("bank-a/k1")->has_value());
  EXPECT_EQ(reader->GetState("bank-a/k3")->value_or(""), "second");
  EXPECT_TRUE(VerifyChain0().ok);
}

TEST_F(PgJournalBackendTest, FencedOwnerCommitsNothingAndFailsClosed) {
  std::unique_ptr<Journal> j = OpenOrDie(Options("n1", 1));
  ASSERT_NE(j, nullptr);
  ExpectAllCommitted(WriteEntries(*j, 1, 5));
  // Another node takes the chain at a higher epoch.
  auto taker = PgJournalBackend::Open(server_.url(), 0, "n2", 2);
  ASSERT_TRUE(taker.ok()) << taker.status().ToString();

  const auto late = WriteEntries(*j, 6, 8);
  for (const auto& r : late) EXPECT_FALSE(r.ok());
  EXPECT_FALSE(j->healthy());
  EXPECT_NE(j->health().message().find("fenced"), std::string::npos) << j->health().ToString();
  // Failed closed: nothing more is accepted.
  EXPECT_FALSE(WriteEntries(*j, 9, 9)[0].ok());
  j.reset();

  std::unique_ptr<PgJournalBackend> reader = Reader();
  ASSERT_NE(reader, nullptr);
  auto head = reader->ReadHead();
  ASSERT_TRUE(head.ok() && head->has_value());
  EXPECT_EQ((*head)->last_seq, 5u);
  EXPECT_FALSE(reader->ReadEntry(6)->has_value());
  EXPECT_FALSE(reader->FindByTransaction(journal::TransactionKey("bank-a", "tx-6"))->has_value());

  // The old owner cannot come back at its old epoch; the new one continues the chain.
  auto back = PgJournalBackend::Open(server_.url(), 0, "n1", 1);
  EXPECT_EQ(back.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(back.status().message().find("fenced"), std::string::npos);
  taker->reset();
  std::unique_ptr<Journal> next = OpenOrDie(Options("n2", 2));
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->durable_sequence(), 5u);
  ExpectAllCommitted(WriteEntries(*next, 6, 8));
  next.reset();
  EXPECT_TRUE(VerifyChain0().ok);
}

TEST_F(PgJournalBackendTest, TransactionKeyIsUniqueAcrossTheCluster) {
  std::unique_ptr<Journal> first = OpenOrDie(Options("n1", 1, /*chain=*/0));
  ASSERT_NE(first, nullptr);
  ExpectAllCommitted(WriteEntries(*first, 1, 3));
  // Another owner, another chain, the same tenant and transaction id.
  std::unique_ptr<Journal> second = OpenOrDie(Options("n2", 1, /*chain=*/1));
  ASSERT_NE(second, nullptr);
  const auto duplicate = WriteEntries(*second, 2, 2);
  EXPECT_FALSE(duplicate[0].ok());
  EXPECT_FALSE(second->healthy());
  second.reset();
  std::unique_ptr<PgJournalBackend> chain1 = Reader(1);
  ASSERT_NE(chain1, nullptr);
  EXPECT_FALSE(chain1->ReadEntry(1)->has_value());
  EXPECT_FALSE(chain1->ReadHead()->has_value());
  // Chain 0 kept its record.
  EXPECT_EQ(Reader(0)->FindByTransaction(journal::TransactionKey("bank-a", "tx-2"))->value_or(0),
            2u);
}

TEST_F(PgJournalBackendTest, VerifyFindsAnEditedEntry) {
  {
    std::unique_ptr<Journal> j = OpenOrDie(Options("n1", 1));
    ASSERT_NE(j, nullptr);
    ExpectAllCommitted(WriteEntries(*j, 1, 20));
  }
  PgVerifyOptions options;
  options.url = server_.url();
  auto before = VerifyPgJournal(options);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_EQ(before->size(), 1u);
  EXPECT_TRUE((*before)[0].report.ok) << (*before)[0].report.problem;
  EXPECT_EQ((*before)[0].report.records, 20u);

  // One bit of record 7's payload flipped in place, as someone with database access could.
  auto admin = PgConnection::Connect(server_.url());
  ASSERT_TRUE(admin.ok());
  auto edited = (*admin)->Exec(
      "UPDATE verdict_journal_entries SET entry = set_byte(entry, 120, get_byte(entry, 120) # 1) "
      "WHERE chain = 0 AND seq = 7");
  ASSERT_TRUE(edited.ok()) << edited.status().ToString();
  ASSERT_EQ(edited->affected(), 1);
  auto after = VerifyPgJournal(options);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_EQ(after->size(), 1u);
  EXPECT_FALSE((*after)[0].report.ok);
  EXPECT_EQ((*after)[0].report.first_bad_seq, 7u) << (*after)[0].report.problem;
  EXPECT_EQ((*after)[0].report.records, 6u);
}

TEST_F(PgJournalBackendTest, VerifyRequiresTheTrustedKeyWhenGiven) {
  {
    std::unique_ptr<Journal> j = OpenOrDie(Options("n1", 1));
    ASSERT_NE(j, nullptr);
    ExpectAllCommitted(WriteEntries(*j, 1, 12));
  }
  PgVerifyOptions options;
  options.url = server_.url();
  options.trusted_public_key = journal::PublicKey{};  // not the signer's
  auto report = VerifyPgJournal(options);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->size(), 1u);
  EXPECT_FALSE((*report)[0].report.ok);
  EXPECT_NE((*report)[0].report.problem.find("trusted key"), std::string::npos);
  auto own = journal::LoadPublicKey(dir_.Sub("n1"));
  ASSERT_TRUE(own.ok());
  options.trusted_public_key = *own;
  report = VerifyPgJournal(options);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE((*report)[0].report.ok) << (*report)[0].report.problem;
}

TEST_F(PgJournalBackendTest, BrokenConnectionIsReplaced) {
  std::unique_ptr<Journal> j = OpenOrDie(Options("n1", 1));
  ASSERT_NE(j, nullptr);
  ExpectAllCommitted(WriteEntries(*j, 1, 2));
  auto admin = PgConnection::Connect(server_.url());
  ASSERT_TRUE(admin.ok());
  // Ends every other session, as a PostgreSQL restart or fail-over would.
  ASSERT_TRUE((*admin)
                  ->Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE pid <> pg_backend_pid() AND datname = current_database()")
                  .ok());
  // A read finds its connection broken and is sent again on a new one; so is a group whose
  // connection broke before its COMMIT: the journal goes on rather than failing closed.
  EXPECT_TRUE(j->GetRegistry("x").ok());
  EXPECT_TRUE(j->FindByTransaction("bank-a", "tx-1")->has_value());
  ASSERT_TRUE((*admin)
                  ->Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE pid <> pg_backend_pid() AND datname = current_database()")
                  .ok());
  ExpectAllCommitted(WriteEntries(*j, 3, 4));
  EXPECT_TRUE(j->healthy()) << j->health().ToString();
  j.reset();
  EXPECT_TRUE(VerifyChain0().ok);
}

// The pid of the one other session of the database that waits on `wait_event` (polled; 0 if
// none did within ten seconds).
int WaitingBackend(PgConnection& admin, const std::string& wait_event) {
  for (int i = 0; i < 1000; ++i) {
    auto rows = admin.Exec(
        "SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND "
        "datname = current_database() AND wait_event = $1",
        {wait_event});
    if (rows.ok() && rows->size() == 1) return std::stoi(std::string(rows->Get(0, 0)));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// Enqueues entry `i` of bank-a; the future gets its commit's result.
std::future<Result<journal::CommitInfo>> EnqueueEntry(Journal& j, uint64_t i) {
  auto done = std::make_shared<std::promise<Result<journal::CommitInfo>>>();
  std::future<Result<journal::CommitInfo>> result = done->get_future();
  Result<uint64_t> seq =
      j.Enqueue(MakeEntry(i), [done](const Result<journal::CommitInfo>& r) { done->set_value(r); });
  if (!seq.ok()) done->set_value(seq.status());
  return result;
}

// A COMMIT whose answer is lost may have committed or not. Here it did not: the group's
// transaction waits on a row lock (another session inserting its transaction key) when its
// session is ended. The journal finds the group absent and sends it again.
TEST_F(PgJournalBackendTest, UnansweredCommitThatDidNotCommitIsSentAgain) {
  std::unique_ptr<Journal> j = OpenOrDie(Options("n1", 1));
  ASSERT_NE(j, nullptr);
  ExpectAllCommitted(WriteEntries(*j, 1, 2));
  auto admin = PgConnection::Connect(server_.url());
  auto blocker = PgConnection::Connect(server_.url());
  ASSERT_TRUE(admin.ok() && blocker.ok());
  ASSERT_TRUE((*blocker)->Exec("BEGIN").ok());
  ASSERT_TRUE((*blocker)
                  ->Exec("INSERT INTO verdict_journal_by_transaction (txn_key, chain, seq) "
                         "VALUES ($1, 99, 1)",
                         {ByteaParam(journal::TransactionKey("bank-a", "tx-3"))})
                  .ok());
  auto third = EnqueueEntry(*j, 3);
  const int writer = WaitingBackend(**admin, "transactionid");
  ASSERT_NE(writer, 0) << "the group did not wait on the other session's key";
  ASSERT_TRUE((*admin)->Exec("SELECT pg_terminate_backend($1)", {std::to_string(writer)}).ok());
  // The group is sent again and waits on the same key until the other session gives it up.
  ASSERT_NE(WaitingBackend(**admin, "transactionid"), 0);
  ASSERT_TRUE((*blocker)->Exec("ROLLBACK").ok());
  ExpectCommittedOnceAndGoingOn(third, j);
}

// And here it did: the COMMIT waits for a synchronous standby that never answers, as on a
// primary that is about to be replaced, when its session is ended (the server keeps what it
// committed locally). The journal finds the group there and does not write it twice.
TEST_F(PgJournalBackendTest, UnansweredCommitThatCommittedIsNotWrittenTwice) {
  std::unique_ptr<Journal> j = OpenOrDie(Options("n1", 1));
  ASSERT_NE(j, nullptr);
  ExpectAllCommitted(WriteEntries(*j, 1, 2));
  auto admin = PgConnection::Connect(server_.url());
  ASSERT_TRUE(admin.ok());
  ASSERT_TRUE((*admin)->Exec("ALTER SYSTEM SET synchronous_standby_names = 'absent'").ok());
  ASSERT_TRUE((*admin)->Exec("SELECT pg_reload_conf()").ok());
  auto third = EnqueueEntry(*j, 3);
  const int writer = WaitingBackend(**admin, "SyncRep");
  ASSERT_NE(writer, 0) << "the COMMIT did not wait for the standby";
  ASSERT_TRUE((*admin)->Exec("SELECT pg_terminate_backend($1)", {std::to_string(writer)}).ok());
  ASSERT_TRUE((*admin)->Exec("ALTER SYSTEM RESET synchronous_standby_names").ok());
  ASSERT_TRUE((*admin)->Exec("SELECT pg_reload_conf()").ok());
  ExpectCommittedOnceAndGoingOn(third, j);
}

// Every account state as ForEachState gives it.
std::map<std::string, std::string> States(const journal::JournalBackend& backend) {
  std::map<std::string, std::string> states;
  Status read = backend.ForEachState([&](std::string_view key, std::string_view value) {
    states.emplace(key, value);
    return Status::Ok();
  });
  EXPECT_TRUE(read.ok()) << read.ToString();
  return states;
}

TEST_F(PgJournalBackendTest, WarmStandbyCopyRecoversTheStatesPostgresHolds) {
  std::unique_ptr<Journal> j = OpenOrDie(Options("n1", 1));
  ASSERT_NE(j, nullptr);
  ExpectAllCommitted(WriteEntries(*j, 1, 20));
  std::unique_ptr<PgJournalBackend> reader = Reader();
  ASSERT_NE(reader, nullptr);
  auto warm = std::make_shared<WarmState>();
  ASSERT_TRUE(warm->CatchUp(*reader).ok());
  const size_t copied = warm->size();
  EXPECT_GT(copied, 0u);
  // After the copy: states updated and accounts new to it.
  ExpectAllCommitted(WriteEntries(*j, 21, 40));
  j.reset();
  const std::map<std::string, std::string> stored = States(*reader);
  ASSERT_GT(stored.size(), copied);

  // The next owner's recovery reads the warm copy, caught up, and gets what PostgreSQL holds.
  auto owner = PgJournalBackend::Open(server_.url(), 0, "n2", 2);
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  (*owner)->UseWarmState(warm);
  EXPECT_EQ(States(**owner), stored);
  EXPECT_EQ(warm->size(), stored.size());
  std::map<std::string, std::string> from_copy;
  auto whole = warm->ForEachIfWhole(*reader, [&](std::string_view key, std::string_view value) {
    from_copy.emplace(key, value);
    return Status::Ok();
  });
  ASSERT_TRUE(whole.ok() && *whole);
  EXPECT_EQ(from_copy, stored);

  // A state erased behind the copy's back: the copy is not whole, and recovery reads every row.
  auto admin = PgConnection::Connect(server_.url());
  ASSERT_TRUE(admin.ok());
  ASSERT_TRUE((*admin)
                  ->Exec("DELETE FROM verdict_journal_state WHERE key = (SELECT key FROM "
                         "verdict_journal_state ORDER BY key LIMIT 1)")
                  .ok());
  auto not_whole = warm->ForEachIfWhole(
      *reader, [](std::string_view, std::string_view) { return Status::Ok(); });
  ASSERT_TRUE(not_whole.ok());
  EXPECT_FALSE(*not_whole);
  const std::map<std::string, std::string> after_erase = States(*reader);
  EXPECT_EQ(after_erase.size(), stored.size() - 1);
  EXPECT_EQ(States(**owner), after_erase);
}

TEST_F(PgJournalBackendTest, StatementWithoutAnswerInTimeIsUnavailable) {
  auto db = PgConnection::Connect(server_.url(), std::chrono::milliseconds(300));
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto slow = (*db)->Exec("SELECT pg_sleep(10)");
  EXPECT_EQ(slow.status().code(), StatusCode::kUnavailable) << slow.status().ToString();
  EXPECT_NE(slow.status().message().find("no answer within"), std::string::npos);
  EXPECT_TRUE((*db)->broken());
  // Without a timeout the same connection class waits for the answer.
  auto patient = PgConnection::Connect(server_.url());
  ASSERT_TRUE(patient.ok());
  auto answered = (*patient)->Exec("SELECT pg_sleep(0.5), 42");
  ASSERT_TRUE(answered.ok()) << answered.status().ToString();
  EXPECT_EQ(answered->Get(0, 1), "42");
}

}  // namespace
}  // namespace verdict::cluster
