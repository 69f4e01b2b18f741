#include "policy/list_file.h"

#include <algorithm>

#include "policy/csv_record.h"

namespace verdict {

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
  CsvRecordReader reader(text);
  std::vector<std::string> fields;
  const int header_line = reader.line();
  if (!reader.Next(fields)) {
    fail(header_line, "bad quoting in the header; expected id,name[,...]");
    return records;
  }
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
  while (!reader.done()) {
    const int record_line = reader.line();
    if (!reader.Next(fields)) {
      fail(record_line, "bad quoting; expected fields like \"Smith, John\" with \"\" for a quote");
      continue;
    }
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
    row = TrimCsvSpace(row);
    if (row.empty() || row.front() == '#') continue;
    entries.push_back({std::string(row), line});
  }
  return entries;
}

}  // namespace verdict
