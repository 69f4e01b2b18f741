// PgJournalBackend: the journal's storage seam (journal::JournalBackend) in a cluster's
// PostgreSQL (DESIGN §9). One chain of the cluster journal: its stored entries, indexes,
// account state, checkpoints, data keys and registry, every table keyed by the chain's number.
// The chain's fence row is PgPartitionLog's (verdict_partitions, partition = chain): a writer
// claims it at its epoch on open, and every group is one transaction that locks the row, checks
// the epoch is still the writer's, copies the group in and moves the head (the whole JournalHead,
// with its Merkle frontier), so a node that lost the chain gets nothing committed (I8).
// Owned by the Journal (or a reader such as `verdict audit verify --postgres`). Thread-safe:
// commits and registry writes share one connection, reads another, each behind its own mutex; a
// broken connection is replaced on the next call, through the URL's hosts.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/pg_connection.h"
#include "cluster/txn_key_set.h"
#include "common/mutex.h"
#include "common/result.h"
#include "journal/journal_backend.h"

namespace verdict::cluster {

class WarmState;

class PgJournalBackend final : public journal::JournalBackend {
 public:
  // Connects, creates the schema if missing and claims chain `chain`'s fence for
  // `owner` at `epoch`: kFailedPrecondition "fenced" (nothing changed) when the fence is
  // already at `epoch` or above for another owner; the same owner and epoch again is a retry.
  static Result<std::unique_ptr<PgJournalBackend>> Open(const std::string& url, uint32_t chain,
                                                        std::string_view owner, uint64_t epoch);
  // Reads only: no schema change, no claim; CommitGroup and the writes are refused.
  static Result<std::unique_ptr<PgJournalBackend>> OpenReadOnly(const std::string& url,
                                                                uint32_t chain);
  ~PgJournalBackend() override;
  PgJournalBackend(const PgJournalBackend&) = delete;
  PgJournalBackend& operator=(const PgJournalBackend&) = delete;

  uint32_t chain() const { return chain_; }
  // How long a call waits for PostgreSQL's answer before it fails with kUnavailable.
  static std::chrono::milliseconds answer_timeout();
  // Every checkpoint of the chain in tree-size order, as stored (the verifier's input).
  Result<std::vector<std::pair<uint64_t, std::string>>> ListCheckpoints() const EXCLUDES(read_mu_);

  // Recovery's ForEachState reads from `warm` (a standby's copy, caught up first) instead of
  // every row, when it is whole (WarmState::ForEachIfWhole). Set before the journal opens.
  void UseWarmState(std::shared_ptr<WarmState> warm) { warm_ = std::move(warm); }
  // The account states written by groups after record `seq`, in (seq, key) order, as
  // fn(key, value, seq).
  Status ScanStateSince(uint64_t seq,
                        const std::function<Status(std::string_view key, std::string_view value,
                                                   uint64_t seq)>& fn) const EXCLUDES(read_mu_);
  // How many account states the chain holds.
  Result<uint64_t> CountState() const EXCLUDES(read_mu_);

  std::unique_ptr<journal::BackendGroup> NewGroup() override;
  // One transaction; Ok only once COMMIT returned. kFailedPrecondition "fenced": the fence
  // moved to another epoch or owner, nothing written. kInternal: the group does not continue
  // the stored head. kAlreadyExists: a transaction key is already journaled (on any chain).
  // kUnavailable: PostgreSQL unreachable or too slow, or the outcome of the commit unknown.
  Status CommitGroup(journal::BackendGroup& group, uint64_t first_seq, uint64_t last_seq) override
      EXCLUDES(write_mu_);

  Result<std::optional<journal::JournalHead>> ReadHead() const override EXCLUDES(read_mu_);
  Status LoadDataKeys(journal::PayloadCipher& cipher, uint32_t* max_id) const override
      EXCLUDES(read_mu_);
  Status PutDataKey(uint32_t id, std::string_view wrapped) override EXCLUDES(write_mu_);

