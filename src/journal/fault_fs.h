// FaultInjectingFileSystem: a RocksDB FileSystem wrapper that fails writes or syncs on demand,
// the test hook for the fail-closed path (disk full, EIO). Owned by a shared_ptr shared with the
// store; the fail switches are atomics, safe to flip from any thread.
#pragma once

#include <rocksdb/file_system.h>

#include <atomic>
#include <memory>
#include <string>

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
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& opts,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;

 private:
  std::atomic<bool> fail_writes_{false};
  std::atomic<bool> fail_syncs_{false};
  std::atomic<uint64_t> injected_{0};
};

}  // namespace verdict::journal
