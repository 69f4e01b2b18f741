#include "cli/serve_command.h"

#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "api/http_server.h"
#include "cli/cluster_serve.h"
#include "cli/demo_traffic.h"
#include "cli/engine_stack.h"
#include "common/heap_prefault.h"
#include "common/process_metrics.h"
#include "common/rfc3339.h"
#include "engine/engine.h"
#include "engine/engine_options.h"
#include "ingest/ingest_service.h"

namespace verdict {
namespace {

struct ServeFlags {
  std::string config;
  std::string listen;
  std::string realtime_listen;
  std::string data_dir;
  std::string port_file;
  std::string realtime_port_file;
  std::string console_dir;
  bool no_console = false;
  bool list_routes = false;
  double demo_traffic = 0;  // transactions per second; 0: none
  bool insecure_dev = false;
  bool read_only_investigation = false;
};

// Written to a temporary name and renamed, so a reader never sees a partial number.
void WritePortFile(const std::string& path, uint16_t port) {
  if (path.empty()) return;
  std::string tmp = path + ".tmp";
  std::ofstream(tmp) << port << "\n";
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) spdlog::error("cannot write the port file {}: {}", path, ec.message());
}

// Blocks the stop signals in every thread (threads inherit the mask) so that sigwait in Serve
// is the one place they are received; ignores SIGPIPE. Returns the set to wait for.
sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return stop_signals;
}

// The configuration file (or the defaults) with the flags applied, and its data directory
// created (unless only the routes are to be listed); nullopt after logging why not.
std::optional<EngineOptions> ResolveOptions(const ServeFlags& flags) {
  Result<EngineOptions> loaded =
      flags.config.empty() ? ParseEngineOptions("", "defaults") : LoadEngineOptions(flags.config);
  if (!loaded.ok()) {
    spdlog::error("configuration: {}", loaded.status().message());
    return std::nullopt;
  }
  EngineOptions options = std::move(loaded).value();
  if (!flags.listen.empty()) {
    Status s = ParseListenAddress(flags.listen, &options.server);
    if (!s.ok()) {
      spdlog::error("--listen: {}", s.message());
      return std::nullopt;
    }
  }
  if (!flags.realtime_listen.empty()) options.realtime_listen = flags.realtime_listen;
  if (!flags.data_dir.empty()) options.data_dir = flags.data_dir;
  if (flags.list_routes) return options;  // touches no data directory (ListRoutes)
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    spdlog::error("cannot create data directory '{}': {}", options.data_dir, ec.message());
    return std::nullopt;
  }
  return options;
}

// The realtime listener: the same routes, one I/O thread of its own (the OS wakes it at once
// when a realtime request arrives, however busy the main listener's thread is). Sets `*out` to
// it, or leaves it null when none is configured; false after logging why it cannot be made.
bool MakeRealtimeServer(const EngineOptions& options, Router& router, MetricsRegistry& metrics,
                        std::unique_ptr<HttpServer>* out) {
  if (options.realtime_listen.empty()) return true;
  HttpServerOptions realtime_options = options.server;
  realtime_options.io_threads = 1;
  realtime_options.busy_poll_us = 0;    // woken by the OS; polling would take the core's time
  realtime_options.io_thread_nice = 0;  // the main listener's threads yield to it
  Status parsed = ParseListenAddress(options.realtime_listen, &realtime_options);
  if (!parsed.ok()) {  // only from --realtime-listen: the configuration's was checked on reading
    spdlog::error("--realtime-listen: {}", parsed.message());
    return false;
  }
  Result<std::unique_ptr<HttpServer>> made = HttpServer::Create(realtime_options, router, metrics);
  if (!made.ok()) {
    spdlog::error("realtime listener: {}", made.status().message());
    return false;
  }
  *out = std::move(made).value();
  return true;
}

