#include "journal/key_file.h"

#include <fcntl.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace verdict::journal {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path) {
  return Unavailable(what + " " + path + ": " + std::strerror(errno));
}

Status FsyncDir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open directory", dir);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return ErrnoStatus("cannot fsync directory", dir);
  return Status::Ok();
}

}  // namespace

Status WriteNewFile(const std::string& path, const std::string& contents, unsigned mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    if (errno == EEXIST) return Status(StatusCode::kAlreadyExists, path + " already exists");
    return ErrnoStatus("cannot create", path);
  }
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status s = ErrnoStatus("cannot write", path);
      ::close(fd);
      ::unlink(path.c_str());
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status s = ErrnoStatus("cannot fsync", path);
    ::close(fd);
    ::unlink(path.c_str());
    return s;
  }
  ::close(fd);
  return FsyncDir(path);
}

Result<std::string> ReadSecretFile(const std::string& path, size_t size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound("key file " + path + " does not exist");
    return ErrnoStatus("cannot open key file", path);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    Status s = ErrnoStatus("cannot stat key file", path);
    ::close(fd);
    return s;
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    return Status(StatusCode::kFailedPrecondition,
                  "key file " + path + " is accessible by group or others; chmod 600 it");
  }
  if (static_cast<size_t>(st.st_size) != size) {
    ::close(fd);
    return Status(StatusCode::kFailedPrecondition,
                  "key file " + path + " must hold exactly " + std::to_string(size) + " bytes");
  }
  std::string out(size, '\0');
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, out.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status s = ErrnoStatus("cannot read key file", path);
      ::close(fd);
      return s;
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return out;
}

Result<std::string> LoadOrCreateSecretFile(const std::string& path, size_t size) {
  Result<std::string> existing = ReadSecretFile(path, size);
  if (existing.ok() || existing.status().code() != StatusCode::kNotFound) return existing;
  std::string key(size, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), static_cast<int>(size)) != 1) {
    return Internal("CSPRNG failure creating " + path);
  }
  Status written = WriteNewFile(path, key, 0600);
  if (written.code() == StatusCode::kAlreadyExists) return ReadSecretFile(path, size);
  VERDICT_RETURN_IF_ERROR(written);
  return key;
}

}  // namespace verdict::journal
