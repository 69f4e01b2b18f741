// EngineStack: one running engine with everything that serves it: the engine, its routes, its
// API keys (kept in the journal's registry) and the authenticator the routes use. `verdict
// serve` builds one for its whole life; a cluster node builds one each time it becomes the
// owner and destroys it when it stops being one. Not thread-safe to build or destroy; once
// built, its router's Dispatch is thread-safe.
#pragma once

#include <memory>
#include <string>

#include "api/authenticator.h"
#include "api/router.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "common/result.h"
#include "engine/engine.h"
#include "engine/engine_options.h"
#include "engine/key_routes.h"
#include "engine/report_worker.h"
#include "security/key_store.h"
#include "webhooks/webhook_dispatcher.h"

namespace verdict {

struct EngineStackFlags {
  bool insecure_dev = false;  // no API keys: every request is tenant "dev" with every role
  bool no_console = false;
  std::string console_dir;  // empty: the console built beside the binary
  // With a damaged journal, GET routes still answer (IntegrityGate): for investigation.
  bool read_only_investigation = false;
};

struct EngineStack {
  // Destroyed in reverse: the keys and the router go before the engine they refer to.
  std::unique_ptr<Engine> engine;
  // Produces case reports from the engine's cases and journal: stopped before the engine.
  std::unique_ptr<ReportWorker> report_worker;
  // Reads the engine's journal: stopped before the engine.
  std::unique_ptr<webhooks::WebhookDispatcher> webhooks;
  std::unique_ptr<JournalKeyStorage> key_storage;
  std::unique_ptr<security::KeyStore> keys;
  InsecureDevAuthenticator dev_authenticator;
  Router router;
};

// Creates the engine (on `open_journal_backend`'s storage when set) and registers every route;
// errors name what could not be built.
Result<std::unique_ptr<EngineStack>> BuildEngineStack(const EngineStackFlags& flags,
                                                      const EngineOptions& options,
                                                      MetricsRegistry& metrics,
                                                      journal::BackendOpener open_journal_backend);

}  // namespace verdict
