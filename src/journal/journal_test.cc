#include "journal/journal.h"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <set>
#include <thread>

#include "journal/fault_fs.h"
#include "journal/test_util.h"
#include "journal/verifier.h"

namespace verdict::journal {
namespace {

using testing_util::MakeEntry;
using testing_util::OpenOrDie;
using testing_util::TempDir;
using testing_util::VerifyDir;
using testing_util::WriteEntries;

JournalOptions Options(const TempDir& dir) {
  JournalOptions o;
  o.data_dir = dir.Sub("data");
  return o;
}

// A commit callback that holds the journal thread running it until released, so that what is
// enqueued meanwhile stays pending. `also` runs first, with the commit's result.
class HeldCallback {
 public:
  CommitCallback Callback(CommitCallback also = nullptr) {
    return [this, also](const Result<CommitInfo>& r) {
      if (also) also(r);
      entered_.set_value();
      released_.wait();
    };
  }
  void WaitUntilEntered() { entered_.get_future().wait(); }
  void Release() { release_.set_value(); }

 private:
  std::promise<void> entered_;
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
};

TEST(JournalTest, CommitsInSubmissionOrderAndReadsBack) {
  TempDir dir;
  auto j = OpenOrDie(Options(dir));
  ASSERT_TRUE(j);
  std::vector<uint64_t> order;
  std::mutex mu;
  for (uint64_t i = 1; i <= 100; ++i) {
    Result<uint64_t> seq = j->Enqueue(MakeEntry(i), [&, i](const Result<CommitInfo>& r) {
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->seq, i);
      std::lock_guard lock(mu);
      order.push_back(r->seq);
    });
    ASSERT_TRUE(seq.ok());
    EXPECT_EQ(*seq, i);
  }
  ASSERT_TRUE(j->Flush().ok());
  ASSERT_EQ(order.size(), 100u);
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_EQ(j->durable_sequence(), 100u);

  auto by_id = j->FindByDecisionId(testing_util::TestUuid(42));
  ASSERT_TRUE(by_id.ok() && by_id->has_value());
  JournalRecord expected = testing_util::MakeRecord(42);
  EXPECT_EQ((*by_id)->seq, 42u);
  EXPECT_EQ((*by_id)->canonical_input, expected.canonical_input);
  EXPECT_EQ((*by_id)->input_sha256, Sha256(expected.canonical_input));
  EXPECT_EQ((*by_id)->features, expected.features);
  EXPECT_EQ((*by_id)->decision.reasons[0].code, "STRUCTURING");

  auto by_tx = j->FindByTransaction("bank-a", "tx-42");
  ASSERT_TRUE(by_tx.ok() && by_tx->has_value());
  EXPECT_TRUE((*by_tx)->durable);
  EXPECT_EQ((*by_tx)->record.decision.decision_id, testing_util::TestUuid(42));
  auto other_tenant = j->FindByTransaction("bank-b", "tx-42");
  ASSERT_TRUE(other_tenant.ok());
  EXPECT_FALSE(other_tenant->has_value());
  auto missing = j->FindByDecisionId(testing_util::TestUuid(4242));
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());

  // ACC-5 is the sender of records 5 and 102..; and the receiver where (7i+3) % 101 == 5.
  std::vector<uint64_t> touching;
  for (uint64_t i = 100; i >= 1; --i) {
    auto r = testing_util::MakeRecord(i);
    if (r.accounts[0] == "ACC-5" || r.accounts[1] == "ACC-5") touching.push_back(i);
  }
  auto listed = j->ListByAccount("bank-a", "ACC-5", 10);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), std::min<size_t>(10, touching.size()));
  for (size_t k = 0; k < listed->size(); ++k) EXPECT_EQ((*listed)[k].seq, touching[k]);
  auto older = j->ListByAccount("bank-a", "ACC-5", 100, touching[0]);
  ASSERT_TRUE(older.ok());
  EXPECT_EQ(older->size(), touching.size() - 1);
  auto none = j->ListByAccount("bank-b", "ACC-5", 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  auto state = j->GetAccountState("bank-a/ACC-5");
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_EQ(**state, "state-after-" + std::to_string(touching[0]));

  // Verify works beside the running journal (read-only open).
  VerifyReport report = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, 100u);
}

