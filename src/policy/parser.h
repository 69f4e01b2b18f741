// Parser for the policy language: tokens → PolicyAst. Recovers at the next declaration after
// a syntax error, so one pass reports an error per broken declaration. Thread-safe (pure).
#pragma once

#include <string_view>
#include <vector>

#include "policy/ast.h"
#include "policy/diagnostic.h"

namespace verdict {

// Lexes and parses `text` (named `file` in diagnostics). Errors are appended to `errors`;
// the AST holds every declaration that parsed.
PolicyAst ParsePolicy(std::string_view text, std::string_view file,
                      std::vector<Diagnostic>& errors);

// Expressions nest at most this deep (bounded stack in parser and evaluator).
inline constexpr int kMaxExprDepth = 48;

}  // namespace verdict
