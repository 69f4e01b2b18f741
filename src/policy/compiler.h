// Compiler: turns a checked PolicyAst and its built lists into a PolicyProgram (flat code,
// per-rule ranges, constants pool). Pure; thread-safe. Run only on ASTs CheckPolicy accepted.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "policy/ast.h"
#include "policy/diagnostic.h"
#include "policy/program.h"

namespace verdict {

// `lists` are the built lists, in the order of `ast.lists`. Errors (limits: stack depth,
// screening calls) are appended to `errors`.
PolicyProgram CompilePolicy(const PolicyAst& ast, std::vector<CompiledList> lists,
                            std::span<const std::string_view> feature_names, std::string_view file,
                            std::vector<Diagnostic>& errors);

}  // namespace verdict
