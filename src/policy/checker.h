// Checker: resolves every name in a parsed policy (features against the schema, constants,
// transaction fields, lists, functions) and checks types, so a policy that passes cannot fail
// at evaluation. Annotates the AST in place; pure otherwise; thread-safe.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "policy/ast.h"
#include "policy/diagnostic.h"

namespace verdict {

// Checks `ast` (from `file`) against the feature schema `feature_names`; appends every
// error found to `errors`. Each Expr gets its type and resolved reference.
void CheckPolicy(PolicyAst& ast, std::string_view file,
                 std::span<const std::string_view> feature_names, std::vector<Diagnostic>& errors);

// True for reason codes of the form [A-Z][A-Z0-9_]*.
bool IsReasonCode(std::string_view code);

}  // namespace verdict
