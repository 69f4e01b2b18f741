// FaultInjectingFileSystem: a RocksDB FileSystem wrapper that fails writes or syncs on demand,
// the test hook for the fail-closed path (disk full, EIO), or loses appends (a power failure).
// Owned by a shared_ptr shared with the store; the switches are safe to flip from any thread.
#pragma once

#include <rocksdb/file_system.h>

#include <atomic>
#include <memory>
#include <string>

#include "common/mutex.h"

namespace verdict::journal {

class FaultInjectingFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit FaultInjectingFileSystem(
      const std::shared_ptr<rocksdb::FileSystem>& base = rocksdb::FileSystem::Default());

  static const char* kClassName() { return "VerdictFaultInjectingFileSystem"; }
  const char* Name() const override { return kClassName(); }

  // While set, Append/PositionedAppend return an IOError ("No space left on device").
  void set_fail_writes(bool fail) { fail_writes_.store(fail); }
  // While set, Sync/Fsync/RangeSync return an IOError ("Input/output error").
  void set_fail_syncs(bool fail) { fail_syncs_.store(fail); }
  // While set, Sync/Fsync of the store's WAL files (NNNNNN.log) alone return that IOError: the
  // commit log and the tables still sync.
  void set_fail_wal_syncs(bool fail) { fail_wal_syncs_.store(fail); }
  bool fail_wal_syncs() const { return fail_wal_syncs_.load(); }
  // While set, Sync/Fsync of the store's WAL files wait (then fail if syncs fail by then): a
  // sync that takes as long as the test wants. blocked_wal_syncs() counts those waiting now.
  void set_block_wal_syncs(bool block) EXCLUDES(block_mu_);
  int blocked_wal_syncs() EXCLUDES(block_mu_);
  void WaitWhileWalSyncsBlocked() EXCLUDES(block_mu_);
  // While set, appends to files written front to back (the store's WAL, tables, manifest) are
  // held in memory until the file's next Sync or Fsync, and lost if it is closed first: what a
  // power failure does to writes never synced, for tests of what the commit log must restore.
  // Writes at an offset (the commit log) go on.
  void set_lose_unsynced_appends(bool lose) { lose_unsynced_appends_.store(lose); }
  bool lose_unsynced_appends() const { return lose_unsynced_appends_.load(); }
  bool fail_writes() const { return fail_writes_.load(); }
  bool fail_syncs() const { return fail_syncs_.load(); }
  uint64_t injected_failures() const { return injected_.load(); }
  void CountInjected() { injected_.fetch_add(1); }

  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomRWFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& opts,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;

 private:
  std::atomic<bool> fail_writes_{false};
  std::atomic<bool> fail_syncs_{false};
  std::atomic<bool> fail_wal_syncs_{false};
  Mutex block_mu_;
  CondVar unblocked_cv_;
  bool block_wal_syncs_ GUARDED_BY(block_mu_) = false;
  int blocked_wal_syncs_ GUARDED_BY(block_mu_) = 0;
  std::atomic<bool> lose_unsynced_appends_{false};
  std::atomic<uint64_t> injected_{0};
};

}  // namespace verdict::journal
