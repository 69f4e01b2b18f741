#include "journal/fault_fs.h"

#include <string>

namespace verdict::journal {
namespace {

rocksdb::IOStatus InjectedNoSpace(FaultInjectingFileSystem* fs) {
  fs->CountInjected();
  return rocksdb::IOStatus::NoSpace("injected: No space left on device");
}

rocksdb::IOStatus InjectedEio(FaultInjectingFileSystem* fs) {
  fs->CountInjected();
  return rocksdb::IOStatus::IOError("injected: Input/output error");
}

// RocksDB syncs a WAL file (SyncWAL, the journal's background sync) while another thread appends
// to it, because the file says it may (IsSyncThreadSafe, from the POSIX file beneath): appends
// and the held bytes' release are therefore under a mutex, in the order they come.
class FaultyFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultyFile(std::unique_ptr<rocksdb::FSWritableFile>&& target, FaultInjectingFileSystem* fs,
             const std::string& fname)
      : FSWritableFileOwnerWrapper(std::move(target)),
        fs_(fs),
        is_wal_(fname.size() > 4 && fname.compare(fname.size() - 4, 4, ".log") == 0) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_writes()) return NoSpace();
    MutexLock lock(mu_);
    if (HoldUnsynced(data)) return rocksdb::IOStatus::OK();
    return FSWritableFileOwnerWrapper::Append(data, options, dbg);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_writes()) return NoSpace();
    MutexLock lock(mu_);
    if (HoldUnsynced(data)) return rocksdb::IOStatus::OK();
    return FSWritableFileOwnerWrapper::Append(data, options, info, dbg);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_writes()) return NoSpace();
    return FSWritableFileOwnerWrapper::PositionedAppend(data, offset, options, dbg);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     const rocksdb::DataVerificationInfo& info,
                                     rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_writes()) return NoSpace();
    return FSWritableFileOwnerWrapper::PositionedAppend(data, offset, options, info, dbg);
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    if (SyncFails()) return Eio();
    if (rocksdb::IOStatus s = WriteHeld(options, dbg); !s.ok()) return s;
    return FSWritableFileOwnerWrapper::Sync(options, dbg);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    if (SyncFails()) return Eio();
    if (rocksdb::IOStatus s = WriteHeld(options, dbg); !s.ok()) return s;
    return FSWritableFileOwnerWrapper::Fsync(options, dbg);
  }
  rocksdb::IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_syncs()) return Eio();
    return FSWritableFileOwnerWrapper::RangeSync(offset, nbytes, options, dbg);
  }

 private:
  rocksdb::IOStatus NoSpace() { return InjectedNoSpace(fs_); }
  rocksdb::IOStatus Eio() { return InjectedEio(fs_); }
  bool SyncFails() const {
    if (is_wal_) fs_->WaitWhileWalSyncsBlocked();
    return fs_->fail_syncs() || (is_wal_ && fs_->fail_wal_syncs());
  }

  // Appends are held (not written) while the file system loses unsynced appends, and once
  // any are held, so that the file's bytes stay in order.
  bool HoldUnsynced(const rocksdb::Slice& data) REQUIRES(mu_) {
    if (!fs_->lose_unsynced_appends() && held_.empty()) return false;
    held_.append(data.data(), data.size());
    return true;
  }
  rocksdb::IOStatus WriteHeld(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg)
      EXCLUDES(mu_) {
    MutexLock lock(mu_);
    if (held_.empty()) return rocksdb::IOStatus::OK();
    std::string held;
    held.swap(held_);
    return FSWritableFileOwnerWrapper::Append(held, options, dbg);
  }

  FaultInjectingFileSystem* fs_;
  const bool is_wal_;  // a RocksDB WAL file (NNNNNN.log)
  Mutex mu_;
  std::string held_ GUARDED_BY(mu_);  // appended, not yet synced: lost if closed unsynced
};

// The commit log's file: written at offsets, never appended to.
class FaultyRandomRWFile : public rocksdb::FSRandomRWFileOwnerWrapper {
 public:
  FaultyRandomRWFile(std::unique_ptr<rocksdb::FSRandomRWFile>&& target,
                     FaultInjectingFileSystem* fs)
      : FSRandomRWFileOwnerWrapper(std::move(target)), fs_(fs) {}

  rocksdb::IOStatus Write(uint64_t offset, const rocksdb::Slice& data,
                          const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_writes()) return InjectedNoSpace(fs_);
    return FSRandomRWFileOwnerWrapper::Write(offset, data, options, dbg);
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_syncs()) return InjectedEio(fs_);
    return FSRandomRWFileOwnerWrapper::Sync(options, dbg);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return Sync(options, dbg);
  }

 private:
  FaultInjectingFileSystem* fs_;
};

}  // namespace

rocksdb::IOStatus FaultInjectingFileSystem::NewRandomRWFile(
    const std::string& fname, const rocksdb::FileOptions& opts,
    std::unique_ptr<rocksdb::FSRandomRWFile>* result, rocksdb::IODebugContext* dbg) {
  rocksdb::IOStatus s = target()->NewRandomRWFile(fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultyRandomRWFile>(std::move(*result), this);
  return s;
}

void FaultInjectingFileSystem::set_block_wal_syncs(bool block) {
  {
    MutexLock lock(block_mu_);
    block_wal_syncs_ = block;
  }
  unblocked_cv_.SignalAll();
}

int FaultInjectingFileSystem::blocked_wal_syncs() {
  MutexLock lock(block_mu_);
  return blocked_wal_syncs_;
}

void FaultInjectingFileSystem::WaitWhileWalSyncsBlocked() {
  MutexLock lock(block_mu_);
  ++blocked_wal_syncs_;
  while (block_wal_syncs_) unblocked_cv_.Wait(block_mu_);
  --blocked_wal_syncs_;
}

FaultInjectingFileSystem::FaultInjectingFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base)
    : FileSystemWrapper(base) {}

rocksdb::IOStatus FaultInjectingFileSystem::NewWritableFile(
    const std::string& fname, const rocksdb::FileOptions& opts,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  rocksdb::IOStatus s = target()->NewWritableFile(fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultyFile>(std::move(*result), this, fname);
  return s;
}

rocksdb::IOStatus FaultInjectingFileSystem::ReopenWritableFile(
    const std::string& fname, const rocksdb::FileOptions& opts,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  rocksdb::IOStatus s = target()->ReopenWritableFile(fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultyFile>(std::move(*result), this, fname);
  return s;
}

rocksdb::IOStatus FaultInjectingFileSystem::ReuseWritableFile(
    const std::string& fname, const std::string& old_fname, const rocksdb::FileOptions& opts,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  rocksdb::IOStatus s = target()->ReuseWritableFile(fname, old_fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultyFile>(std::move(*result), this, fname);
  return s;
}

}  // namespace verdict::journal
