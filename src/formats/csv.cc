#include "formats/csv.h"

namespace verdict {

Status SplitCsvLine(std::string_view line, std::vector<std::string>* fields) {
  size_t count = 0;
  size_t i = 0;
  while (true) {
    if (fields->size() <= count) fields->emplace_back();
    std::string& field = (*fields)[count++];
    field.clear();
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) return InvalidArgument("unterminated quoted field");
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field.push_back(line[i++]);
      }
      if (i < line.size() && line[i] != ',') {
        return InvalidArgument("text after a quoted field");
      }
    } else {
      const size_t comma = line.find(',', i);
      const size_t end = comma == std::string_view::npos ? line.size() : comma;
      const std::string_view raw = line.substr(i, end - i);
      if (raw.find('"') != std::string_view::npos) {
        return InvalidArgument("quote inside an unquoted field");
      }
      field.assign(raw);
      i = end;
    }
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  fields->resize(count);
  return Status::Ok();
}

void AppendCsvField(std::string_view field, std::string* out) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(field);
    return;
  }
  out->push_back('"');
  for (char c : field) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace verdict
