// RocksJournalBackend: the JournalBackend on the RocksDB store (JournalStore,
// docs/journal_format.md §6). A group is one WriteBatch, made durable by a sync of the store's WAL
// or, with a commit log (JournalOptions::commit_log_bytes), by a synced frame in that log while the
// WAL is synced in the background after each of the log's passes. Owned by the Journal; owns the
// store, the commit log and the WAL sync thread. Reads and the registry are thread-safe;
// CommitGroup is called by one thread at a time (JournalBackend's contract), which owns the commit
// log and the free-space check state.
#pragma once

#include <rocksdb/write_batch.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/metrics.h"
#include "journal/background_sync.h"
#include "journal/commit_log.h"
#include "journal/journal.h"
#include "journal/journal_backend.h"
#include "journal/store.h"

namespace verdict::journal {

class RocksJournalBackend final : public JournalBackend {
 public:
  // Opens the store under options.data_dir and makes it whole: the commit log's frames the store
  // lacks are written into it (synced), then the log is opened for writing, or removed when this
  // run has none.
  static Result<std::unique_ptr<RocksJournalBackend>> Open(const JournalOptions& options);
  ~RocksJournalBackend() override;
  RocksJournalBackend(const RocksJournalBackend&) = delete;
  RocksJournalBackend& operator=(const RocksJournalBackend&) = delete;

  // Whether the commit log is written with O_DIRECT (false without a commit log).
  bool commit_log_direct_io() const { return commit_log_ && commit_log_->direct_io(); }

  std::string DamageFoundAtOpen() const override { return damage_found_at_open_; }
  Status VerifyAtRest(uint64_t through_seq, const PublicKey& trusted_key,
                      const PayloadCipher* cipher, const std::atomic<bool>& cancel) const override;

  std::unique_ptr<BackendGroup> NewGroup() override;
  Status CommitGroup(BackendGroup& group, uint64_t first_seq, uint64_t last_seq) override;

  Result<std::optional<JournalHead>> ReadHead() const override;
  Status LoadDataKeys(PayloadCipher& cipher, uint32_t* max_id) const override;
  Status PutDataKey(uint32_t id, std::string_view wrapped) override;

  Result<std::optional<std::string>> ReadEntry(uint64_t seq) const override;
  Status ScanEntries(
      uint64_t first_seq,
      const std::function<Result<bool>(uint64_t seq, std::string_view entry)>& fn) const override;
  Result<std::optional<uint64_t>> FindByDecisionId(const Uuid& decision_id) const override;
  Result<std::optional<uint64_t>> FindByTransaction(std::string_view txn_key) const override;
  Status ScanIndex(std::string_view tenant, std::string_view account, uint64_t before_seq,
                   const std::function<Result<bool>(uint64_t seq)>& fn) const override;
  Result<std::optional<Checkpoint>> LatestCheckpoint() const override;

  Result<std::optional<std::string>> GetState(std::string_view key) const override;
  Status ForEachState(
      const std::function<Status(std::string_view key, std::string_view value)>& fn) const override;

  Status PutRegistry(std::string_view key, std::string_view value, bool sync) override;
  Status DeleteRegistry(std::string_view key) override;
  Result<std::optional<std::string>> GetRegistry(std::string_view key) const override;
  Result<std::vector<std::pair<std::string, std::string>>> ListRegistry(
      std::string_view prefix) const override;

 private:
  explicit RocksJournalBackend(const JournalOptions& options);
  // Null unless options_.background_idle_us > 0 and the process may raise threads again.
  std::shared_ptr<BackgroundPriority> MakeBackgroundPriority();
  // On open: writes the commit log's frames the store lacks into it (synced), then opens the
  // log for writing, or removes it when this run has none.
  Status ReplayCommitLog();
  // The frames the store lacks written into it; *replayed_through: the store's last record after.
  Status ReplayFrames(std::vector<CommitLogFrame>& frames, uint64_t* replayed_through);
  // Opens the commit log for writing, or removes it when this run has none.
  Status OpenCommitLog();
  // Writes a group's batch to the store and makes it durable as options_ ask: by the store's
  // WAL sync, or by a commit log frame. `first_seq` > `last_seq` for a group without records.
  Status WriteGroup(rocksdb::WriteBatch& batch, uint64_t first_seq, uint64_t last_seq);
  // Ok, or kUnavailable when free space is below options_.min_free_bytes. `batch_bytes`: what
  // the group about to be written adds.
  Status CheckFreeSpace(size_t batch_bytes);

  const JournalOptions options_;
  const Clock& clock_;
  std::unique_ptr<JournalStore> store_;
  std::unique_ptr<CommitLog> commit_log_;  // null unless kSync with commit_log_bytes
  std::string damage_found_at_open_;       // set by Open only (JournalOptions::open_damaged)
  // Syncs the store's WAL over each commit log pass as it ends (WriteGroup); with commit_log_.
  // After store_, so that it is joined before the store closes.
  std::unique_ptr<BackgroundSync> wal_sync_;
  // The last record written to the store, and the last one the running WAL sync (wal_sync_)
  // makes durable; touched only by the thread committing a group (and by Open before it).
  uint64_t last_written_seq_ = 0;
  uint64_t wal_sync_through_ = 0;

  // Free-space check state, touched only by the thread committing a group (one at a time).
  int64_t space_checked_ns_ = 0;      // when statvfs last ran (0: never)
  uint64_t space_free_bytes_ = 0;     // what it found
  uint64_t written_since_check_ = 0;  // batch bytes written since

  Histogram* wal_sync_seconds_ = nullptr;
  Counter* wal_sync_waits_total_ = nullptr;
};

}  // namespace verdict::journal
