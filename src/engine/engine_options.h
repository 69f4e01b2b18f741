// EngineOptions: every setting of a running engine, typed, with documented defaults (the
// same defaults are written out in config/verdict.toml). Loaded from TOML and validated at
// start-up; value type, read-only once the engine starts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "api/http_server.h"
#include "common/result.h"
#include "journal/envelope.h"
#include "lifecycle/rollout_controller.h"
#include "monitor/drift_options.h"
#include "policy/fixed_rules.h"
#include "reports/report_options.h"
#include "sched/scheduler_options.h"
#include "tracing/tracing_options.h"
#include "webhooks/webhook_options.h"

namespace verdict {

struct ModelOptions {
  std::string path;  // XGBoost JSON model file; empty: decide with rules only (fallback path)
  std::string name = "aml";
  std::string version = "1";
};

struct JournalSettings {
  bool sync = true;  // durability = "sync": acknowledge only after fsync (I1); "async": benchmarks
  uint64_t checkpoint_every_records = 100'000;
  int64_t checkpoint_interval_ms = 10'000;
  std::string kek_file;  // non-empty: encrypt record payloads at rest with this key file
  // The cipher of new encrypted records: "aes-256-gcm" or "sm4-ctr-hmac-sm3".
  journal::PayloadCipherKind cipher = journal::PayloadCipherKind::kAes256Gcm;
  uint64_t min_free_mb = 64;  // fail closed when the disk has less free space than this
  // The writer's wait for more entries at arrival rates from group_delay_above_per_s up
  // (JournalOptions::group_delay_us and group_delay_above_per_s).
  int64_t group_delay_us = 1000;
  int64_t group_delay_above_per_s = 5000;
  // An I/O thread commits the decisions of its loop turn itself when the writer is idle
  // (JournalOptions::commit_on_event_loop).
  bool commit_on_io_thread = true;
  // The commit log's size (JournalOptions::commit_log_bytes); 0: sync the store's WAL instead.
  uint64_t commit_log_mb = 64;
  // Store flushes and compactions at idle priority for this long each, then normal
  // (JournalOptions::background_idle_us); 0: normal priority throughout.
  int64_t background_idle_ms = 500;
  // Open a journal whose integrity checks fail failed closed instead of refusing to start
  // (JournalOptions::open_damaged): set by `verdict serve`, so that /readyz can say why.
  bool open_damaged = false;
};

// [screening]: continuous screening (docs/policy.md): a new version of a `names` list
// re-screens the parties of the tenant's decisions of the last rescreen_days days.
struct ScreeningSettings {
  int64_t rescreen_days = 30;        // 0: no re-screening
  double rescreen_min_score = 0.85;  // a party's best match in the added names, at least this
};

// [lifecycle]: staged rollout and its automatic rollback (docs/lifecycle.md).
struct LifecycleSettings {
  // stages, stage_dwell_s, max_outcome_divergence, candidate_p99_budget_us (0 here: the
  // engine's model_budget_us), min_comparisons, min_timings.
  lifecycle::RolloutOptions rollout{.candidate_p99_budget_us = 0};
  int64_t tick_ms = 1000;     // how often the rollout controller looks at the statistics
  size_t history_limit = 16;  // previous primaries kept for rollback
};

// [cluster]: run as one node of a cluster (DESIGN §9, docs/cluster.md). Absent: the single
// node with its embedded journal.
struct ClusterSettings {
  bool enabled = false;  // the table is present
  std::string node_id;   // unique among the cluster's live nodes
  std::string etcd;      // etcd's client URL, "http://HOST:PORT"
  // libpq URL of the journal's database; several hosts with target_session_attrs=read-write
  // find the primary again after a PostgreSQL fail-over.
  std::string postgres;
  uint32_t partitions = 64;  // fixed when the cluster is made
  // The node's etcd lease: a node that stops renewing loses its partitions this long after.
  int64_t lease_seconds = 5;
  // Where other nodes forward requests to this one; empty: http://<listen address>:<port>.
  std::string advertise_url;
  // A standby keeps a copy of the account states, caught up every round, so that taking over
  // reads only what changed since (cluster::WarmState); false: it reads every state then.
  bool warm_standby = true;
};

struct EngineOptions {
  HttpServerOptions server;
  // [server] realtime_listen: HOST:PORT of a second listener with its own I/O thread, for
  // realtime clients (docs/architecture.md, "Realtime listener"); empty: none. It takes every
  // other [server] setting from the main listener.
  std::string realtime_listen;
  size_t max_batch_items = 1000;
  // [server] pause_after_bulk_refusal: a connection answered 429 for bulk over capacity is not
  // read again for the Retry-After it was told (HttpResponse::pause_reading_ms), as one over its
  // tenant's rate always is.
  bool pause_after_bulk_refusal = false;
  // [server] metrics_operator_tenants: tenants whose keys (admin or auditor) read every tenant's
  // series on /metrics, for the deployment's own monitoring. Any other tenant's key reads only
  // its own tenant's series and the engine-wide ones (I7).
  std::vector<std::string> metrics_operator_tenants;
  size_t account_stripes = 1024;
  std::string data_dir = "./var";
  // [engine] heap_prefault_mb: heap touched at start-up and kept (PrefaultHeap); 0: none.
  size_t heap_prefault_mb = 0;
  // Workers, queue capacities, classes and the model's circuit breaker ([engine] workers and
  // queue_capacity, the rest under [sched]). The engine decides on the I/O thread when idle.
  SchedulerOptions sched = [] {
    SchedulerOptions defaults;
    defaults.inline_when_idle = true;
    return defaults;
  }();
  // A model stage slower than this counts as a failure for the circuit breaker.
  int64_t model_budget_us = 5'000;
  ModelOptions model;
  // A policy bundle (.policy file or folder, docs/policy.md); empty: the fixed [rules].
  std::string policy_path;
  FixedRulesOptions rules;
  JournalSettings journal;
  LifecycleSettings lifecycle;
  // [drift]: the live drift monitor, on when the model directory has a reference.json.
  monitor::DriftOptions drift;
  ClusterSettings cluster;
  // [[webhooks]]: outbound endpoints for decision, case, drift and model events
  // (docs/webhooks.md); secret_file is read while parsing.
  std::vector<webhooks::EndpointOptions> webhooks;
  ScreeningSettings screening;
  // [tracing]: W3C trace context and OTLP/HTTP span export (docs/tracing.md).
  tracing::TracingOptions tracing;
  // [reports]: the reporting entity of suspicious transaction reports, per tenant where tenants
  // differ (docs/reports.md).
  reports::ReportOptions reports;
};

// Parses TOML text. Unknown keys, wrong types and out-of-range values are errors whose field
// names the key ("server.io_threads"); `source` names the file in messages. Relative paths of
// path keys (engine.data_dir, model.path, policy.path, journal.kek_file, server.tls.*_file)
// resolve against `config_dir` when it is given, and stay as written when it is empty.
Result<EngineOptions> ParseEngineOptions(std::string_view toml_text, std::string_view source,
                                         const std::string& config_dir = "");
// Reads the file at `path`; its relative paths are relative to the file's directory.
Result<EngineOptions> LoadEngineOptions(const std::string& path);

// Splits "127.0.0.1:8080" or "[::1]:8080" into the options' address and port.
Status ParseListenAddress(std::string_view listen, HttpServerOptions* server);

}  // namespace verdict
