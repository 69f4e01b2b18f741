// verdict-load: open-loop HTTP/1.1 load generator for loopback targets (its flags and JSON
// report are the interface the load scenarios and integration tests drive).
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/json_writer.h"
#include "load/load_generator.h"
#include "load/load_report.h"
#include "load/population_input.h"

namespace {

// "http://127.0.0.1:8080/v1/decisions" -> host, port, path.
bool ParseTarget(const std::string& url, load::LoadOptions* o, std::string* error) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) {
    *error = "--target must start with http://";
    return false;
  }
  std::string rest = url.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos && slash + 1 < rest.size()) o->path = rest.substr(slash);
  size_t colon = authority.rfind(':');
  if (colon == std::string::npos) {
    *error = "--target needs a port, e.g. http://127.0.0.1:8080";
    return false;
  }
  std::string host = authority.substr(0, colon);
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  o->host = host;
  try {
    int port = std::stoi(authority.substr(colon + 1));
    if (port < 1 || port > 65535) throw std::out_of_range("port");
    o->port = static_cast<uint16_t>(port);
  } catch (const std::exception&) {
    *error = "--target has a bad port";
    return false;
  }
  return true;
}

bool ParseMix(const std::string& text, load::LoadOptions* o, std::string* error) {
  o->mix.clear();
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      *error = "--mix items are CLASS=SHARE, e.g. realtime=0.1,standard=0.9";
      return false;
    }
    try {
      o->mix[item.substr(0, eq)] = std::stod(item.substr(eq + 1));
    } catch (const std::exception&) {
      *error = "--mix share '" + item.substr(eq + 1) + "' is not a number";
      return false;
    }
  }
  return true;
}