// A store written before the account index was keyed newest first (format 1: seq ascending,
// no format marker) is rewritten on open and lists the same records, newest first.
TEST(JournalTest, UpgradesAFormatOneAccountIndexOnOpen) {
  TempDir dir;
  std::vector<uint64_t> touching;
  {
    auto j = OpenOrDie(Options(dir));
    ASSERT_TRUE(j);
    WriteEntries(*j, 1, 60);
  }
  for (uint64_t i = 60; i >= 1; --i) {
    auto r = testing_util::MakeRecord(i);
    if (r.accounts[0] == "ACC-5" || r.accounts[1] == "ACC-5") touching.push_back(i);
  }
  ASSERT_GE(touching.size(), 2u);
  {  // Rewrite the index as format 1 did.
    StoreOptions so;
    so.data_dir = dir.Sub("data");
    auto store = JournalStore::Open(so);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    rocksdb::WriteBatch batch;
    std::unique_ptr<rocksdb::Iterator> it = (*store)->NewIterator(Cf::kByAccount);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string key = it->key().ToString();
      uint64_t seq = AccountKeySeq(key);
      batch.Delete((*store)->handle(Cf::kByAccount), key);
      key.resize(key.size() - 8);
      key.append(SeqKey(seq));
      batch.Put((*store)->handle(Cf::kByAccount), key, "");
    }
    batch.Delete((*store)->handle(Cf::kMeta), kMetaFormatKey);
    ASSERT_TRUE((*store)->Write(batch, true).ok());
  }
  {  // A read-only open refuses it rather than list in the wrong order.
    StoreOptions so;
    so.data_dir = dir.Sub("data");
    so.read_only = true;
    auto store = JournalStore::Open(so);
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.status().message().find("format-1"), std::string::npos);
  }
  auto j = OpenOrDie(Options(dir));
  ASSERT_TRUE(j);
  auto listed = j->ListByAccount("bank-a", "ACC-5", 100);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), touching.size());
  for (size_t k = 0; k < listed->size(); ++k) EXPECT_EQ((*listed)[k].seq, touching[k]);
  EXPECT_TRUE(VerifyDir(dir.Sub("data")).ok);
}

TEST(JournalTest, AdminEventsJoinTheChainAndAreListedPerTenant) {
  TempDir dir;
  {
    auto j = OpenOrDie(Options(dir));
    ASSERT_TRUE(j);
    WriteEntries(*j, 1, 3);
    ASSERT_TRUE(
        j->RecordAdminEvent({"bank-a", "key-1", "keys.create", "key-2", R"({"role":"scorer"})"})
            .ok());
    ASSERT_TRUE(j->RecordAdminEvent({"bank-b", "key-9", "models.activate", "aml/4", ""}).ok());
    WriteEntries(*j, 4, 5);
    ASSERT_TRUE(j->RecordAdminEvent({"bank-a", "key-1", "keys.revoke", "key-2", ""}).ok());
    EXPECT_EQ(j->durable_sequence(), 8u);
    EXPECT_EQ(j->RecordAdminEvent({"bank-a", "key-1", "", "x", ""}).field(), "action");

    auto events = j->ListAdminEvents("bank-a", 10);
    ASSERT_TRUE(events.ok()) << events.status().ToString();
    ASSERT_EQ(events->size(), 2u);
    EXPECT_EQ((*events)[0].admin.action, "keys.revoke");
    EXPECT_EQ((*events)[0].seq, 8u);
    EXPECT_EQ((*events)[1].admin.action, "keys.create");
    EXPECT_EQ((*events)[1].admin.details_json, R"({"role":"scorer"})");
    EXPECT_EQ((*events)[1].principal, "key-1");
    auto older = j->ListAdminEvents("bank-a", 10, 8);
    ASSERT_TRUE(older.ok());
    ASSERT_EQ(older->size(), 1u);
    auto other = j->ListAdminEvents("bank-b", 10);
    ASSERT_TRUE(other.ok());
    ASSERT_EQ(other->size(), 1u);
    EXPECT_EQ((*other)[0].admin.object, "aml/4");
    // Admin events are not decisions: no account listing or transaction lookup finds them.
    auto by_account = j->ListByAccount("bank-a", "", 10);
    ASSERT_TRUE(by_account.ok());
    EXPECT_TRUE(by_account->empty());
    auto txn = j->FindByTransaction("bank-a", "");
    ASSERT_TRUE(txn.ok());
    EXPECT_FALSE(txn->has_value());
  }
  VerifyReport report = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, 8u);
}