// Starts the listeners (and the demo traffic, if asked for), waits for a stop signal, then
// stops them in reverse order. The engine is stopped by the caller.
void RunUntilSignal(const ServeFlags& flags, const EngineOptions& options,
                    const sigset_t& stop_signals, Engine& engine, HttpServer& server,
                    HttpServer* realtime_server) {
  server.Start();
  const uint16_t port = server.port();
  spdlog::info("verdict listening on {}:{} (data dir {})", options.server.address, port,
               options.data_dir);
  WritePortFile(flags.port_file, port);
  if (realtime_server != nullptr) {
    realtime_server->Start();
    spdlog::info("verdict realtime listener on {}", realtime_server->port());
    WritePortFile(flags.realtime_port_file, realtime_server->port());
  }

  std::unique_ptr<DemoTraffic> demo;
  if (flags.demo_traffic > 0) {
    // Under --insecure-dev every request, the console's included, is tenant "dev": the demo
    // decides there so that its queue fills. With keys, tenant "demo" (docs/console.md).
    const Caller caller{flags.insecure_dev ? "dev" : "demo", "demo-traffic"};
    Result<std::optional<int64_t>> resume = DemoResumeTime(engine.journal(), caller.tenant);
    if (!resume.ok()) {
      spdlog::error("demo traffic: not started: {}", resume.status().message());
    } else {
      demo = std::make_unique<DemoTraffic>(engine, flags.demo_traffic, caller, *resume);
      spdlog::info("demo traffic: {} simulated transactions per second, {}", flags.demo_traffic,
                   *resume ? "after " + FormatRfc3339Micros(**resume) : "from the beginning");
    }
  }

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  spdlog::info("received signal {}; stopping", signal_number);
  if (demo) {
    demo->Stop();
    spdlog::info("demo traffic: {} transactions submitted", demo->submitted());
  }
  if (realtime_server != nullptr) realtime_server->Stop();
  server.Stop();
}

// Prints every route (METHOD pattern role) of the stack `serve` would build, built on a
// scratch data directory that is removed afterwards: listing the routes must neither create
// nor open the configured one (which a running engine may hold).
int ListRoutes(const ServeFlags& flags, EngineOptions options) {
  std::error_code ec;
  // The engine's logs go to stderr: stdout carries only the routes.
  spdlog::set_default_logger(spdlog::stderr_color_mt("routes"));
  std::string scratch =
      (std::filesystem::temp_directory_path(ec) / "verdict-routes-XXXXXX").string();
  if (ec || mkdtemp(scratch.data()) == nullptr) {
    spdlog::error("cannot create a scratch directory to list the routes in");
    return 2;
  }
  options.data_dir = scratch;
  options.heap_prefault_mb = 0;
  options.cluster.enabled = false;
  int exit_code = 0;
  {
    MetricsRegistry metrics;
    const EngineStackFlags stack_flags{flags.insecure_dev, flags.no_console, flags.console_dir};
    Result<std::unique_ptr<EngineStack>> stack =
        BuildEngineStack(stack_flags, options, metrics, nullptr);
    if (!stack.ok()) {
      spdlog::error("{}", stack.status().message());
      exit_code = 2;
    } else {
      for (const std::string& route : (*stack)->router.Routes()) {
        std::printf("%s\n", route.c_str());
      }
    }
  }
  std::filesystem::remove_all(scratch, ec);
  return exit_code;
}

