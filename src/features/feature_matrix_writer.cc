#include "features/feature_matrix_writer.h"

#include <cerrno>
#include <charconv>
#include <cstring>

#include "common/rfc3339.h"

namespace verdict {

namespace {

void AppendDouble(double v, std::string* out) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

void AppendText(std::string_view text, std::string* out) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace

std::string FeatureMatrixWriter::Header() {
  std::string h = "row,transaction_id,timestamp,label,typology,pattern_id";
  for (std::string_view name : kFeatureNames) {
    h.push_back(',');
    h.append(name);
  }
  return h;
}

Result<std::unique_ptr<FeatureMatrixWriter>> FeatureMatrixWriter::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return InvalidArgument(path + ": " + std::strerror(errno), "out");
  std::unique_ptr<FeatureMatrixWriter> w(new FeatureMatrixWriter(file, path));
  w->buffer_ = Header();
  w->buffer_.push_back('\n');
  return w;
}

FeatureMatrixWriter::~FeatureMatrixWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

Status FeatureMatrixWriter::Write(size_t row, const Transaction& txn, std::optional<bool> label,
                                  std::string_view typology, std::string_view pattern_id,
                                  const FeatureVector& features) {
  std::string& b = buffer_;
  b.append(std::to_string(row));
  b.push_back(',');
  AppendText(txn.transaction_id, &b);
  b.push_back(',');
  b.append(FormatRfc3339Micros(txn.timestamp_us));
  b.push_back(',');
  if (label.has_value()) b.push_back(*label ? '1' : '0');
  b.push_back(',');
  AppendText(typology, &b);
  b.push_back(',');
  AppendText(pattern_id, &b);
  for (double v : features) {
    b.push_back(',');
    AppendDouble(v, &b);
  }
  b.push_back('\n');
  if (b.size() >= (1 << 20)) return Flush();
  return Status::Ok();
}

Status FeatureMatrixWriter::Flush() {
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    return Internal(path_ + ": write failed");
  }
  buffer_.clear();
  return Status::Ok();
}

Status FeatureMatrixWriter::Close() {
  Status s = Flush();
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (!s.ok()) return s;
  if (rc != 0) return Internal(path_ + ": close failed");
  return Status::Ok();
}

}  // namespace verdict
