#include "policy/list_file.h"

#include <algorithm>

namespace verdict {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Splits one CSV record starting at `i` (which advances past its line end). Returns false
// on bad quoting.
bool ReadRecord(std::string_view text, size_t& i, int& line, std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false;
  bool was_quoted = false;
  while (i < text.size()) {
    char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        ++i;
        continue;
      }
      if (c == '\n') ++line;
      field += c;
      ++i;
      continue;
    }
    if (c == '"') {
      if (!Trim(field).empty()) return false;
      field.clear();
      quoted = was_quoted = true;
      ++i;
      continue;
    }
    if (c == ',') {
      fields.push_back(was_quoted ? field : std::string(Trim(field)));
      field.clear();
      was_quoted = false;
      ++i;
      continue;
    }
    if (c == '\n') {
      ++i;
      break;
    }
    if (was_quoted) {
      if (c != '\r' && c != ' ') return false;
      ++i;
      continue;
    }
    field += c;
    ++i;
  }
  if (quoted) return false;
  fields.push_back(was_quoted ? field : std::string(Trim(field)));
  return true;
}

}  // namespace

std::vector<NameRecord> ParseNamesCsv(std::string_view text, std::string_view file,
                                      std::vector<Diagnostic>& errors) {
  std::vector<NameRecord> records;
  auto fail = [&](int line, std::string message) {
    errors.push_back({std::string(file), {line, 1}, std::move(message)});
  };
  if (text.size() > kMaxListFileBytes) {
    fail(1, "list file is larger than 64 MiB");
    return records;
  }
  size_t i = 0;
  int line = 1;
  std::vector<std::string> fields;
  int header_line = line;
  if (!ReadRecord(text, i, line, fields)) {
    fail(header_line, "bad quoting in the header; expected id,name[,...]");
    return records;
  }
  ++line;
  int id_col = -1;
  int name_col = -1;
  for (size_t c = 0; c < fields.size(); ++c) {
    std::string h = fields[c];
    std::transform(h.begin(), h.end(), h.begin(), [](char ch) {
      return ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch;
    });
    if (h == "id") id_col = static_cast<int>(c);
    if (h == "name") name_col = static_cast<int>(c);
  }
  if (id_col < 0 || name_col < 0) {
    fail(header_line, "header lacks the 'id' and 'name' columns; expected id,name[,...]");
    return records;
  }
  while (i < text.size()) {
    int record_line = line;
    if (!ReadRecord(text, i, line, fields)) {
      fail(record_line, "bad quoting; expected fields like \"Smith, John\" with \"\" for a quote");
      while (i < text.size() && text[i++] != '\n') {
      }
      ++line;
      continue;
    }
    ++line;
    if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
    const size_t need = static_cast<size_t>(std::max(id_col, name_col));
    if (fields.size() <= need) {
      fail(record_line, "expected at least " + std::to_string(need + 1) + " fields, found " +
                            std::to_string(fields.size()));
      continue;
    }
    if (fields[id_col].empty() || fields[name_col].empty()) {
      fail(record_line, "empty id or name");
      continue;
    }
    records.push_back({fields[id_col], fields[name_col], record_line});
  }
  return records;
}

std::vector<LineEntry> ParseLineList(std::string_view text) {
  std::vector<LineEntry> entries;
  int line = 0;
  while (!text.empty()) {
    ++line;
    size_t end = text.find('\n');
    std::string_view row = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    row = Trim(row);
    if (row.empty() || row.front() == '#') continue;
    entries.push_back({std::string(row), line});
  }
  return entries;
}

}  // namespace verdict
