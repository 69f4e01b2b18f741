// EndpointOptions: one `[[webhooks]]` table of the configuration (docs/webhooks.md): an outbound
// endpoint, the events it receives, its signing secret and the tenant whose events it gets
// (webhook_config.h reads them). Value type; the secret is never logged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace verdict::webhooks {

// The events an endpoint can ask for.
inline constexpr std::string_view kDecisionFlagged = "decision.flagged";  // review or block
inline constexpr std::string_view kCaseOpened = "case.opened";
inline constexpr std::string_view kCaseDisposed = "case.disposed";
inline constexpr std::string_view kDriftAlert = "drift.alert";
inline constexpr std::string_view kModelRolledBack = "model.rolled_back";
inline constexpr std::string_view kEventNames[] = {kDecisionFlagged, kCaseOpened, kCaseDisposed,
                                                   kDriftAlert, kModelRolledBack};

struct EndpointOptions {
  std::string url;  // http://host:port/path or https://host[:port]/path
  // https: PEM certificates the server's must chain to; "": the system's trusted store.
  std::string ca_file;
  std::vector<std::string> events;  // names from kEventNames, at least one
  std::string secret;               // from `secret` or the file `secret_file`; never logged
  std::string tenant;               // empty: the events of every tenant
  // Every delivery attempt (connect, send, answer) ends within this.
  int64_t timeout_ms = 5000;
  // After a failed attempt the next waits retry_initial_ms, doubling each failure up to
  // retry_max_ms.
  int64_t retry_initial_ms = 1000;
  int64_t retry_max_ms = 5 * 60 * 1000;

  bool Wants(std::string_view event) const;
};

}  // namespace verdict::webhooks
