#include "ingest/published_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace verdict::ingest {
namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

uint64_t Fnv(uint64_t hash, std::string_view bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= kFnvPrime;
  }
  return hash;
}

Status IoError(const std::string& what, const std::string& path) {
  return Status(StatusCode::kUnavailable,
                "ingest record " + path + ": " + what + ": " + std::strerror(errno));
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("write", path);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

std::string Line(const std::vector<uint64_t>& keys) {
  std::string line;
  char hex[17];
  for (uint64_t key : keys) {
    if (!line.empty()) line += ' ';
    auto [end, ec] = std::to_chars(hex, hex + 16, key, 16);
    line.append(16 - static_cast<size_t>(end - hex), '0');
    line.append(hex, end);
  }
  line += '\n';
  return line;
}

}  // namespace

uint64_t PublishedLog::DecisionKey(std::string_view transaction_id) {
  return Fnv(Fnv(kFnvOffset, "d"), transaction_id);
}

uint64_t PublishedLog::DeadLetterKey(std::string_view body) {
  return Fnv(Fnv(kFnvOffset, "x"), body);
}

Result<std::unique_ptr<PublishedLog>> PublishedLog::Open(const std::string& path, size_t keep) {
  std::unique_ptr<PublishedLog> log(new PublishedLog(path, keep));
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  "ingest record " + path + ": cannot create its directory: " + ec.message());
  }
  {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    size_t start = 0;
    // Only whole lines: a torn last one was never fsynced as a whole.
    for (size_t end = all.find('\n'); end != std::string::npos;
         start = end + 1, end = all.find('\n', start)) {
      std::vector<uint64_t> keys;
      std::string_view line(all.data() + start, end - start);
      bool good = true;
      while (!line.empty()) {
        const size_t space = std::min(line.find(' '), line.size());
        uint64_t key = 0;
        auto [p, err] = std::from_chars(line.data(), line.data() + space, key, 16);
        if (err != std::errc() || p != line.data() + space || space != 16) good = false;
        keys.push_back(key);
        line.remove_prefix(std::min(space + 1, line.size()));
      }
      if (good) log->Remember(std::move(keys));
      ++log->lines_in_file_;
    }
  }
  // Rewritten at once: drops a torn tail and what is past `keep`.
  VERDICT_RETURN_IF_ERROR(log->Compact());
  return log;
}

PublishedLog::~PublishedLog() {
  if (fd_ >= 0) ::close(fd_);
}

void PublishedLog::Remember(std::vector<uint64_t> keys) {
  for (uint64_t key : keys) ++counts_[key];
  messages_.push_back(std::move(keys));
  while (messages_.size() > keep_) {
    for (uint64_t key : messages_.front()) {
      auto it = counts_.find(key);
      if (it != counts_.end() && --it->second == 0) counts_.erase(it);
    }
    messages_.pop_front();
  }
}

void PublishedLog::Add(const std::vector<uint64_t>& keys) {
  if (keys.empty()) return;
  unsynced_ += Line(keys);
  Remember(keys);
}

Status PublishedLog::Sync() {
  if (unsynced_.empty()) return Status::Ok();
  if (lines_in_file_ >= 2 * keep_) {
    unsynced_.clear();  // the rewrite holds every message kept, these included
    return Compact();
  }
  VERDICT_RETURN_IF_ERROR(WriteAll(fd_, unsynced_, path_));
  for (char c : unsynced_) lines_in_file_ += c == '\n' ? 1 : 0;
  unsynced_.clear();
  if (::fdatasync(fd_) != 0) return IoError("fdatasync", path_);
  return Status::Ok();
}

Status PublishedLog::Compact() {
  const std::string partial = path_ + ".partial";
  int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) return IoError("open", partial);
  std::string all;
  for (const auto& keys : messages_) all += Line(keys);
  Status written = WriteAll(fd, all, partial);
  if (written.ok() && ::fsync(fd) != 0) written = IoError("fsync", partial);
  ::close(fd);
  VERDICT_RETURN_IF_ERROR(written);
  if (::rename(partial.c_str(), path_.c_str()) != 0) return IoError("rename", path_);
  const std::string dir = std::filesystem::path(path_).parent_path().string();
  if (int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) return IoError("open", path_);
  lines_in_file_ = messages_.size();
  unsynced_.clear();
  return Status::Ok();
}

}  // namespace verdict::ingest
