#include "cli/sim_command.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/demo_traffic.h"
#include "common/json_writer.h"
#include "common/rfc3339.h"
#include "sim/simulator.h"

namespace verdict {
namespace {

struct SimFlags {
  SimOptions options;
  std::string out;
  std::string start;  // RFC 3339; empty: SimOptions' default
  bool json = false;
  bool demo_population = false;
};

int RunSim(SimFlags& flags) {
  if (flags.demo_population) flags.options = DemoPopulation();
  if (!flags.start.empty()) {
    Result<int64_t> start_us = ParseRfc3339Micros(flags.start);
    if (!start_us.ok()) {
      std::fprintf(stderr, "sim: --start: %s\n", start_us.status().message().c_str());
      return 2;
    }
    flags.options.start_us = *start_us;
  }
  const auto start = std::chrono::steady_clock::now();
  auto summary = WriteSimCsv(flags.options, flags.out, [](uint32_t done, uint32_t days) {
    std::fprintf(stderr, "\rsim: day %u/%u", done, days);
    if (done == days) std::fputc('\n', stderr);
  });
  if (!summary.ok()) {
    std::fprintf(stderr, "sim: %s\n", summary.status().message().c_str());
    return 1;
  }
  for (const std::string& warning : summary->warnings) {
    std::fprintf(stderr, "sim: warning: %s\n", warning.c_str());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (flags.json) {
    std::string out;
    JsonWriter w(out);
    w.BeginObject()
        .Key("out")
        .String(flags.out)
        .Key("accounts")
        .Uint(summary->accounts)
        .Key("days")
        .Uint(flags.options.days)
        .Key("seed")
        .Uint(flags.options.seed)
        .Key("transactions")
        .Uint(summary->transactions)
        .Key("laundering")
        .Uint(summary->laundering)
        .Key("patterns")
        .Uint(summary->patterns)
        .Key("seconds")
        .Double(seconds)
        .Key("laundering_by_typology")
        .BeginObject();
    for (const auto& [typology, n] : summary->laundering_by_typology) w.Key(typology).Uint(n);
    w.EndObject().Key("warnings").BeginArray();
    for (const std::string& warning : summary->warnings) w.String(warning);
    w.EndArray().EndObject();
    std::printf("%s\n", out.c_str());
  } else {
    std::printf(
        "wrote %zu transactions (%zu laundering in %zu patterns) for %zu accounts to %s "
        "in %.1f s\n",
        summary->transactions, summary->laundering, summary->patterns, summary->accounts,
        flags.out.c_str(), seconds);
  }
  return 0;
}

}  // namespace

void RegisterSimCommand(CLI::App& app) {
  auto flags = std::make_shared<SimFlags>();
  SimOptions& o = flags->options;
  CLI::App* cmd = app.add_subcommand("sim", "Simulate labelled transactions (docs/sim.md)");
  CLI::Option* accounts =
      cmd->add_option("--accounts", o.accounts, "Number of accounts")->capture_default_str();
  CLI::Option* days = cmd->add_option("--days", o.days, "Days of activity")->capture_default_str();
  CLI::Option* seed = cmd->add_option("--seed", o.seed, "Random seed (same seed, same output)")
                          ->capture_default_str();
  cmd->add_option("--out", flags->out, "Output CSV file")->required();
  CLI::Option* start = cmd->add_option(
      "--start", flags->start, "First day's start (RFC 3339, UTC; default 2026-01-01T00:00:00Z)");
  CLI::Option* patterns =
      cmd->add_option("--patterns-per-typology", o.patterns_per_typology,
                      "Laundering patterns of each typology (0: max(2, accounts/2500))")
          ->capture_default_str();
  CLI::Option* threshold =
      cmd->add_option("--threshold-usd", o.threshold_usd, "Reporting threshold")
          ->capture_default_str();
  CLI::Option* epsilon =
      cmd->add_option("--structuring-epsilon", o.structuring_epsilon,
                      "Structuring parts lie within this share below the threshold")
          ->capture_default_str();
  cmd->add_flag("--demo-population", flags->demo_population,
                "The population `serve --demo-traffic` continues (its first month is the demo's "
                "history, docs/import.md)")
      ->excludes(accounts)
      ->excludes(days)
      ->excludes(seed)
      ->excludes(start)
      ->excludes(patterns)
      ->excludes(threshold)
      ->excludes(epsilon);
  cmd->add_flag("--json", flags->json, "Print the totals as one JSON object on stdout");
  cmd->callback([flags] { throw CLI::RuntimeError(RunSim(*flags)); });
}

}  // namespace verdict