TEST(JournalTest, HistoryRecordsJoinTheChainAndAreIndexedLikeDecisions) {
  TempDir dir;
  {
    auto j = OpenOrDie(Options(dir));
    ASSERT_TRUE(j);
    JournalEntry history = MakeEntry(1);
    history.record.kind = RecordKind::kHistory;
    history.record.features.clear();
    history.record.input_position = 41;
    std::promise<Result<CommitInfo>> committed;
    ASSERT_TRUE(
        j->Enqueue(history, [&](const Result<CommitInfo>& r) { committed.set_value(r); }).ok());
    ASSERT_TRUE(committed.get_future().get().ok());
    WriteEntries(*j, 2, 3);
    // A transaction id names one transaction: imported history cannot be journaled again, nor
    // decided.
    EXPECT_EQ(j->Enqueue(MakeEntry(1), [](const Result<CommitInfo>&) {}).status().code(),
              StatusCode::kAlreadyExists);
    auto found = j->FindByTransaction("bank-a", "tx-1");
    ASSERT_TRUE(found.ok() && found->has_value());
    EXPECT_EQ((*found)->record.kind, RecordKind::kHistory);
    EXPECT_EQ((*found)->record.input_position, 41u);
    EXPECT_TRUE((*found)->record.features.empty());
    auto listed = j->ListByAccount("bank-a", history.record.accounts[0], 10);
    ASSERT_TRUE(listed.ok());
    ASSERT_FALSE(listed->empty());
    EXPECT_EQ(listed->back().kind, RecordKind::kHistory);
    auto state = j->GetAccountState(history.state_updates[0].key);
    ASSERT_TRUE(state.ok() && state->has_value());
  }
  VerifyReport report = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, 3u);
}

TEST(JournalTest, ContinuesTheChainAcrossRestartsAndRecoversState) {
  TempDir dir;
  MetricsRegistry metrics;
  JournalOptions o = Options(dir);
  o.metrics = &metrics;
  Digest hash_before{};
  {
    auto j = OpenOrDie(o);
    for (auto& r : WriteEntries(*j, 1, 10)) ASSERT_TRUE(r.ok());
    hash_before = j->last_hash();
  }
  std::map<std::string, std::string> recovered;
  o.on_recovered_state = [&](std::string_view k, std::string_view v, const StateTag*) {
    recovered[std::string(k)] = std::string(v);
    return Status::Ok();
  };
  {
    auto j = OpenOrDie(o);
    EXPECT_EQ(j->durable_sequence(), 10u);
    EXPECT_EQ(j->last_hash(), hash_before);
    EXPECT_GT(j->recovery_seconds(), 0);
    EXPECT_EQ(recovered["bank-a/ACC-10"], "state-after-10");
    auto results = WriteEntries(*j, 11, 20);
    EXPECT_EQ(results[0]->seq, 11u);
    auto rec = j->ReadRecord(11);
    ASSERT_TRUE(rec.ok() && rec->has_value());
    EXPECT_EQ((*rec)->prev_hash, hash_before);
  }
  VerifyReport report = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, 20u);
  std::string text = metrics.RenderPrometheus();
  for (const char* name :
       {"verdict_journal_recovery_seconds", "verdict_journal_commits_total",
        "verdict_journal_group_size_bucket", "verdict_journal_commit_seconds_bucket"}) {
    EXPECT_NE(text.find(name), std::string::npos) << name;
  }
}

TEST(JournalTest, ConcurrentSubmittersGetOneContiguousOrder) {
  TempDir dir;
  auto j = OpenOrDie(Options(dir));
  constexpr int kThreads = 4;
  constexpr int kPerThread = 200;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::vector<uint64_t> seqs;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kPerThread; ++k) {
        uint64_t i = 1 + static_cast<uint64_t>(t * kPerThread + k);
        Result<uint64_t> seq = j->Enqueue(MakeEntry(i), [&](const Result<CommitInfo>& r) {
          if (!r.ok()) failures.fetch_add(1);
        });
        ASSERT_TRUE(seq.ok());
        std::lock_guard lock(mu);
        seqs.push_back(*seq);
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(j->Flush().ok());
  EXPECT_EQ(failures.load(), 0);
  std::sort(seqs.begin(), seqs.end());
  for (size_t k = 0; k < seqs.size(); ++k) ASSERT_EQ(seqs[k], k + 1);
  j.reset();
  VerifyReport report = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, static_cast<uint64_t>(kThreads * kPerThread));
}

