#include "cli/serve_command.h"

#include <fmt/ranges.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "api/http_server.h"
#include "cli/demo_traffic.h"
#include "common/heap_prefault.h"
#include "engine/case_routes.h"
#include "engine/console_routes.h"
#include "engine/drift_routes.h"
#include "engine/engine.h"
#include "engine/engine_options.h"
#include "engine/http_routes.h"
#include "engine/key_routes.h"
#include "engine/lifecycle_routes.h"

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
// created; nullopt after logging why not.
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
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    spdlog::error("cannot create data directory '{}': {}", options.data_dir, ec.message());
    return std::nullopt;
  }
  return options;
}

// The analyst console: built into BUILD/console beside BUILD/bin (docs/console.md). False after
// logging a console directory that cannot be read.
bool RegisterConsole(const ServeFlags& flags, Router& router) {
  if (flags.no_console) return true;
  const std::string console_dir =
      flags.console_dir.empty() ? DefaultConsoleDir() : flags.console_dir;
  if (console_dir.empty()) {
    spdlog::info("console: not built (no console/ beside the binary); /console/ is off");
    return true;
  }
  auto files = ConsoleFiles::Load(console_dir);
  if (!files.ok()) {
    spdlog::error("--console-dir: {}", files.status().message());
    return false;
  }
  RegisterConsoleRoutes(*files, router);
  spdlog::info("console: {} files from {} at /console/", (*files)->size(), console_dir);
  return true;
}

// Who the router lets in: everyone as tenant "dev" under --insecure-dev (loudly), else the
// holders of `keys`.
void ConfigureAuthentication(const ServeFlags& flags, const EngineOptions& options,
                             security::KeyStore& keys, InsecureDevAuthenticator& dev_authenticator,
                             Router& router) {
  if (flags.insecure_dev) {
    router.SetAuthenticator(&dev_authenticator);
    for (int i = 0; i < 3; ++i) {
      spdlog::warn(
          "INSECURE DEV MODE (--insecure-dev): NO AUTHENTICATION; every request is tenant 'dev' "
          "with every role. Never use this outside a developer's machine.");
    }
    return;
  }
  router.SetAuthenticator(&keys);
  spdlog::info("authentication: {} API keys loaded; routes open without a key: {}", keys.size(),
               fmt::join(router.PublicRoutes(), ", "));
  if (keys.size() == 0) {
    spdlog::warn(
        "no API keys exist: create one with `verdict keys create --data-dir {} "
        "--tenant T --role admin` on the stopped engine",
        options.data_dir);
  }
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
    demo = std::make_unique<DemoTraffic>(
        engine, flags.demo_traffic, Caller{flags.insecure_dev ? "dev" : "demo", "demo-traffic"});
    spdlog::info("demo traffic: {} simulated transactions per second", flags.demo_traffic);
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

int Serve(const ServeFlags& flags) {
  const sigset_t stop_signals = BlockStopSignals();
  std::optional<EngineOptions> resolved = ResolveOptions(flags);
  if (!resolved) return 2;
  const EngineOptions& options = *resolved;

  if (options.heap_prefault_mb > 0) {
    const bool kept = PrefaultHeap(options.heap_prefault_mb << 20);
    spdlog::info("heap: {} MiB prefaulted{}", options.heap_prefault_mb,
                 kept ? " and kept" : " (the allocator may return it)");
  }
  MetricsRegistry metrics;
  Result<std::unique_ptr<Engine>> engine =
      Engine::Create(options, metrics, SystemClock::Instance());
  if (!engine.ok()) {
    spdlog::error("engine: {}", engine.status().message());
    return 2;
  }
  Router router;
  RegisterEngineRoutes(**engine, metrics, router);
  RegisterLifecycleRoutes(**engine, router);
  RegisterDriftRoutes(**engine, router);
  RegisterCaseRoutes((*engine)->cases(), (*engine)->journal(), &(*engine)->tenant_models(), router);
  if (!RegisterConsole(flags, router)) return 2;
  // API keys live in the journal's registry; every key change is journaled.
  JournalKeyStorage key_storage((*engine)->journal());
  Result<std::unique_ptr<security::KeyStore>> keys =
      security::KeyStore::Open(key_storage, JournalKeyAudit((*engine)->journal()));
  if (!keys.ok()) {
    spdlog::error("API keys: {}", keys.status().message());
    return 2;
  }
  RegisterKeyRoutes(**keys, SystemClock::Instance(), router);
  InsecureDevAuthenticator dev_authenticator;
  ConfigureAuthentication(flags, options, **keys, dev_authenticator, router);
  if (flags.list_routes) {
    for (const std::string& route : router.Routes()) std::printf("%s\n", route.c_str());
    return 0;
  }
  Result<std::unique_ptr<HttpServer>> server = HttpServer::Create(options.server, router, metrics);
  if (!server.ok()) {
    spdlog::error("{}", server.status().message());
    return 2;
  }
  std::unique_ptr<HttpServer> realtime_server;
  if (!MakeRealtimeServer(options, router, metrics, &realtime_server)) return 2;
  RunUntilSignal(flags, options, stop_signals, **engine, **server, realtime_server.get());
  engine->reset();
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
  cmd->callback([flags] { throw CLI::RuntimeError(Serve(*flags)); });
}

}  // namespace verdict
