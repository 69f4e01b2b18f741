#include "policy/diagnostic.h"

namespace verdict {

std::string Diagnostic::ToString() const {
  return file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + message;
}

std::string JoinDiagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    if (!out.empty()) out += '\n';
    out += d.ToString();
  }
  return out;
}

}  // namespace verdict