// A backlog engages the committer thread: groups are then written by both journal threads,
// still one at a time and in sequence order. The first commit's callback holds the writer
// until the backlog is queued, so the hand-off is certain.
TEST(JournalTest, ABacklogIsCommittedByBothThreadsInSequenceOrder) {
  TempDir dir;
  JournalOptions o = Options(dir);
  o.max_group_size = 8;
  auto j = OpenOrDie(o);
  constexpr uint64_t kEntries = 2000;
  std::mutex mu;
  std::vector<uint64_t> callback_order;
  std::set<std::thread::id> callback_threads;
  std::atomic<int> failures{0};
  HeldCallback first;
  auto record = [&](const Result<CommitInfo>& r) {
    if (!r.ok()) {
      failures.fetch_add(1);
      return;
    }
    std::lock_guard lock(mu);
    callback_order.push_back(r->seq);
    callback_threads.insert(std::this_thread::get_id());
  };
  ASSERT_TRUE(j->Enqueue(MakeEntry(1), first.Callback(record)).ok());
  first.WaitUntilEntered();
  for (uint64_t i = 2; i <= kEntries; ++i) ASSERT_TRUE(j->Enqueue(MakeEntry(i), record).ok());
  first.Release();
  ASSERT_TRUE(j->Flush().ok());

  EXPECT_EQ(failures.load(), 0);
  ASSERT_EQ(callback_order.size(), kEntries);
  for (uint64_t k = 0; k < kEntries; ++k) ASSERT_EQ(callback_order[k], k + 1);
  EXPECT_EQ(callback_threads.size(), 2u);  // the writer and the committer
  j.reset();
  VerifyReport report = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, kEntries);
}

// At a high arrival rate (GroupPacer) the writer waits for more entries before it takes a
// group, until group_delay_us passes or a pipeline's worth (64) is queued. The manual clock
// moves 1 ms per batch of 64, so the pacer measures 64,000/s; the delay (2 s) is far longer
// than the test needs, so the 64 rule ends the wait. A batch whose first entry is enqueued
// 20 ms before the other 63 then still goes into one group; without the wait the first entry
// would be committed on its own.
// Options for the group-delay tests: the pacer measures its rate on `clock`.
JournalOptions PacedOptions(const TempDir& dir, ManualClock& clock, int64_t group_delay_us) {
  JournalOptions o = Options(dir);
  o.clock = &clock;
  o.group_delay_us = group_delay_us;
  return o;
}

