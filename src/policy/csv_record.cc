#include "policy/csv_record.h"

namespace verdict {

std::string_view TrimCsvSpace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool CsvRecordReader::Next(std::vector<std::string>& fields) {
  if (Read(fields)) {
    ++line_;
    return true;
  }
  while (pos_ < text_.size() && text_[pos_++] != '\n') {
  }
  ++line_;
  return false;
}

bool CsvRecordReader::Read(std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false;
  bool was_quoted = false;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (quoted) {
      if (c == '"') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          field += '"';
          pos_ += 2;
          continue;
        }
        quoted = false;
        ++pos_;
        continue;
      }
      if (c == '\n') ++line_;
      field += c;
      ++pos_;
      continue;
    }
    if (c == '"') {
      if (!TrimCsvSpace(field).empty()) return false;
      field.clear();
      quoted = was_quoted = true;
      ++pos_;
      continue;
    }
    if (c == ',') {
      fields.push_back(was_quoted ? field : std::string(TrimCsvSpace(field)));
      field.clear();
      was_quoted = false;
      ++pos_;
      continue;
    }
    if (c == '\n') {
      ++pos_;
      break;
    }
    if (was_quoted) {
      if (c != '\r' && c != ' ') return false;
      ++pos_;
      continue;
    }
    field += c;
    ++pos_;
  }
  if (quoted) return false;
  fields.push_back(was_quoted ? field : std::string(TrimCsvSpace(field)));
  return true;
}

}  // namespace verdict
