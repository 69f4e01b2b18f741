// The OpenSanctions "simple" CSV reader (published_list.h).
#include <map>
#include <set>

#include "policy/csv_record.h"
#include "policy/list_file.h"
#include "policy/published_list.h"

namespace verdict {
namespace {

// The columns verdict reads; the others (birth_date, addresses, ...) may be present or not.
constexpr std::string_view kRequired[] = {"id", "name", "aliases", "countries", "dataset"};

std::vector<std::string> SplitMulti(std::string_view value) {
  std::vector<std::string> out;
  while (!value.empty()) {
    const size_t end = value.find(';');
    std::string_view part = TrimCsvSpace(value.substr(0, end));
    if (!part.empty()) out.emplace_back(part);
    if (end == std::string_view::npos) break;
    value.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace

std::vector<ListTarget> ParseOpenSanctionsCsv(ListFileText file, std::vector<Diagnostic>& errors) {
  std::vector<ListTarget> targets;
  const size_t errors_before = errors.size();
  auto fail = [&](int line, std::string message) {
    errors.push_back({std::string(file.name), {line, 1}, std::move(message)});
  };
  if (file.text.size() > kMaxListFileBytes) {
    fail(1, "list file is larger than 64 MiB");
    return targets;
  }
  CsvRecordReader reader(file.text);
  std::vector<std::string> fields;
  if (!reader.Next(fields)) {
    fail(1, "bad quoting in the header; expected the targets.simple.csv header");
    return targets;
  }
  std::map<std::string, size_t, std::less<>> column;
  for (size_t c = 0; c < fields.size(); ++c) column.emplace(fields[c], c);
  for (std::string_view want : kRequired) {
    if (!column.contains(want)) {
      fail(1, "header lacks the '" + std::string(want) +
                  "' column; expected id,schema,name,aliases,...,dataset,... "
                  "(OpenSanctions targets.simple.csv)");
      return targets;
    }
  }
  const size_t id = column.find("id")->second;
  const size_t name = column.find("name")->second;
  const size_t aliases = column.find("aliases")->second;
  const size_t countries = column.find("countries")->second;
  const size_t dataset = column.find("dataset")->second;
  std::set<std::string, std::less<>> seen;
  while (!reader.done()) {
    const int line = reader.line();
    if (!reader.Next(fields)) {
      fail(line, "bad quoting; expected fields like \"Smith, John\" with \"\" for a quote");
      continue;
    }
    if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
    if (fields.size() != column.size()) {
      fail(line, "expected " + std::to_string(column.size()) + " fields as in the header, found " +
                     std::to_string(fields.size()));
      continue;
    }
    if (fields[id].empty()) {
      fail(line, "field 'id' is empty; expected the entity id");
      continue;
    }
    if (fields[name].empty()) {
      fail(line, "field 'name' is empty; expected the target's name");
      continue;
    }
    if (!seen.insert(fields[id]).second) {
      fail(line, "field 'id': '" + fields[id] + "' appears twice; expected unique ids");
      continue;
    }
    ListTarget target{fields[id],      fields[name], {}, SplitMulti(fields[countries]),
                      fields[dataset], line};
    for (std::string& alias : SplitMulti(fields[aliases])) {
      if (alias != target.name) target.aliases.push_back({std::move(alias), "alias"});
    }
    targets.push_back(std::move(target));
  }
  if (errors.size() != errors_before) targets.clear();
  return targets;
}

}  // namespace verdict