TEST(JournalTest, AtAHighRateTheWriterWaitsToFillAGroup) {
  TempDir dir;
  ManualClock clock(1'700'000'000'000'000);
  MetricsRegistry metrics;
  JournalOptions o = PacedOptions(dir, clock, 2'000'000);
  o.metrics = &metrics;
  auto j = OpenOrDie(o);
  Counter* commits = metrics.GetCounter("verdict_journal_commits_total", "");
  uint64_t next = 1;
  for (int batch = 0; batch < 12; ++batch, next += 64) {
    for (const auto& r : WriteEntries(*j, next, next + 63))
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    clock.AdvanceMicros(1000);
  }

  const uint64_t commits_before = commits->value();
  std::promise<Result<CommitInfo>> first;
  ASSERT_TRUE(
      j->Enqueue(MakeEntry(next), [&](const Result<CommitInfo>& r) { first.set_value(r); }).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (const auto& r : WriteEntries(*j, next + 1, next + 63)) ASSERT_TRUE(r.ok());
  ASSERT_TRUE(first.get_future().get().ok());
  EXPECT_EQ(commits->value() - commits_before, 1u);
  j.reset();
  VerifyReport report = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, next + 63);
}

// An urgent (realtime) entry ends the writer's wait at once. The delay here is ten minutes, so
// the ordinary entry queued before it would otherwise hang the test; urgent warm-up batches
// never wait, so the rate is measured without any wait.
TEST(JournalTest, AnUrgentEntryEndsTheWritersWait) {
  TempDir dir;
  ManualClock clock(1'700'000'000'000'000);
  auto j = OpenOrDie(PacedOptions(dir, clock, 600'000'000));
  auto enqueue = [&](uint64_t i, bool urgent) {
    JournalEntry entry = MakeEntry(i);
    entry.urgent = urgent;
    auto done = std::make_shared<std::promise<Status>>();
    Result<uint64_t> seq = j->Enqueue(
        std::move(entry), [done](const Result<CommitInfo>& r) { done->set_value(r.status()); });
    EXPECT_TRUE(seq.ok()) << seq.status().ToString();
    return done->get_future();
  };
  uint64_t next = 1;
  for (int batch = 0; batch < 12; ++batch) {
    std::vector<std::future<Status>> batch_done;
    for (int k = 0; k < 64; ++k) batch_done.push_back(enqueue(next++, /*urgent=*/true));
    for (auto& f : batch_done) ASSERT_TRUE(f.get().ok());
    clock.AdvanceMicros(1000);
  }
  std::future<Status> ordinary = enqueue(next++, /*urgent=*/false);
  std::future<Status> urgent = enqueue(next++, /*urgent=*/true);
  // A hang guard, not a timing claim: without the urgent rule this waits ten minutes.
  ASSERT_EQ(urgent.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_TRUE(urgent.get().ok());
  EXPECT_TRUE(ordinary.get().ok());
}

TEST(JournalTest, DuplicateTransactionsAreRefusedWhilePendingAndAfterCommit) {
  TempDir dir;
  auto j = OpenOrDie(Options(dir));
  // Hold the writer inside the first callback so the next entry stays pending.
  HeldCallback first;
  ASSERT_TRUE(j->Enqueue(MakeEntry(1), first.Callback()).ok());
  first.WaitUntilEntered();
  std::promise<Result<CommitInfo>> second;
  ASSERT_TRUE(
      j->Enqueue(MakeEntry(2), [&](const Result<CommitInfo>& r) { second.set_value(r); }).ok());

  auto pending = j->FindByTransaction("bank-a", "tx-2");
  ASSERT_TRUE(pending.ok() && pending->has_value());
  EXPECT_FALSE((*pending)->durable);
  EXPECT_EQ((*pending)->record.seq, 2u);
  EXPECT_EQ((*pending)->record.input_sha256, Sha256(MakeEntry(2).record.canonical_input));
  Result<uint64_t> dup_pending = j->Enqueue(MakeEntry(2), [](const Result<CommitInfo>&) {});
  EXPECT_EQ(dup_pending.status().code(), StatusCode::kAlreadyExists);
  Result<uint64_t> dup_committed = j->Enqueue(MakeEntry(1), [](const Result<CommitInfo>&) {});
  EXPECT_EQ(dup_committed.status().code(), StatusCode::kAlreadyExists);

  first.Release();
  ASSERT_TRUE(second.get_future().get().ok());
  auto durable = j->FindByTransaction("bank-a", "tx-2");
  ASSERT_TRUE(durable.ok() && durable->has_value());
  EXPECT_TRUE((*durable)->durable);
  EXPECT_EQ(j->Enqueue(MakeEntry(2), [](const Result<CommitInfo>&) {}).status().code(),
            StatusCode::kAlreadyExists);
  // Another tenant's transaction ids are its own.
  EXPECT_TRUE(WriteEntries(*j, 2, 2, "bank-b")[0].ok());
  EXPECT_EQ(j->durable_sequence(), 3u);
}

// With duplicates allowed, the newer pending entry of a transaction id is the one found, also
// after the older one has committed and been freed (the pending index keys on a view of the
// pending entry's own bytes: ASan sees a read of freed memory here if the key is not moved to the
// newer entry).
TEST(JournalTest, AllowedDuplicatesAreFoundByTheirNewestPendingEntry) {
  TempDir dir;
  JournalOptions o = Options(dir);
  o.reject_duplicate_transactions = false;
  o.max_group_size = 1;
  auto j = OpenOrDie(o);
  // Held callbacks: the first keeps what follows queued; the third keeps the newer tx-2 pending
  // after the older one has committed.
  HeldCallback first;
  HeldCallback third;
  ASSERT_TRUE(j->Enqueue(MakeEntry(1), first.Callback()).ok());
  first.WaitUntilEntered();
  JournalEntry older = MakeEntry(2);
  JournalEntry newer = MakeEntry(2);
  newer.record.decision.decision_id = testing_util::TestUuid(99);
  ASSERT_TRUE(j->Enqueue(std::move(older), [](const Result<CommitInfo>&) {}).ok());
  ASSERT_TRUE(j->Enqueue(MakeEntry(3), third.Callback()).ok());
  ASSERT_TRUE(j->Enqueue(std::move(newer), [](const Result<CommitInfo>&) {}).ok());
  auto found = j->FindByTransaction("bank-a", "tx-2");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->record.seq, 4u);
  EXPECT_FALSE((*found)->durable);

  first.Release();
  third.WaitUntilEntered();  // the older tx-2 (seq 2) is durable; the newer is not
  found = j->FindByTransaction("bank-a", "tx-2");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->record.seq, 4u);
  EXPECT_FALSE((*found)->durable);
  third.Release();
  ASSERT_TRUE(j->Flush().ok());
  EXPECT_EQ(j->durable_sequence(), 4u);
}

TEST(JournalTest, IdempotencyCheckTellsReplayFromConflict) {
  TempDir dir;
  auto j = OpenOrDie(Options(dir));
  JournalEntry e = MakeEntry(1);
  std::string input = e.record.canonical_input;
  auto fresh = j->CheckIdempotency("bank-a", "tx-1", input);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->verdict, Idempotency::kNew);
  WriteEntries(*j, 1, 1);
  auto replay = j->CheckIdempotency("bank-a", "tx-1", input);
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->verdict, Idempotency::kReplay);
  EXPECT_EQ(replay->existing->record.decision.decision_id, testing_util::TestUuid(1));
  auto conflict = j->CheckIdempotency("bank-a", "tx-1", input + " ");
  ASSERT_TRUE(conflict.ok());
  EXPECT_EQ(conflict->verdict, Idempotency::kConflict);
  EXPECT_EQ(j->CheckIdempotency("bank-b", "tx-1", input)->verdict, Idempotency::kNew);
}

