#include "formats/line_source.h"

#include <zlib.h>

#include <cstring>

namespace verdict {

namespace {

void StripCr(std::string* line) {
  if (!line->empty() && line->back() == '\r') line->pop_back();
}

class GzFileLines final : public LineSource {
 public:
  GzFileLines(gzFile file, std::string path) : file_(file), path_(std::move(path)) {
    buffer_.resize(1 << 16);
  }
  ~GzFileLines() override { gzclose(file_); }

  Result<bool> Next(std::string* line) override {
    line->clear();
    while (true) {
      if (pos_ == end_) {
        if (eof_) {
          if (line->empty() && !partial_) return false;
          partial_ = false;
          ++line_number_;
          StripCr(line);
          return true;
        }
        const int n = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
        if (n < 0) {
          int code = 0;
          const char* message = gzerror(file_, &code);
          return Internal(path_ + ": read error: " + (message ? message : "unknown"));
        }
        if (n == 0) {
          eof_ = true;
          continue;
        }
        pos_ = 0;
        end_ = static_cast<size_t>(n);
      }
      const char* start = buffer_.data() + pos_;
      const void* nl = std::memchr(start, '\n', end_ - pos_);
      if (nl == nullptr) {
        line->append(start, end_ - pos_);
        partial_ = true;
        pos_ = end_;
        continue;
      }
      const size_t len = static_cast<const char*>(nl) - start;
      line->append(start, len);
      pos_ += len + 1;
      partial_ = false;
      ++line_number_;
      StripCr(line);
      return true;
    }
  }

 private:
  gzFile file_;
  std::string path_;
  std::string buffer_;
  size_t pos_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  bool partial_ = false;  // *line holds the start of an unterminated last line
};

class StringLinesImpl final : public LineSource {
 public:
  explicit StringLinesImpl(std::string data) : data_(std::move(data)) {}
  Result<bool> Next(std::string* line) override {
    if (pos_ >= data_.size()) return false;
    size_t nl = data_.find('\n', pos_);
    if (nl == std::string::npos) nl = data_.size();
    line->assign(data_, pos_, nl - pos_);
    pos_ = nl + 1;
    ++line_number_;
    StripCr(line);
    return true;
  }

 private:
  std::string data_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::unique_ptr<LineSource>> OpenFileLines(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Status(StatusCode::kNotFound, path + ": " + std::strerror(errno));
  }
  gzbuffer(file, 1 << 17);
  return std::unique_ptr<LineSource>(new GzFileLines(file, path));
}

std::unique_ptr<LineSource> StringLines(std::string data) {
  return std::make_unique<StringLinesImpl>(std::move(data));
}

}  // namespace verdict
