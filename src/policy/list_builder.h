// Builds a policy list (strings, countries, accounts, names, patterns) from its declaration
// and, for `from "file"` lists, the file's text. Pure; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "policy/ast.h"
#include "policy/diagnostic.h"
#include "policy/program.h"

namespace verdict {

// `file_text` is the content of `decl.file` (ignored for inline lists), `second_text` that of
// `decl.second_file` (OFAC's alt.csv). Errors go to `errors` with the list file's name and
// line, or the policy file's position for inline entries. A names list from a published file
// holds one watchlist entry per name: each target's primary name and each of its aliases.
CompiledList BuildList(const ListDecl& decl, std::string_view file_text,
                       std::string_view second_text, std::string_view policy_file,
                       std::vector<Diagnostic>& errors);

}  // namespace verdict