TEST(JournalTest, EnqueueBlocksWhenTheQueueIsFullAndResumes) {
  TempDir dir;
  JournalOptions o = Options(dir);
  o.max_pending = 2;
  auto j = OpenOrDie(o);
  HeldCallback first;
  ASSERT_TRUE(j->Enqueue(MakeEntry(1), first.Callback()).ok());
  first.WaitUntilEntered();
  ASSERT_TRUE(j->Enqueue(MakeEntry(2), [](const Result<CommitInfo>&) {}).ok());
  ASSERT_TRUE(j->Enqueue(MakeEntry(3), [](const Result<CommitInfo>&) {}).ok());
  std::atomic<bool> fourth_done{false};
  std::thread blocked([&] {
    EXPECT_EQ(*j->Enqueue(MakeEntry(4), [](const Result<CommitInfo>&) {}), 4u);
    fourth_done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(fourth_done.load());  // two entries wait: the third Enqueue waits for room
  first.Release();
  blocked.join();
  ASSERT_TRUE(j->Flush().ok());
  EXPECT_EQ(j->durable_sequence(), 4u);
}

TEST(JournalTest, RefusesBadOptions) {
  JournalOptions o;
  EXPECT_EQ(Journal::Open(o).status().code(), StatusCode::kInvalidArgument);
}

TEST(JournalTest, RefusesInvalidRecordsWithoutUsingASequenceNumber) {
  TempDir dir;
  auto j = OpenOrDie(Options(dir));
  JournalEntry bad = MakeEntry(1);
  bad.record.tenant.clear();
  EXPECT_EQ(j->Enqueue(std::move(bad), [](const Result<CommitInfo>&) {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(*j->Enqueue(MakeEntry(1), [](const Result<CommitInfo>&) {}), 1u);
}

TEST(JournalTest, WhenDurableRunsAfterTheGroupAndAtOnceForOldSequences) {
  TempDir dir;
  auto j = OpenOrDie(Options(dir));
  WriteEntries(*j, 1, 3);
  bool ran = false;
  j->WhenDurable(2, [&](const Status& s) { ran = s.ok(); });
  EXPECT_TRUE(ran);
  std::promise<Status> later;
  j->WhenDurable(5, [&](const Status& s) { later.set_value(s); });
  WriteEntries(*j, 4, 5);
  EXPECT_TRUE(later.get_future().get().ok());
}

void ExpectFailClosed(bool fail_syncs) {
  TempDir dir;
  auto fs = std::make_shared<FaultInjectingFileSystem>();
  JournalOptions o = Options(dir);
  o.file_system = fs;
  MetricsRegistry metrics;
  o.metrics = &metrics;
  {
    auto j = OpenOrDie(o);
    for (auto& r : WriteEntries(*j, 1, 5)) ASSERT_TRUE(r.ok());
    EXPECT_TRUE(j->healthy());
    if (fail_syncs) {
      fs->set_fail_syncs(true);
    } else {
      fs->set_fail_writes(true);
    }
    std::vector<Result<CommitInfo>> failed = WriteEntries(*j, 6, 12);
    for (auto& r : failed) {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
    }
    EXPECT_GT(fs->injected_failures(), 0u);
    EXPECT_FALSE(j->healthy());
    EXPECT_NE(j->health().message().find("injected"), std::string::npos) << j->health().message();
    // The failure sticks even once the disk is fine again: only a restart recovers.
    fs->set_fail_syncs(false);
    fs->set_fail_writes(false);
    Result<uint64_t> after = j->Enqueue(MakeEntry(13), [](const Result<CommitInfo>&) {});
    EXPECT_EQ(after.status().code(), StatusCode::kUnavailable);
    Status waited;
    j->WhenDurable(100, [&](const Status& s) { waited = s; });
    EXPECT_EQ(waited.code(), StatusCode::kUnavailable);
    EXPECT_EQ(j->durable_sequence(), 5u);
    // Nothing waits for this journal any more: a scheduler holding work back for its backlog
    // must let it through, to be refused with 503 rather than never answered.
    EXPECT_EQ(j->backlog(), 0u);
    EXPECT_EQ(metrics.GetGauge("verdict_journal_healthy", "")->value(), 0);
  }
  auto j = OpenOrDie(Options(dir));
  ASSERT_TRUE(j);
  // What was acknowledged survived. A group whose WAL write reached the page cache before the
  // sync failed may come back whole after a restart; never a part of it.
  uint64_t recovered = j->durable_sequence();
  if (fail_syncs) {
    EXPECT_GE(recovered, 5u);
    EXPECT_LE(recovered, 12u);
  } else {
    EXPECT_EQ(recovered, 5u);
  }
  for (uint64_t i = 1; i <= 12; ++i) {
    auto r = j->FindByTransaction("bank-a", "tx-" + std::to_string(i));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->has_value(), i <= recovered) << i;
  }
  EXPECT_TRUE(WriteEntries(*j, 100, 101)[1].ok());
  j.reset();
  VerifyReport report = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(report.ok) << report.problem;
}

TEST(JournalFaultTest, SyncFailureFailsClosed) { ExpectFailClosed(/*fail_syncs=*/true); }
TEST(JournalFaultTest, WriteFailureFailsClosed) { ExpectFailClosed(/*fail_syncs=*/false); }

TEST(JournalTest, SignsCheckpointsByCountTimeAndOnClose) {
  TempDir dir;
  ManualClock clock(1'700'000'000'000'000);
  JournalOptions o = Options(dir);
  o.clock = &clock;
  o.checkpoint_every_records = 10;
  o.checkpoint_interval_us = 1'000'000;
  {
    auto j = OpenOrDie(o);
    WriteEntries(*j, 1, 25);
    auto cp = j->LatestCheckpoint();
    ASSERT_TRUE(cp.ok() && cp->has_value());
    EXPECT_GE((*cp)->tree_size, 10u);
    EXPECT_TRUE(VerifyCheckpointSignature(**cp, j->public_key()));
    ASSERT_TRUE(j->Flush().ok());
    clock.AdvanceMicros(2'000'000);
    // The writer notices the due time checkpoint on its own.
    for (int k = 0; k < 200; ++k) {
      cp = j->LatestCheckpoint();
      if (cp.ok() && cp->has_value() && (*cp)->tree_size == 25) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(cp.ok() && cp->has_value());
    EXPECT_EQ((*cp)->tree_size, 25u);
    WriteEntries(*j, 26, 27);
  }
  auto j = OpenOrDie(o);
  auto cp = j->LatestCheckpoint();
  ASSERT_TRUE(cp.ok() && cp->has_value());
  EXPECT_EQ((*cp)->tree_size, 27u);  // signed on close

  auto proof = j->ProveInclusion(7, 20);
  ASSERT_TRUE(proof.ok()) << proof.status().ToString();
  auto rec = j->ReadRecord(7);
  EXPECT_EQ(proof->leaf_hash, MerkleLeafHash(AsBytes((*rec)->record_hash)));
  EXPECT_TRUE(VerifyMerkleInclusion(proof->leaf_hash, 6, 20, proof->path, proof->root));
  auto full = j->ProveInclusion(27, 27);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->root, (*cp)->root);
  EXPECT_FALSE(j->ProveInclusion(28, 28).ok());
  j.reset();
  VerifyReport report = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(report.ok) << report.problem;
  // Checkpoints fall on group boundaries: at least one by count or time, and the one on close.
  EXPECT_GE(report.checkpoints, 2u);
}

class JournalCipherTest : public ::testing::TestWithParam<PayloadCipherKind> {};

TEST_P(JournalCipherTest, EncryptsPayloadsAtRestAndVerifiesCiphertext) {
  TempDir dir;
  testing_util::WriteKek(dir.Sub("kek"));
  JournalOptions o = Options(dir);
  o.kek_file = dir.Sub("kek");
  o.cipher = GetParam();
  {
    auto j = OpenOrDie(o);
    WriteEntries(*j, 1, 10);
    auto r = j->FindByTransaction("bank-a", "tx-3");
    ASSERT_TRUE(r.ok() && r->has_value());
    EXPECT_EQ((*r)->record.canonical_input, MakeEntry(3).record.canonical_input);
  }
  {
    auto j = OpenOrDie(o);  // a second data key
    WriteEntries(*j, 11, 12);
    auto r = j->FindByDecisionId(testing_util::TestUuid(5));
    ASSERT_TRUE(r.ok() && r->has_value());
  }
  {
    StoreOptions so;
    so.data_dir = dir.Sub("data");
    so.read_only = true;
    auto store = JournalStore::Open(so);
    ASSERT_TRUE(store.ok());
    auto raw = (*store)->Get(Cf::kRecords, SeqKey(3));
    ASSERT_TRUE(raw.ok() && raw->has_value());
    EXPECT_EQ((*raw)->find("BANKUS33"), std::string::npos);
  }
  VerifyReport without_kek = VerifyDir(dir.Sub("data"));
  EXPECT_TRUE(without_kek.ok) << without_kek.problem;
  EXPECT_EQ(without_kek.encrypted_records, 12u);
  VerifyOptions vo;
  vo.data_dir = dir.Sub("data");
  vo.kek_file = dir.Sub("kek");
  auto with_kek = Verify(vo);
  ASSERT_TRUE(with_kek.ok());
  EXPECT_TRUE(with_kek->ok) << with_kek->problem;

  ASSERT_TRUE(WriteNewFile(dir.Sub("wrong"), std::string(32, 'w'), 0600).ok());
  o.kek_file = dir.Sub("wrong");
  EXPECT_FALSE(Journal::Open(o).ok());
}

INSTANTIATE_TEST_SUITE_P(Ciphers, JournalCipherTest,
                         ::testing::Values(PayloadCipherKind::kAes256Gcm,
                                           PayloadCipherKind::kSm4CtrHmacSm3),
                         [](const auto& info) {
                           return info.param == PayloadCipherKind::kAes256Gcm ? "Aes256Gcm"
                                                                              : "Sm4CtrHmacSm3";
                         });

TEST(JournalTest, AsyncDurabilityCommits) {
  TempDir dir;
  JournalOptions o = Options(dir);
  o.durability = Durability::kAsync;
  auto j = OpenOrDie(o);
  for (auto& r : WriteEntries(*j, 1, 20)) EXPECT_TRUE(r.ok());
}

TEST(JournalTest, RegistryIsAPlainKeyValueFamily) {
  TempDir dir;
  auto j = OpenOrDie(Options(dir));
  ASSERT_TRUE(j->PutRegistry("model/aml/3", "meta-3").ok());
  ASSERT_TRUE(j->PutRegistry("model/aml/4", "meta-4").ok());
  ASSERT_TRUE(j->PutRegistry("policy/7", "p").ok());
  auto listed = j->ListRegistry("model/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[1].second, "meta-4");
  ASSERT_TRUE(j->DeleteRegistry("model/aml/3").ok());
  EXPECT_FALSE(j->GetRegistry("model/aml/3")->has_value());
  EXPECT_EQ(**j->GetRegistry("policy/7"), "p");
}

TEST(JournalTest, RefusesToExtendAChainWhoseHeadDoesNotMatch) {
  TempDir dir;
  {
    auto j = OpenOrDie(Options(dir));
    WriteEntries(*j, 1, 5);
  }
  {
    StoreOptions so;
    so.data_dir = dir.Sub("data");
    auto store = JournalStore::Open(so);
    ASSERT_TRUE(store.ok());
    rocksdb::WriteBatch batch;
    batch.Delete((*store)->handle(Cf::kRecords), SeqKey(5));
    ASSERT_TRUE((*store)->Write(batch, true).ok());
  }
  Result<std::unique_ptr<Journal>> j = Journal::Open(Options(dir));
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace verdict::journal
