#include "policy/list_builder.h"

#include "core/currency.h"
#include "policy/list_file.h"
#include "policy/published_list.h"

namespace verdict {

namespace {

std::vector<ListTarget> ReadPublished(const ListDecl& decl, std::string_view file_text,
                                      std::string_view second_text,
                                      std::vector<Diagnostic>& errors) {
  const ListFileText file{*decl.file, file_text};
  switch (decl.format) {
    case ListFormat::kOpenSanctions:
      return ParseOpenSanctionsCsv(file, errors);
    case ListFormat::kOfacSdn:
      return ParseOfacSdn(file, {decl.second_file.value_or(""), second_text}, errors);
    case ListFormat::kUnConsolidated:
      return ParseUnConsolidatedXml(file, errors);
    case ListFormat::kIdNameCsv:
      break;
  }
  return {};
}

}  // namespace

CompiledList BuildList(const ListDecl& decl, std::string_view file_text,
                       std::string_view second_text, std::string_view policy_file,
                       std::vector<Diagnostic>& errors) {
  CompiledList list;
  list.name = decl.name;
  list.kind = decl.kind;
  const std::string where = decl.file ? *decl.file : std::string(policy_file);
  auto fail = [&](SourcePos pos, std::string message) {
    errors.push_back({where, pos, "list @" + decl.name + ": " + std::move(message)});
  };

  if (decl.kind == ListKind::kNames) {
    std::vector<Watchlist::Input> names;
    if (decl.file && decl.format != ListFormat::kIdNameCsv) {
      std::vector<ListTarget> targets = ReadPublished(decl, file_text, second_text, errors);
      for (ListTarget& t : targets) {
        for (TargetAlias& a : t.aliases) {
          names.push_back({t.id, std::move(a.name), t.name, std::move(a.kind)});
        }
        names.push_back({std::move(t.id), std::move(t.name)});
      }
      list.size = targets.size();
      list.watchlist = Watchlist::Build(names);
      return list;
    }
    if (decl.file) {
      for (NameRecord& r : ParseNamesCsv(file_text, where, errors)) {
        names.push_back({std::move(r.id), std::move(r.name)});
      }
    } else {
      for (const ListEntry& e : decl.entries) names.push_back({e.value, e.value});
    }
    list.size = names.size();
    list.watchlist = Watchlist::Build(names);
    return list;
  }

  std::vector<ListEntry> entries = decl.entries;
  if (decl.file) {
    if (file_text.size() > kMaxListFileBytes) {
      fail({1, 1}, "file is larger than 64 MiB");
      return list;
    }
    entries.clear();
    for (LineEntry& e : ParseLineList(file_text)) {
      entries.push_back({std::move(e.value), {e.line, 1}});
    }
  }
  list.size = entries.size();
  switch (decl.kind) {
    case ListKind::kCountries:
      for (const ListEntry& e : entries) {
        if (!IsCountryCode(e.value)) {
          // Inline entries were already reported by the checker.
          if (decl.file) {
            fail(e.pos, "invalid country code '" + e.value +
                            "'; expected an ISO 3166-1 alpha-2 code such as IR");
          }
          continue;
        }
        list.countries.set((e.value[0] - 'A') * 26 + (e.value[1] - 'A'));
      }
      break;
    case ListKind::kStrings:
    case ListKind::kAccounts:
      for (const ListEntry& e : entries) list.strings.insert(e.value);
      break;
    case ListKind::kPatterns: {
      std::vector<std::string> patterns;
      for (const ListEntry& e : entries) patterns.push_back(e.value);
      int bad = -1;
      auto compiled = PatternSet::Compile(patterns, &bad);
      if (!compiled.ok()) {
        SourcePos pos =
            bad >= 0 && bad < static_cast<int>(entries.size()) ? entries[bad].pos : decl.pos;
        fail(pos, compiled.status().message() + "; expected a Hyperscan (PCRE subset) pattern");
      } else {
        list.patterns = std::move(compiled).value();
      }
      break;
    }
    case ListKind::kNames:
      break;
  }
  return list;
}

}  // namespace verdict
