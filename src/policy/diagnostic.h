// Diagnostic: one error found while reading, checking or compiling a policy bundle, with the
// file and the 1-based line:column it concerns. Value type; thread-safe to share once built.
#pragma once

#include <string>
#include <vector>

namespace verdict {

struct SourcePos {
  int line = 1;
  int column = 1;
};

struct Diagnostic {
  std::string file;  // "demo.policy", or a list file as named after `from`
  SourcePos pos;
  std::string message;

  // "demo.policy:12:5: unknown name 'foo'; expected a feature, a constant or ..."
  std::string ToString() const;
};

// Joins diagnostics one per line (for a Status message or the CLI).
std::string JoinDiagnostics(const std::vector<Diagnostic>& diagnostics);

}  // namespace verdict
