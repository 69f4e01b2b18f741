// ListImport: a new version of one published sanctions list (`names from opensanctions ...`
// in a tenant's policy) as `verdict lists import` sends it to POST /v1/lists/import, and the
// bundle it makes: the tenant's bundle with that list's files replaced, compiled and activated
// like any other bundle (all or nothing). Value types and pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "policy/policy_bundle.h"
#include "policy/published_list.h"

namespace verdict {

struct ListImport {
  std::string tenant;  // must be the caller's: a check against a key of the wrong tenant
  std::string list;    // the list's name in the policy (`list NAME = names from ...`)
  ListFormat format = ListFormat::kOpenSanctions;
  std::string version;             // the publisher's version or date, e.g. "2026-12-07"
  std::vector<std::string> files;  // in the format's order (ofac_sdn: sdn.csv, alt.csv)
};

// {"tenant":"t","list":"sanctions","format":"ofac_sdn","version":"2026-12-07",
//  "files":["<sdn.csv text>","<alt.csv text>"]}
std::string ListImportJson(const ListImport& import);
Result<ListImport> ParseListImportJson(std::string_view body);

// `bundle` with the files of `import.list` replaced; an error when the policy declares no such
// list or declares it in another format.
Result<BundleSource> WithImportedList(const BundleSource& bundle, const ListImport& import);

// The body ParseBundleJson reads back: {"version","policy","files":{...}}.
std::string BundleJson(const BundleSource& source);

}  // namespace verdict
