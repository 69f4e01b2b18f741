#include "engine/integrity_gate.h"

#include <string>

#include "api/error_response.h"

namespace verdict {

Router::Gate IntegrityGate(const journal::Journal& journal, bool read_only_investigation) {
  return [&journal, read_only_investigation](
             const HttpRequest& request, std::string_view route) -> std::optional<HttpResponse> {
    // What an operator needs to see why the engine does not serve.
    if (route == "/healthz" || route == "/readyz" || route == "/metrics") return std::nullopt;
    const journal::Integrity integrity = journal.integrity();
    if (integrity.state != journal::IntegrityState::kDamaged) return std::nullopt;
    if (read_only_investigation && request.method == "GET") return std::nullopt;
    std::string message = "the journal's data directory is damaged (" + integrity.detail +
                          "): the engine does not serve it";
    message +=
        read_only_investigation
            ? "; only reads answer (--read-only-investigation)"
            : "; restore it from a backup, or start with --read-only-investigation to read it";
    return ErrorResponse(Status(StatusCode::kUnavailable, message),
                         [](JsonWriter& w) { w.Key("reason").String("journal_damaged"); });
  };
}

}  // namespace verdict