int Serve(const ServeFlags& flags) {
  const sigset_t stop_signals = BlockStopSignals();
  std::optional<EngineOptions> resolved = ResolveOptions(flags);
  if (!resolved) return 2;
  if (flags.list_routes) return ListRoutes(flags, *resolved);
  // A damaged journal opens failed closed, so that /readyz and every route say why.
  resolved->journal.open_damaged = true;
  const EngineOptions& options = *resolved;

  if (options.heap_prefault_mb > 0) {
    const bool kept = PrefaultHeap(options.heap_prefault_mb << 20);
    spdlog::info("heap: {} MiB prefaulted{}", options.heap_prefault_mb,
                 kept ? " and kept" : " (the allocator may return it)");
  }
  MetricsRegistry metrics;
  ProcessMetrics process_metrics(metrics, VERDICT_VERSION);
  process_metrics.RefreshWhenRendered(metrics);
  const EngineStackFlags stack_flags{flags.insecure_dev, flags.no_console, flags.console_dir,
                                     flags.read_only_investigation};
  // [[ingest]] streams (docs/streams.md): consumed while the engine serves, stopped before it.
  Result<std::vector<ingest::IngestOptions>> streams = ingest::LoadIngestOptions(flags.config);
  if (!streams.ok() || (options.cluster.enabled && !streams->empty())) {
    spdlog::error("configuration: {}", streams.ok() ? "[[ingest]] streams are not supported in "
                                                      "cluster mode (docs/streams.md)"
                                                    : streams.status().message());
    return 2;
  }
  if (options.cluster.enabled) {
    return ServeClusterNode(stack_flags, options, metrics, stop_signals,
                            [&](uint16_t port) { WritePortFile(flags.port_file, port); });
  }
  Result<std::unique_ptr<EngineStack>> stack =
      BuildEngineStack(stack_flags, options, metrics, nullptr);
  if (!stack.ok()) {
    spdlog::error("{}", stack.status().message());
    return 2;
  }
  Router& router = (*stack)->router;
  Result<std::unique_ptr<HttpServer>> server = HttpServer::Create(options.server, router, metrics);
  if (!server.ok()) {
    spdlog::error("{}", server.status().message());
    return 2;
  }
  std::unique_ptr<HttpServer> realtime_server;
  if (!MakeRealtimeServer(options, router, metrics, &realtime_server)) return 2;
  Result<std::unique_ptr<ingest::IngestService>> ingest =
      ingest::IngestService::Start(*streams, *(*stack)->engine, metrics, options.data_dir);
  if (!ingest.ok()) {
    spdlog::error("{}", ingest.status().message());
    return 2;
  }
  RunUntilSignal(flags, options, stop_signals, *(*stack)->engine, **server, realtime_server.get());
  (*ingest)->Stop();
  stack->reset();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

void RegisterServeCommand(CLI::App& app) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand("serve", "Run the decision engine and its HTTP API");
  cmd->add_option("--config", flags->config, "TOML configuration file (config/verdict.toml)");
  cmd->add_option("--listen", flags->listen,
                  "HOST:PORT to listen on; overrides server.listen (port 0: ephemeral)");
  cmd->add_option("--realtime-listen", flags->realtime_listen,
                  "HOST:PORT of the realtime listener; overrides server.realtime_listen");
  cmd->add_option("--data-dir", flags->data_dir, "State directory; overrides engine.data_dir");
  cmd->add_option("--port-file", flags->port_file,
                  "Write the bound port to this file once listening (for tests and scripts)");
  cmd->add_option("--realtime-port-file", flags->realtime_port_file,
                  "Write the realtime listener's bound port to this file once listening");
  cmd->add_option("--console-dir", flags->console_dir,
                  "Directory of the built console (default: console/ beside bin/)");
  cmd->add_option("--demo-traffic", flags->demo_traffic,
                  "Feed this many simulated transactions per second through the engine (demo)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_flag("--list-routes", flags->list_routes,
                "Print every route (METHOD pattern role) and exit without serving");
  cmd->add_flag("--no-console", flags->no_console, "Do not serve the console at /console/");
  cmd->add_flag("--insecure-dev", flags->insecure_dev,
                "No API keys: every request is tenant 'dev' with every role (development only)");
  cmd->add_flag("--read-only-investigation", flags->read_only_investigation,
                "If the journal fails its integrity checks, still answer GET routes (decisions, "
                "cases, audit reads) so that the damage can be investigated; nothing is decided "
                "or written");
  cmd->callback([flags] { throw CLI::RuntimeError(Serve(*flags)); });
}

}  // namespace verdict