bool WriteTimeline(const std::string& path, const std::vector<load::TimelineSample>& samples) {
  std::ofstream out(path);
  out << "intended_us,latency_us,status,class,tenant\n";
  for (const load::TimelineSample& s : samples) {
    out << s.intended_us << ',' << s.latency_us << ',' << s.status << ',' << s.klass << ','
        << s.tenant << '\n';
  }
  return static_cast<bool>(out.flush());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("verdict-load: open-loop HTTP/1.1 load generator (loopback targets only)",
               "verdict-load");
  load::LoadOptions options;
  std::string target = "http://127.0.0.1:8080";
  std::string mix;
  std::string input;
  std::string population;
  std::vector<std::string> headers;
  std::vector<std::string> tenants;
  std::vector<double> ramp;
  int64_t knee_p99_us = 2000;
  bool json = false;
  app.add_option("--target", target, "http://127.0.0.1:PORT[/path] (default path /v1/decisions)");
  app.add_option("--rate", options.rate_per_s, "Requests per second offered");
  app.add_option("--duration", options.duration_s, "Seconds of sending (per ramp step)");
  app.add_option("--connections", options.connections, "Keep-alive connections");
  app.add_option("--max-connections", options.max_connections,
                 "Open more connections, up to this many in all, while requests wait for a free "
                 "one (as a client's pool grows); 0: only --connections");
  app.add_option("--mix", mix, "Priority mix, e.g. realtime=0.1,standard=0.5,bulk=0.4");
  CLI::Option* input_option =
      app.add_option("--input", input, "File of transaction JSON objects, one per line");
  app.add_option("--population", population,
                 "Send a simulated population's transactions instead of uniform random ones: "
                 "'demo', the one the demo model was trained on (each round a month later)")
      ->excludes(input_option);
  app.add_option("--header", headers, "Extra request header 'Name: value' (repeatable)");
  app.add_option("--tenant", tenants,
                 "NAME:RATE[:KEY]: a tenant's own traffic at RATE/s, with 'Authorization: Bearer "
                 "KEY' when given (repeatable; replaces --rate; results also by tenant)");
  app.add_flag("--poisson", options.poisson, "Poisson arrivals instead of a constant rate");
  app.add_option("--ramp", ramp, "Rates to step through (comma-separated) to find the knee")
      ->delimiter(',');
  app.add_option("--knee-p99-us", knee_p99_us, "p99 limit that defines the knee in --ramp");
  app.add_option("--max-requests", options.max_requests, "Upper bound on requests per step");
  app.add_option("--drain", options.drain_s, "Seconds to wait for answers after sending");
  app.add_option("--seed", options.seed, "Random seed");
  app.add_flag("--busy-poll", options.busy_poll,
               "Spin instead of sleeping between events (a whole core; no wake-up delay of "
               "the generator's own in the latencies). On a VM whose CPU quota also counts "
               "the host's work for the guest's disk syncs, the spinning core can exhaust "
               "it and pause a durable server (docs/architecture.md, \"Busy polling\")");
  app.add_flag("--honor-retry-after", options.honor_retry_after,
               "A 429 with Retry-After: SECONDS is sent again after that long on its connection, "
               "which sends nothing meanwhile (on a new one if the server closed it; at most 10 "
               "times a request); each resend counts in `retried`, the final answer as the "
               "request's");
  app.add_flag("--json", json, "Print one JSON object on stdout");
  std::string timeline;
  app.add_option(
      "--timeline", timeline,
      "CSV file of every answer: intended_us,latency_us,status,class,tenant (one step only)");
  CLI11_PARSE(app, argc, argv);

  std::string error;
  if (!ParseTarget(target, &options, &error) ||
      (!mix.empty() && !ParseMix(mix, &options, &error))) {
    std::fprintf(stderr, "verdict-load: %s\n", error.c_str());
    return 2;
  }
  for (const std::string& h : headers) {
    size_t colon = h.find(':');
    if (colon == std::string::npos) {
      std::fprintf(stderr, "verdict-load: --header '%s' is not 'Name: value'\n", h.c_str());
      return 2;
    }
    size_t value = h.find_first_not_of(' ', colon + 1);
    options.headers.emplace_back(h.substr(0, colon),
                                 value == std::string::npos ? "" : h.substr(value));
  }
  for (const std::string& t : tenants) {
    auto tenant = load::ParseTenantLoad(t);
    if (!tenant.ok()) {
      std::fprintf(stderr, "verdict-load: %s\n", tenant.status().message().c_str());
      return 2;
    }
    options.tenants.push_back(std::move(tenant).value());
  }
  if (!options.tenants.empty() && !ramp.empty()) {
    std::fprintf(stderr, "verdict-load: --ramp and --tenant do not combine\n");
    return 2;
  }
  if (!population.empty()) {
    verdict::Result<load::PopulationLines> lines = load::PopulationInput(population, options.seed);
    if (!lines.ok()) {
      std::fprintf(stderr, "verdict-load: --population: %s\n", lines.status().message().c_str());
      return 2;
    }
    options.input_lines = std::move(lines->lines);
    options.input_period_us = lines->period_us;
  }
  if (!input.empty()) {
    std::ifstream in(input);
    if (!in) {
      std::fprintf(stderr, "verdict-load: cannot read --input %s\n", input.c_str());
      return 2;
    }
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) options.input_lines.emplace_back(std::move(line));
    }
  }

  if (!timeline.empty() && !ramp.empty()) {
    std::fprintf(stderr, "verdict-load: --timeline and --ramp do not combine\n");
    return 2;
  }
  options.keep_timeline = !timeline.empty();
  // Growing pools may need more sockets than the default soft limit (1,024) allows; a socket
  // refused for it would retry forever as a connection that never opens.
  rlimit files{};
  if (options.max_connections > 0 && getrlimit(RLIMIT_NOFILE, &files) == 0 &&
      files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }

  std::vector<double> rates = ramp.empty() ? std::vector<double>{options.rate_per_s} : ramp;
  std::vector<load::LoadResult> steps;
  for (double rate : rates) {
    options.rate_per_s = rate;
    if (!options.tenants.empty()) {
      rate = 0;
      for (const auto& t : options.tenants) rate += t.rate_per_s;
    }
    std::fprintf(stderr, "verdict-load: %.0f/s for %.1f s against %s:%u%s\n", rate,
                 options.duration_s, options.host.c_str(), options.port, options.path.c_str());
    auto result = load::RunLoad(options);
    if (!result.ok()) {
      std::fprintf(stderr, "verdict-load: %s\n", result.status().message().c_str());
      return 2;
    }
    options.first_sequence += result->overall.sent;
    if (!json) std::fputs(load::ResultToText(*result).c_str(), stdout);
    if (!timeline.empty() && !WriteTimeline(timeline, result->timeline)) {
      std::fprintf(stderr, "verdict-load: cannot write --timeline %s\n", timeline.c_str());
      return 2;
    }
    steps.push_back(std::move(result).value());
  }
  if (json) {
    if (ramp.empty()) {
      std::puts(load::ResultToJson(steps[0]).c_str());
    } else {
      std::string out = "{\"steps\":[";
      for (size_t i = 0; i < steps.size(); ++i) {
        out += (i ? "," : "") + load::ResultToJson(steps[i]);
      }
      out += "],\"knee_per_s\":";
      verdict::JsonWriter(out).Double(load::KneeRate(steps, knee_p99_us));
      out += "}";
      std::puts(out.c_str());
    }
  } else if (!ramp.empty()) {
    std::printf("knee (standard p99 <= %lld us, all within deadline): %.0f/s\n",
                static_cast<long long>(knee_p99_us), load::KneeRate(steps, knee_p99_us));
  }
  return 0;
}
