#include "cli/engine_stack.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <utility>

#include "engine/case_routes.h"
#include "engine/console_routes.h"
#include "engine/drift_routes.h"
#include "engine/http_routes.h"
#include "engine/integrity_gate.h"
#include "engine/lifecycle_routes.h"
#include "engine/list_routes.h"
#include "engine/network_routes.h"
#include "engine/report_routes.h"
#include "webhooks/webhook_routes.h"

namespace verdict {
namespace {

// The analyst console: built into BUILD/console beside BUILD/bin (docs/console.md).
Status RegisterConsole(const EngineStackFlags& flags, Router& router) {
  if (flags.no_console) return Status::Ok();
  const std::string console_dir =
      flags.console_dir.empty() ? DefaultConsoleDir() : flags.console_dir;
  if (console_dir.empty()) {
    spdlog::info("console: not built (no console/ beside the binary); /console/ is off");
    return Status::Ok();
  }
  auto files = ConsoleFiles::Load(console_dir);
  if (!files.ok()) {
    return Status(files.status().code(), "--console-dir: " + files.status().message(),
                  "--console-dir");
  }
  RegisterConsoleRoutes(*files, router);
  spdlog::info("console: {} files from {} at /console/", (*files)->size(), console_dir);
  return Status::Ok();
}

// Who the router lets in: everyone as tenant "dev" under --insecure-dev (loudly), else the
// holders of the stack's keys.
void ConfigureAuthentication(const EngineStackFlags& flags, const EngineOptions& options,
                             EngineStack& stack) {
  if (flags.insecure_dev) {
    stack.router.SetAuthenticator(&stack.dev_authenticator);
    for (int i = 0; i < 3; ++i) {
      spdlog::warn(
          "INSECURE DEV MODE (--insecure-dev): NO AUTHENTICATION; every request is tenant 'dev' "
          "with every role. Never use this outside a developer's machine.");
    }
    return;
  }
  stack.router.SetAuthenticator(stack.keys.get());
  spdlog::info("authentication: {} API keys loaded; routes open without a key: {}",
               stack.keys->size(), fmt::join(stack.router.PublicRoutes(), ", "));
  if (stack.keys->size() == 0) {
    spdlog::warn(
        "no API keys exist: create one with `verdict keys create --data-dir {} "
        "--tenant T --role admin` on the stopped engine",
        options.data_dir);
  }
}

}  // namespace

Result<std::unique_ptr<EngineStack>> BuildEngineStack(const EngineStackFlags& flags,
                                                      const EngineOptions& options,
                                                      MetricsRegistry& metrics,
                                                      journal::BackendOpener open_journal_backend) {
  auto stack = std::make_unique<EngineStack>();
  Result<std::unique_ptr<Engine>> engine =
      Engine::Create(options, metrics, SystemClock::Instance(), std::move(open_journal_backend));
  if (!engine.ok()) {
    return Status(engine.status().code(), "engine: " + engine.status().message(),
                  engine.status().field());
  }
  stack->engine = std::move(engine).value();
  Engine& e = *stack->engine;
  RegisterEngineRoutes(e, metrics, stack->router);
  RegisterLifecycleRoutes(e, stack->router);
  RegisterDriftRoutes(e, stack->router);
  VERDICT_RETURN_IF_ERROR(RegisterListRoutes(e, metrics, stack->router));
  RegisterCaseRoutes(e.cases(), e.journal(), &e.tenant_models(), stack->router);
  RegisterNetworkRoutes(e.journal(), SystemClock::Instance(), stack->router);
  stack->report_worker = std::make_unique<ReportWorker>(kMaxQueuedReports);
  RegisterReportRoutes(e.cases(), e.journal(), &e.tenant_models(), options.reports,
                       SystemClock::Instance(), *stack->report_worker, stack->router);
  VERDICT_RETURN_IF_ERROR(RegisterConsole(flags, stack->router));
  // API keys live in the journal's registry; every key change is journaled.
  stack->key_storage = std::make_unique<JournalKeyStorage>(e.journal());
  VERDICT_ASSIGN_OR_RETURN(std::vector<std::string> tenants, e.journal().AdminTenants());
  Result<std::unique_ptr<security::KeyStore>> keys = security::KeyStore::Open(
      *stack->key_storage, JournalKeyAudit(e.journal()), JournalKeyLedger(e.journal()), tenants);
  if (!keys.ok()) {
    return Status(keys.status().code(), "API keys: " + keys.status().message(),
                  keys.status().field());
  }
  stack->keys = std::move(keys).value();
  RegisterKeyRoutes(*stack->keys, SystemClock::Instance(), stack->router);
  // Webhooks are delivered from the journal on threads of their own (docs/webhooks.md).
  webhooks::DispatcherOptions hooks;
  hooks.endpoints = options.webhooks;
  Result<std::unique_ptr<webhooks::WebhookDispatcher>> dispatcher =
      webhooks::WebhookDispatcher::Create(std::move(hooks), e.journal(), SystemClock::Instance(),
                                          &metrics);
  if (!dispatcher.ok()) {
    return Status(dispatcher.status().code(), "webhooks: " + dispatcher.status().message(),
                  dispatcher.status().field());
  }
  stack->webhooks = std::move(dispatcher).value();
  webhooks::RegisterWebhookRoutes(*stack->webhooks, stack->router);
  stack->router.SetGate(IntegrityGate(e.journal(), flags.read_only_investigation));
  if (const journal::Integrity integrity = e.journal().integrity();
      integrity.state == journal::IntegrityState::kDamaged) {
    spdlog::error(
        "the journal in {} is damaged: {}. The engine answers 503 on every route but /healthz, "
        "/readyz and /metrics{}",
        options.data_dir, integrity.detail,
        flags.read_only_investigation ? ", and GET routes for investigation" : "");
  }
  ConfigureAuthentication(flags, options, *stack);
  return stack;
}

}  // namespace verdict
