// LineSource: the lines of a text input, from a file (plain or gzip, via zlib) or a string.
// Owns its file handle; not thread-safe. Lines come without their "\n" / "\r\n".
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict {

class LineSource {
 public:
  virtual ~LineSource() = default;
  // Next line into *line; false at the end of input. An I/O or decompression error is a
  // non-ok Result.
  virtual Result<bool> Next(std::string* line) = 0;
  // 1-based number of the line last returned.
  size_t line_number() const { return line_number_; }

 protected:
  size_t line_number_ = 0;
};

// Opens `path`; gzip-compressed files are detected by content and decompressed.
Result<std::unique_ptr<LineSource>> OpenFileLines(const std::string& path);
std::unique_ptr<LineSource> StringLines(std::string data);

}  // namespace verdict
