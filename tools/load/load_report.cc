#include "load/load_report.h"

#include <cstdio>

#include "common/json_writer.h"

namespace load {
namespace {

void WriteClass(verdict::JsonWriter& w, const ClassStats& s, double window_s) {
  w.BeginObject();
  w.Key("sent").Uint(s.sent).Key("answered").Uint(s.answered);
  w.Key("within_deadline").Uint(s.within_deadline).Key("fallback").Uint(s.fallback);
  w.Key("retried").Uint(s.retried);
  w.Key("status").BeginObject();
  for (const auto& [code, count] : s.status) w.Key(std::to_string(code)).Uint(count);
  w.EndObject();
  w.Key("p50_us").Int(s.latency.Percentile(0.50));
  w.Key("p90_us").Int(s.latency.Percentile(0.90));
  w.Key("p99_us").Int(s.latency.Percentile(0.99));
  w.Key("p999_us").Int(s.latency.Percentile(0.999));
  w.Key("max_us").Int(s.latency.max());
  w.Key("throughput_per_s").Double(window_s > 0 ? static_cast<double>(s.answered) / window_s : 0);
  w.Key("goodput_per_s")
      .Double(window_s > 0 ? static_cast<double>(s.within_deadline) / window_s : 0);
  w.EndObject();
}

std::string ClassLine(const std::string& name, const ClassStats& s, double window_s) {
  char line[512];
  std::snprintf(line, sizeof(line),
                "%-9s sent %8llu answered %8llu in-deadline %8llu fallback %6llu  "
                "p50 %7lld us  p90 %7lld us  p99 %7lld us  p99.9 %7lld us  max %8lld us  "
                "%9.0f/s  goodput %9.0f/s\n",
                name.c_str(), static_cast<unsigned long long>(s.sent),
                static_cast<unsigned long long>(s.answered),
                static_cast<unsigned long long>(s.within_deadline),
                static_cast<unsigned long long>(s.fallback),
                static_cast<long long>(s.latency.Percentile(0.5)),
                static_cast<long long>(s.latency.Percentile(0.9)),
                static_cast<long long>(s.latency.Percentile(0.99)),
                static_cast<long long>(s.latency.Percentile(0.999)),
                static_cast<long long>(s.latency.max()),
                window_s > 0 ? static_cast<double>(s.answered) / window_s : 0.0,
                window_s > 0 ? static_cast<double>(s.within_deadline) / window_s : 0.0);
  std::string out = line;
  out += "          status:";
  for (const auto& [code, count] : s.status) {
    out += " " + std::to_string(code) + "=" + std::to_string(count);
  }
  if (s.retried > 0) out += "  retried after Retry-After: " + std::to_string(s.retried);
  return out + "\n";
}

}  // namespace

std::string ResultToJson(const LoadResult& r) {
  std::string out;
  verdict::JsonWriter w(out);
  w.BeginObject();
  w.Key("rate_per_s").Double(r.rate_per_s).Key("seconds").Double(r.window_s);
  w.Key("connections").BeginObject();
  for (const auto& [klass, count] : r.connections) w.Key(klass).Uint(count);
  w.EndObject();
  w.Key("overall");
  WriteClass(w, r.overall, r.window_s);
  w.Key("by_class").BeginObject();
  for (const auto& [name, stats] : r.by_class) {
    w.Key(name);
    WriteClass(w, stats, r.window_s);
  }
  w.EndObject();
  if (!r.by_tenant.empty()) {
    w.Key("by_tenant").BeginObject();
    for (const auto& [tenant, stats] : r.by_tenant) {
      w.Key(tenant).BeginObject();
      auto rate = r.tenant_rate_per_s.find(tenant);
      w.Key("rate_per_s").Double(rate == r.tenant_rate_per_s.end() ? 0 : rate->second);
      w.Key("overall");
      WriteClass(w, stats.overall, r.window_s);
      w.Key("by_class").BeginObject();
      for (const auto& [name, klass] : stats.by_class) {
        w.Key(name);
        WriteClass(w, klass, r.window_s);
      }
      w.EndObject().EndObject();
    }
    w.EndObject();
  }
  w.EndObject();
  return out;
}

std::string ResultToText(const LoadResult& r) {
  char head[128];
  std::snprintf(head, sizeof(head), "offered %.0f/s for %.1f s\n", r.rate_per_s, r.window_s);
  std::string out = head;
  out += ClassLine("overall", r.overall, r.window_s);
  for (const auto& [name, stats] : r.by_class) out += ClassLine(name, stats, r.window_s);
  for (const auto& [tenant, stats] : r.by_tenant) {
    auto rate = r.tenant_rate_per_s.find(tenant);
    std::snprintf(head, sizeof(head), "tenant %s (offered %.0f/s)\n", tenant.c_str(),
                  rate == r.tenant_rate_per_s.end() ? 0.0 : rate->second);
    out += head;
    out += ClassLine("overall", stats.overall, r.window_s);
    for (const auto& [name, klass] : stats.by_class) out += ClassLine(name, klass, r.window_s);
  }
  return out;
}

double KneeRate(const std::vector<LoadResult>& steps, int64_t p99_limit_us) {
  double knee = 0;
  for (const LoadResult& step : steps) {
    auto it = step.by_class.find("standard");
    const ClassStats& s = it != step.by_class.end() ? it->second : step.overall;
    if (s.sent > 0 && s.within_deadline == s.sent && s.latency.Percentile(0.99) <= p99_limit_us) {
      knee = std::max(knee, step.rate_per_s);
    }
  }
  return knee;
}

}  // namespace load
