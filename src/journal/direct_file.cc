#include "journal/direct_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace verdict::journal {
namespace {

rocksdb::IOStatus Errno(std::string_view what, const std::string& path) {
  return rocksdb::IOStatus::IOError(std::string(what) + " " + path + ": " + std::strerror(errno));
}

bool Aligned(uint64_t value) { return value % kDirectBlockBytes == 0; }

}  // namespace

std::unique_ptr<DirectRWFile> DirectRWFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return nullptr;
  return std::unique_ptr<DirectRWFile>(new DirectRWFile(path, fd));
}

DirectRWFile::~DirectRWFile() {
  if (fd_ >= 0) ::close(fd_);
}

rocksdb::IOStatus DirectRWFile::Write(uint64_t offset, const rocksdb::Slice& data,
                                      const rocksdb::IOOptions&, rocksdb::IODebugContext*) {
  if (!Aligned(offset) || !Aligned(data.size()) ||
      !Aligned(reinterpret_cast<uintptr_t>(data.data()))) {
    return rocksdb::IOStatus::InvalidArgument("unaligned direct write to " + path_);
  }
  for (size_t done = 0; done < data.size();) {
    const ssize_t n =
        ::pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("cannot write", path_);
    // A short direct write stops at a block boundary, so the rest stays aligned.
    done += static_cast<size_t>(n);
  }
  return rocksdb::IOStatus::OK();
}

rocksdb::IOStatus DirectRWFile::Read(uint64_t offset, size_t n, const rocksdb::IOOptions&,
                                     rocksdb::Slice* result, char* scratch,
                                     rocksdb::IODebugContext*) const {
  if (!Aligned(offset) || !Aligned(n) || !Aligned(reinterpret_cast<uintptr_t>(scratch))) {
    return rocksdb::IOStatus::InvalidArgument("unaligned direct read from " + path_);
  }
  const ssize_t got = ::pread(fd_, scratch, n, static_cast<off_t>(offset));
  if (got < 0) return Errno("cannot read", path_);
  *result = rocksdb::Slice(scratch, static_cast<size_t>(got));
  return rocksdb::IOStatus::OK();
}

rocksdb::IOStatus DirectRWFile::Sync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) {
  if (::fdatasync(fd_) != 0) return Errno("cannot sync", path_);
  return rocksdb::IOStatus::OK();
}

rocksdb::IOStatus DirectRWFile::Close(const rocksdb::IOOptions&, rocksdb::IODebugContext*) {
  const int fd = fd_;
  fd_ = -1;
  if (fd >= 0 && ::close(fd) != 0) return Errno("cannot close", path_);
  return rocksdb::IOStatus::OK();
}

}  // namespace verdict::journal
