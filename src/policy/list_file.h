// Readers for list files referenced by `list NAME = KIND from "file"`: CSV for name lists
// (header with `id` and `name` columns, RFC 4180 quoting) and one entry per line for the
// other kinds (# comments, blank lines skipped). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/diagnostic.h"

namespace verdict {

struct NameRecord {
  std::string id;
  std::string name;
  int line = 0;
};

// Parses a names CSV. Errors (missing columns, bad quoting, empty id or name) are appended
// with `file` and their line; rows with errors are skipped.
std::vector<NameRecord> ParseNamesCsv(std::string_view text, std::string_view file,
                                      std::vector<Diagnostic>& errors);

struct LineEntry {
  std::string value;  // trimmed
  int line = 0;
};

// One entry per line, surrounding spaces trimmed; blank lines and lines starting with '#'
// are skipped.
std::vector<LineEntry> ParseLineList(std::string_view text);

// List files larger than this are refused.
inline constexpr size_t kMaxListFileBytes = 64u << 20;

}  // namespace verdict
