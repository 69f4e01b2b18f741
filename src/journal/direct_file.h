// DirectRWFile: a file opened with O_DIRECT, for the journal's commit log. Each group commit
// overwrites a few blocks and syncs them; through the page cache that is a copy, dirty-page
// bookkeeping and a writeback pass inside fdatasync, and bypassing it takes less CPU per write
// and sync (docs/PERFORMANCE.md). Writes must be
// whole aligned blocks from aligned memory (kDirectBlockBytes); the caller pads them. Sync is
// fdatasync, which still flushes the device's cache. Reads go through the file system instead.
// Owned by the CommitLog that opened it; not thread-safe: one writer, as the commit log has.
#pragma once

#include <rocksdb/file_system.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

namespace verdict::journal {

// The alignment of offsets, lengths and memory of a direct write: 4 KiB covers both 512-byte
// and 4 KiB logical sectors.
inline constexpr size_t kDirectBlockBytes = 4096;

class DirectRWFile : public rocksdb::FSRandomRWFile {
 public:
  // Null when the file system does not take O_DIRECT (an older tmpfs, some network file
  // systems), the file cannot be opened, or a direct write of its first block fails (a logical
  // block larger than ours): the caller then uses its buffered file. That write puts zeros in
  // the first block: only for a file whose frames are all in the store already.
  static std::unique_ptr<DirectRWFile> Open(const std::string& path);
  ~DirectRWFile() override;

  bool use_direct_io() const override { return true; }
  size_t GetRequiredBufferAlignment() const override { return kDirectBlockBytes; }
  rocksdb::IOStatus Write(uint64_t offset, const rocksdb::Slice& data,
                          const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Read(uint64_t, size_t, const rocksdb::IOOptions&, rocksdb::Slice*, char*,
                         rocksdb::IODebugContext*) const override {
    return rocksdb::IOStatus::NotSupported("the commit log is read through the file system");
  }
  rocksdb::IOStatus Flush(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Close(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override;

 private:
  DirectRWFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_;
};

}  // namespace verdict::journal
