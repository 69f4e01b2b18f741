// The OFAC SDN CSV reader (published_list.h): sdn.csv for the entries, alt.csv for their
// alternate names.
#include <charconv>
#include <span>
#include <unordered_map>

#include "policy/csv_record.h"
#include "policy/list_file.h"
#include "policy/published_list.h"

namespace verdict {
namespace {

constexpr std::string_view kSdnColumns[] = {"ent_num", "SDN_Name",  "SDN_Type",   "Program",
                                            "Title",   "Call_Sign", "Vess_type",  "Tonnage",
                                            "GRT",     "Vess_flag", "Vess_owner", "Remarks"};
constexpr std::string_view kAltColumns[] = {"ent_num", "alt_num", "alt_type", "alt_name",
                                            "alt_remarks"};

// OFAC writes "-0-" (sometimes followed by a space) for an empty field.
std::string_view Value(const std::string& field) {
  std::string_view v = TrimCsvSpace(field);
  return v == "-0-" ? std::string_view() : v;
}

bool IsEntNum(std::string_view v) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  return !v.empty() && ec == std::errc() && end == v.data() + v.size() && n > 0;
}

std::string Lower(std::string_view v) {
  std::string out(v);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Reads the records of one headerless OFAC file; calls `row(line, fields)` for each record of
// the expected width. The file's last line may be the DOS end-of-file mark (0x1A).
template <typename Row>
void ReadOfacFile(ListFileText file, std::span<const std::string_view> columns,
                  std::vector<Diagnostic>& errors, Row&& row) {
  auto fail = [&](int line, std::string message) {
    errors.push_back({std::string(file.name), {line, 1}, std::move(message)});
  };
  if (file.text.size() > kMaxListFileBytes) {
    fail(1, "list file is larger than 64 MiB");
    return;
  }
  CsvRecordReader reader(file.text);
  std::vector<std::string> fields;
  while (!reader.done()) {
    const int line = reader.line();
    if (!reader.Next(fields)) {
      fail(line, "bad quoting; expected fields like \"SMITH, John\" with \"\" for a quote");
      continue;
    }
    if (fields.size() == 1 && (fields[0].empty() || fields[0] == "\x1a")) continue;
    if (fields.size() != columns.size()) {
      std::string expected;
      for (std::string_view c : columns) expected += (expected.empty() ? "" : ",") + std::string(c);
      fail(line, "expected " + std::to_string(columns.size()) + " fields (" + expected +
                     "), found " + std::to_string(fields.size()));
      continue;
    }
    row(line, fields, fail);
  }
}

}  // namespace

std::vector<ListTarget> ParseOfacSdn(ListFileText sdn, ListFileText alt,
                                     std::vector<Diagnostic>& errors) {
  std::vector<ListTarget> targets;
  const size_t errors_before = errors.size();
  std::unordered_map<std::string, size_t> by_ent_num;
  ReadOfacFile(sdn, kSdnColumns, errors, [&](int line, std::vector<std::string>& f, auto& fail) {
    const std::string_view ent_num = Value(f[0]);
    if (!IsEntNum(ent_num)) {
      fail(line, "field 'ent_num': '" + f[0] + "' is not a positive whole number");
      return;
    }
    const std::string_view name = Value(f[1]);
    if (name.empty()) {
      fail(line, "field 'SDN_Name' is empty; expected the listed name");
      return;
    }
    if (!by_ent_num.emplace(std::string(ent_num), targets.size()).second) {
      fail(line, "field 'ent_num': " + std::string(ent_num) + " appears twice");
      return;
    }
    ListTarget target{
        std::string(ent_num), std::string(name), {}, {}, std::string(Value(f[3])), line};
    if (!Value(f[9]).empty()) target.countries.emplace_back(Value(f[9]));  // vessel flag
    targets.push_back(std::move(target));
  });
  ReadOfacFile(alt, kAltColumns, errors, [&](int line, std::vector<std::string>& f, auto& fail) {
    const std::string_view ent_num = Value(f[0]);
    auto it = by_ent_num.find(std::string(ent_num));
    if (it == by_ent_num.end()) {
      fail(line, "field 'ent_num': '" + f[0] + "' is not an entry of " + std::string(sdn.name));
      return;
    }
    if (!IsEntNum(Value(f[1]))) {
      fail(line, "field 'alt_num': '" + f[1] + "' is not a positive whole number");
      return;
    }
    const std::string type = Lower(Value(f[2]));
    if (type != "aka" && type != "fka" && type != "nka") {
      fail(line, "field 'alt_type': '" + f[2] + "'; expected aka, fka or nka");
      return;
    }
    const std::string_view name = Value(f[3]);
    if (name.empty()) {
      fail(line, "field 'alt_name' is empty; expected the alternate name");
      return;
    }
    targets[it->second].aliases.push_back({std::string(name), type});
  });
  if (errors.size() != errors_before) targets.clear();
  return targets;
}

}  // namespace verdict
