// CsvRecordReader: splits RFC 4180 text into records one at a time (quoted fields may hold
// commas, doubled quotes and line breaks), keeping the line each record starts on, for the
// list file readers' error messages. Reads a caller-owned view; one reader per thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace verdict {

class CsvRecordReader {
 public:
  explicit CsvRecordReader(std::string_view text) : text_(text) {}

  bool done() const { return pos_ >= text_.size(); }
  // The line the next record starts on (1-based).
  int line() const { return line_; }

  // Reads the next record into `fields` (unquoted fields trimmed of spaces, tabs and '\r').
  // Returns false on bad quoting; the reader then skips to the next line.
  bool Next(std::vector<std::string>& fields);

 private:
  bool Read(std::vector<std::string>& fields);

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

// `s` without surrounding spaces, tabs and '\r'.
std::string_view TrimCsvSpace(std::string_view s);

}  // namespace verdict
