// One HTTP connection (internal to src/api): handshake (TLS), reading requests, dispatching them
// to the router, writing responses in order, pauses, draining after an error; and the server's
// request metrics that sessions record. A session owns its socket and keeps itself alive through
// its pending operations (shared_from_this); it runs on its own strand, so it needs no lock.
// ServerMetrics is owned by the server and shared, read-mostly, by all its sessions.
#pragma once

#include <array>
#include <atomic>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "api/http_beast.h"
// After http_beast.h: it includes Asio too.
#include "api/connection_deadlines.h"
#include "api/connection_limits.h"
#include "api/http_server.h"
#include "api/router.h"
#include "common/metrics.h"
#include "common/tenant_map.h"

namespace verdict::http_internal {

// One route's request counters (by status) and duration histogram, looked up in the registry
// once: a registry lookup builds label strings and takes the registry's lock.
struct RouteSeries {
  Histogram* duration = nullptr;
  std::array<std::atomic<Counter*>, 500> by_status{};  // index: HTTP status - 100
};

struct ServerMetrics {
  MetricsRegistry* registry;
  Gauge* open_connections;
  Counter* refused_connections;          // over max_connections
  Counter* address_refused_connections;  // over max_connections_per_address
  Counter* tenant_refused_connections;   // over max_connections_per_tenant
  Counter* tls_handshake_failures;
  // Filled on a route's first request, under `routes`' write lock (which guards route_series).
  mutable TenantMap<RouteSeries*> routes;
  mutable std::deque<RouteSeries> route_series;

  void CountRequest(std::string_view route, int status, double seconds) const {
    RouteSeries& series = **routes.FindOrInsert(route, [&]() -> std::optional<RouteSeries*> {
      RouteSeries& made = route_series.emplace_back();
      made.duration = registry->GetHistogram(
          "verdict_api_request_duration_seconds",
          "Time from a request fully read to its response handed to the socket",
          LatencyBucketsSeconds(), {{"route", std::string(route)}});
      return &made;
    });
    series.duration->Observe(seconds);
    const size_t slot = static_cast<size_t>(status - 100);
    if (slot >= series.by_status.size()) return RequestCounter(route, status)->Increment();
    Counter* counter = series.by_status[slot].load(std::memory_order_acquire);
    if (counter == nullptr) {
      // Two threads may both look it up: the registry returns the same counter to both.
      counter = RequestCounter(route, status);
      series.by_status[slot].store(counter, std::memory_order_release);
    }
    counter->Increment();
  }

  Counter* RequestCounter(std::string_view route, int status) const {
    return registry->GetCounter(
        "verdict_api_requests_total", "HTTP requests by route and status",
        {{"route", std::string(route)}, {"status", std::to_string(status)}});
  }
};

// Starts serving a connection just accepted: over TLS with `tls` (not owned), in the clear
// when it is null. It holds `address_claim` (its client address's slot in `limits`) until it is
// gone. `router`, `options`, `metrics`, `deadlines` and `limits` must outlive the connection.
void StartSession(tcp::socket socket, ssl::context* tls, const Router& router,
                  const HttpServerOptions& options, const ServerMetrics& metrics,
                  ConnectionDeadlines& deadlines, ConnectionLimits& limits,
                  ConnectionLimits::Claim address_claim);

}  // namespace verdict::http_internal
