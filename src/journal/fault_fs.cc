#include "journal/fault_fs.h"

namespace verdict::journal {
namespace {

class FaultyFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultyFile(std::unique_ptr<rocksdb::FSWritableFile>&& target, FaultInjectingFileSystem* fs)
      : FSWritableFileOwnerWrapper(std::move(target)), fs_(fs) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_writes()) return NoSpace();
    return FSWritableFileOwnerWrapper::Append(data, options, dbg);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_writes()) return NoSpace();
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
    if (fs_->fail_syncs()) return Eio();
    return FSWritableFileOwnerWrapper::Sync(options, dbg);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_syncs()) return Eio();
    return FSWritableFileOwnerWrapper::Fsync(options, dbg);
  }
  rocksdb::IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override {
    if (fs_->fail_syncs()) return Eio();
    return FSWritableFileOwnerWrapper::RangeSync(offset, nbytes, options, dbg);
  }

 private:
  rocksdb::IOStatus NoSpace() {
    fs_->CountInjected();
    rocksdb::IOStatus s = rocksdb::IOStatus::NoSpace("injected: No space left on device");
    return s;
  }
  rocksdb::IOStatus Eio() {
    fs_->CountInjected();
    return rocksdb::IOStatus::IOError("injected: Input/output error");
  }

  FaultInjectingFileSystem* fs_;
};

}  // namespace

FaultInjectingFileSystem::FaultInjectingFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base)
    : FileSystemWrapper(base) {}

rocksdb::IOStatus FaultInjectingFileSystem::NewWritableFile(
    const std::string& fname, const rocksdb::FileOptions& opts,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  rocksdb::IOStatus s = target()->NewWritableFile(fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultyFile>(std::move(*result), this);
  return s;
}

rocksdb::IOStatus FaultInjectingFileSystem::ReopenWritableFile(
    const std::string& fname, const rocksdb::FileOptions& opts,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  rocksdb::IOStatus s = target()->ReopenWritableFile(fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultyFile>(std::move(*result), this);
  return s;
}

rocksdb::IOStatus FaultInjectingFileSystem::ReuseWritableFile(
    const std::string& fname, const std::string& old_fname, const rocksdb::FileOptions& opts,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  rocksdb::IOStatus s = target()->ReuseWritableFile(fname, old_fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultyFile>(std::move(*result), this);
  return s;
}

}  // namespace verdict::journal
