#include "journal/direct_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
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
  std::unique_ptr<DirectRWFile> file(new DirectRWFile(path, fd));
  // Some file systems take the flag but refuse the writes (alignment they need is larger):
  // better found here than by the first commit, which would fail the journal closed.
  std::unique_ptr<char, decltype(&std::free)> zeros(
      static_cast<char*>(std::aligned_alloc(kDirectBlockBytes, kDirectBlockBytes)), &std::free);
  if (!zeros) return nullptr;
  std::memset(zeros.get(), 0, kDirectBlockBytes);
  if (!file->Write(0, rocksdb::Slice(zeros.get(), kDirectBlockBytes), rocksdb::IOOptions(), nullptr)
           .ok()) {
    return nullptr;
  }
  return file;
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
    if (n == 0 || !Aligned(static_cast<uint64_t>(n))) {
      return rocksdb::IOStatus::IOError("short direct write to " + path_);
    }
    done += static_cast<size_t>(n);
  }
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