  Result<std::optional<std::string>> ReadEntry(uint64_t seq) const override EXCLUDES(read_mu_);
  Status ScanEntries(uint64_t first_seq,
                     const std::function<Result<bool>(uint64_t seq, std::string_view entry)>& fn)
      const override EXCLUDES(read_mu_);
  Result<std::optional<uint64_t>> FindByDecisionId(const Uuid& decision_id) const override
      EXCLUDES(read_mu_);
  Result<std::optional<uint64_t>> FindByTransaction(std::string_view txn_key) const override
      EXCLUDES(read_mu_);
  Status ScanIndex(std::string_view tenant, std::string_view account, uint64_t before_seq,
                   const std::function<Result<bool>(uint64_t seq)>& fn) const override
      EXCLUDES(read_mu_);
  Result<std::vector<std::string>> AdminTenants() const override EXCLUDES(read_mu_);
  Result<std::optional<journal::Checkpoint>> LatestCheckpoint() const override EXCLUDES(read_mu_);

  Result<std::optional<std::string>> GetState(std::string_view key) const override
      EXCLUDES(read_mu_);
  Status ForEachState(const std::function<Status(std::string_view key, std::string_view value)>& fn)
      const override EXCLUDES(read_mu_);

  Status PutRegistry(std::string_view key, std::string_view value, bool sync) override
      EXCLUDES(write_mu_);
  Status DeleteRegistry(std::string_view key) override EXCLUDES(write_mu_);
  Result<std::optional<std::string>> GetRegistry(std::string_view key) const override
      EXCLUDES(read_mu_);
  Result<std::vector<std::pair<std::string, std::string>>> ListRegistry(
      std::string_view prefix) const override EXCLUDES(read_mu_);

 private:
  PgJournalBackend(std::string url, uint32_t chain, std::string owner, uint64_t epoch,
                   bool read_only);
  // The connections, replaced when the last one broke; each new one gets the session settings
  // (statement timeout; the writer's temporary staging table).
  Result<PgConnection*> WriterLocked() REQUIRES(write_mu_);
  Result<PgConnection*> ReaderLocked() const REQUIRES(read_mu_);
  Status CreateSchemaAndClaim() EXCLUDES(write_mu_);
  Status Claim(PgConnection& db) REQUIRES(write_mu_);
  // `*commit_sent`: COMMIT was sent (a failure after it leaves the outcome unknown).
  // `sent_before`: an earlier attempt's COMMIT went unanswered; `*found_committed`: it had
  // committed (the head is the group's), nothing more was sent and the caller rolls back.
  Status CommitLocked(PgConnection& db, journal::BackendGroup& group, uint64_t first_seq,
                      uint64_t last_seq, bool sent_before, bool* commit_sent, bool* found_committed)
      REQUIRES(write_mu_);
  Status CheckWritable() const;
  // Reads every transaction key of the chain into known_txns_ (a writer, once it holds the
  // fence: no other writer adds keys afterwards).
  Status LoadTransactionKeys() EXCLUDES(txn_mu_, read_mu_);
  // One statement on the reader; the rows.
  Result<PgRows> Read(std::string_view sql, const std::vector<std::string>& params) const
      EXCLUDES(read_mu_);
  // One statement outside any group on the writer (registry, data keys).
  Status Write(std::string_view sql, const std::vector<std::string>& params) EXCLUDES(write_mu_);

  const std::string url_;
  const uint32_t chain_;
  const std::string chain_text_;
  const std::string owner_;
  const uint64_t epoch_;
  const bool read_only_;
  std::shared_ptr<WarmState> warm_;  // set before use, then read only

  // A writer's transaction keys (every one its chain holds), so that FindByTransaction asks
  // PostgreSQL only about a key it may hold; none for a reader (it always asks).
  mutable Mutex txn_mu_;
  std::unique_ptr<TxnKeySet> known_txns_ GUARDED_BY(txn_mu_);

  Mutex write_mu_;
  std::unique_ptr<PgConnection> writer_ GUARDED_BY(write_mu_);
  bool commit_prepared_ GUARDED_BY(write_mu_) = false;  // on writer_
  // A group's statement parameters; kept for their buffers.
  std::vector<std::string> commit_buffers_ GUARDED_BY(write_mu_);
  std::vector<std::optional<std::string_view>> commit_params_ GUARDED_BY(write_mu_);
  mutable Mutex read_mu_;
  mutable std::unique_ptr<PgConnection> reader_ GUARDED_BY(read_mu_);
};

// `url` with the connection settings that bound a wait for an unresponsive server (connect
// timeout, TCP keepalives and user timeout), unless the URL sets them itself.
std::string WithTimeouts(const std::string& url);

}  // namespace verdict::cluster
