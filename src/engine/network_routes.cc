#include "engine/network_routes.h"

#include <charconv>
#include <string>
#include <utility>

#include "api/error_response.h"
#include "common/rfc3339.h"
#include "engine/case_routes.h"

namespace verdict {
namespace {

constexpr int kDefaultDays = 30;

void WriteFlow(const cases::NetworkFlow& flow, JsonWriter& w) {
  w.BeginObject().Key("count").Uint(flow.count).Key("totals").BeginArray();
  for (const auto& [currency, total] : flow.totals) {
    w.BeginObject().Key("currency").String(currency).Key("amount").String(total).EndObject();
  }
  w.EndArray().EndObject();
}

}  // namespace

Result<int> ParseNetworkDays(std::string_view query) {
  int days = kDefaultDays;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    if (key != "days") {
      const std::string name(key.substr(0, 40));
      return InvalidArgument("unknown query parameter '" + name + "'; use days", name);
    }
    VERDICT_ASSIGN_OR_RETURN(
        std::string value,
        DecodeQueryValue(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1),
                         "days"));
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), days);
    if (ec != std::errc() || end != value.data() + value.size() || days < 1 ||
        days > cases::kMaxNetworkDays) {
      return InvalidArgument(
          "days must be an integer from 1 to " + std::to_string(cases::kMaxNetworkDays), "days");
    }
  }
  return days;
}

void WriteAccountNetworkJson(const cases::AccountNetwork& n, JsonWriter& w) {
  w.BeginObject()
      .Key("account")
      .String(n.account)
      .Key("days")
      .Int(n.days)
      .Key("since")
      .String(FormatRfc3339Micros(n.since_us))
      .Key("nodes")
      .BeginArray();
  for (const cases::NetworkNode& node : n.nodes) {
    w.BeginObject()
        .Key("account")
        .String(node.account)
        .Key("center")
        .Bool(node.center)
        .Key("flagged")
        .Bool(node.flagged > 0)
        .Key("flagged_decisions")
        .Uint(node.flagged)
        .Key("decisions")
        .Uint(node.decisions)
        .Key("in");
    WriteFlow(node.in, w);
    w.Key("out");
    WriteFlow(node.out, w);
    w.EndObject();
  }
  w.EndArray().Key("edges").BeginArray();
  for (const cases::NetworkEdge& e : n.edges) {
    w.BeginObject().Key("from").String(e.from).Key("to").String(e.to).Key("count").Uint(
        e.flow.count);
    w.Key("totals").BeginArray();
    for (const auto& [currency, total] : e.flow.totals) {
      w.BeginObject().Key("currency").String(currency).Key("amount").String(total).EndObject();
    }
    w.EndArray()
        .Key("flagged_payments")
        .Uint(e.flagged)
        .Key("in_cycle")
        .Bool(e.in_cycle)
        .EndObject();
  }
  w.EndArray().Key("cycles").BeginArray();
  for (const auto& cycle : n.cycles) {
    w.BeginArray();
    for (const std::string& a : cycle) w.String(a);
    w.EndArray();
  }
  w.EndArray().Key("truncated").Bool(n.truncated).EndObject();
}

void RegisterNetworkRoutes(const journal::Journal& journal, const Clock& clock, Router& router) {
  router.Add(
      "GET", "/v1/accounts/{account}/network",
      [&journal, &clock](HttpRequest&& request, Responder respond) {
        auto days = ParseNetworkDays(request.query);
        if (!days.ok()) return respond(ErrorResponse(days.status()));
        const std::string tenant = request.auth.tenant;
        auto read = [&journal, &tenant](std::string_view account, size_t limit,
                                        uint64_t before_seq) {
          return journal.ListByAccount(tenant, account, limit, before_seq);
        };
        auto network = cases::BuildAccountNetwork(tenant, request.PathParam("account"), *days,
                                                  clock.NowMicros(), read);
        if (!network.ok()) return respond(ErrorResponse(network.status()));
        HttpResponse response;
        JsonWriter w(response.body);
        WriteAccountNetworkJson(*network, w);
        respond(std::move(response));
      },
      RouteOptions{{}, Role::kAnalyst});
}

}  // namespace verdict
