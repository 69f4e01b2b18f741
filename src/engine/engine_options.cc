#include "engine/engine_options.h"

#include <toml++/toml.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "reports/report_config.h"
#include "tracing/otlp_endpoint.h"
#include "webhooks/webhook_config.h"

namespace verdict {
namespace {

// Reads one TOML table, remembering which keys were consumed so that the rest can be
// reported as unknown: a typo in a key must not silently leave a default in force.
class TableReader {
 public:
  // `base_dir`: the directory the configuration file is in, against which relative paths of
  // Path keys resolve; empty: they stay as written (text not read from a file).
  TableReader(const toml::table* table, std::string prefix, std::filesystem::path base_dir = {})
      : table_(table), prefix_(std::move(prefix)), base_dir_(std::move(base_dir)) {}

  std::string Name(std::string_view key) const { return prefix_ + std::string(key); }
  const std::filesystem::path& base_dir() const { return base_dir_; }
  bool Has(std::string_view key) const { return table_ != nullptr && table_->contains(key); }

  template <typename T>
  Status Integer(std::string_view key, T* out, int64_t min, int64_t max) {
    const toml::node* node = Take(key);
    if (node == nullptr) return Status::Ok();
    auto value = node->value<int64_t>();
    if (!node->is_integer() || !value) {
      return InvalidArgument(Name(key) + " must be an integer", Name(key));
    }
    if (*value < min || *value > max) {
      return InvalidArgument(
          Name(key) + " must be between " + std::to_string(min) + " and " + std::to_string(max),
          Name(key));
    }
    *out = static_cast<T>(*value);
    return Status::Ok();
  }

  Status Double(std::string_view key, double* out, double min, double max) {
    const toml::node* node = Take(key);
    if (node == nullptr) return Status::Ok();
    auto value = node->value<double>();
    if (!value) return InvalidArgument(Name(key) + " must be a number", Name(key));
    if (!(*value >= min && *value <= max)) {
      return InvalidArgument(
          Name(key) + " must be between " + std::to_string(min) + " and " + std::to_string(max),
          Name(key));
    }
    *out = *value;
    return Status::Ok();
  }

  Status Boolean(std::string_view key, bool* out) {
    const toml::node* node = Take(key);
    if (node == nullptr) return Status::Ok();
    if (!node->is_boolean())
      return InvalidArgument(Name(key) + " must be true or false", Name(key));
    *out = *node->value<bool>();
    return Status::Ok();
  }

  Status String(std::string_view key, std::string* out) {
    const toml::node* node = Take(key);
    if (node == nullptr) return Status::Ok();
    if (!node->is_string()) return InvalidArgument(Name(key) + " must be a string", Name(key));
    *out = *node->value<std::string>();
    return Status::Ok();
  }

  // A file or directory: relative to the configuration file's directory, so that the file
  // works whatever the working directory; absolute paths and "" (none) stay as written.
  Status Path(std::string_view key, std::string* out) {
    const bool present = Has(key);
    VERDICT_RETURN_IF_ERROR(String(key, out));
    if (!present || out->empty() || base_dir_.empty()) return Status::Ok();
    const std::filesystem::path written(*out);
    if (written.is_relative()) *out = (base_dir_ / written).lexically_normal().string();
    return Status::Ok();
  }

  Status StringArray(std::string_view key, std::vector<std::string>* out) {
    const toml::node* node = Take(key);
    if (node == nullptr) return Status::Ok();
    const toml::array* array = node->as_array();
    if (array == nullptr) {
      return InvalidArgument(Name(key) + " must be an array of strings", Name(key));
    }
    out->clear();
    for (const toml::node& item : *array) {
      if (!item.is_string()) {
        return InvalidArgument(Name(key) + " must be an array of strings", Name(key));
      }
      out->push_back(*item.value<std::string>());
    }
    return Status::Ok();
  }

  Status DoubleArray(std::string_view key, std::vector<double>* out) {
    const toml::node* node = Take(key);
    if (node == nullptr) return Status::Ok();
    const toml::array* array = node->as_array();
    if (array == nullptr) {
      return InvalidArgument(Name(key) + " must be an array of numbers", Name(key));
    }
    out->clear();
    for (const toml::node& item : *array) {
      auto value = item.value<double>();
      if (!value) return InvalidArgument(Name(key) + " must be an array of numbers", Name(key));
      out->push_back(*value);
    }
    return Status::Ok();
  }

  // A sub-table such as [server.tls]; null when absent. A `key` that is not a table fails.
  Result<const toml::table*> Table(std::string_view key) {
    const toml::node* node = Take(key);
    if (node == nullptr) return static_cast<const toml::table*>(nullptr);
    if (!node->is_table()) return InvalidArgument(Name(key) + " must be a table", Name(key));
    return node->as_table();
  }

  // Fails on the first key that no call asked for.
  Status RejectUnknown() const {
    if (table_ == nullptr) return Status::Ok();
    for (const auto& [key, value] : *table_) {
      if (!taken_.contains(std::string(key.str()))) {
        return InvalidArgument("unknown configuration key '" + Name(key.str()) + "'",
                               Name(key.str()));
      }
    }
    return Status::Ok();
  }

 private:
  const toml::node* Take(std::string_view key) {
    taken_.insert(std::string(key));
    return table_ == nullptr ? nullptr : table_->get(key);
  }

  const toml::table* table_;
  std::string prefix_;
  std::filesystem::path base_dir_;
  std::set<std::string> taken_;
};

// "verdict.toml: rules.review_amounts: 'XYZ' is not an ISO 4217 currency code": the message
// always names the file and the key, even when the underlying error knew neither.
Status WithSource(const Status& status, std::string_view source) {
  std::string message = std::string(source) + ": ";
  if (!status.field().empty() && status.message().find(status.field()) == std::string::npos) {
    message += status.field() + ": ";
  }
  return Status(status.code(), message + status.message(), status.field());
}

// [server.tls]: TLS and client certificates on the listening port (docs/security.md).
Status ReadServerTls(TableReader& r, TlsOptions* tls) {
  VERDICT_RETURN_IF_ERROR(r.Path("cert_file", &tls->cert_file));
  VERDICT_RETURN_IF_ERROR(r.Path("key_file", &tls->key_file));
  VERDICT_RETURN_IF_ERROR(r.Path("client_ca_file", &tls->client_ca_file));
  std::string mode = "off";
  VERDICT_RETURN_IF_ERROR(r.String("client_cert", &mode));
  if (!ParseClientCertMode(mode, &tls->client_cert)) {
    return InvalidArgument(r.Name("client_cert") + " must be \"off\", \"optional\" or \"require\"",
                           r.Name("client_cert"));
  }
  VERDICT_RETURN_IF_ERROR(r.String("min_version", &tls->min_version));
  if (tls->min_version != "1.2" && tls->min_version != "1.3") {
    return InvalidArgument(r.Name("min_version") + " must be \"1.2\" or \"1.3\"",
                           r.Name("min_version"));
  }
  VERDICT_RETURN_IF_ERROR(
      r.Integer("handshake_timeout_ms", &tls->handshake_timeout_ms, 100, 600'000));
  VERDICT_RETURN_IF_ERROR(r.RejectUnknown());
  const bool any_file =
      !tls->cert_file.empty() || !tls->key_file.empty() || !tls->client_ca_file.empty();
  if (any_file && (tls->cert_file.empty() || tls->key_file.empty())) {
    return InvalidArgument("server.tls needs both cert_file and key_file (or neither: TLS off)",
                           tls->cert_file.empty() ? r.Name("cert_file") : r.Name("key_file"));
  }
  if (tls->client_cert != TlsOptions::ClientCert::kOff) {
    if (tls->cert_file.empty()) {
      return InvalidArgument(r.Name("client_cert") + " needs TLS on (cert_file and key_file)",
                             r.Name("client_cert"));
    }
    if (tls->client_ca_file.empty()) {
      return InvalidArgument(r.Name("client_cert") + " \"" + mode + "\" needs client_ca_file",
                             r.Name("client_ca_file"));
    }
  }
  return Status::Ok();
}

Status ReadServer(TableReader& r, EngineOptions* o) {
  std::string listen;
  VERDICT_RETURN_IF_ERROR(r.String("listen", &listen));
  if (!listen.empty()) {
    Status s = ParseListenAddress(listen, &o->server);
    if (!s.ok()) return InvalidArgument(s.message(), r.Name("listen"));
  }
  VERDICT_RETURN_IF_ERROR(r.String("realtime_listen", &o->realtime_listen));
  if (!o->realtime_listen.empty()) {
    HttpServerOptions realtime;
    Status s = ParseListenAddress(o->realtime_listen, &realtime);
    if (!s.ok()) return InvalidArgument(s.message(), r.Name("realtime_listen"));
  }
  VERDICT_RETURN_IF_ERROR(r.Integer("io_threads", &o->server.io_threads, 1, 64));
  // At most half the shortest connection-deadline tick (10 ms), which also restarts a poll.
  VERDICT_RETURN_IF_ERROR(r.Integer("busy_poll_us", &o->server.busy_poll_us, 0, 5'000));
  VERDICT_RETURN_IF_ERROR(r.Integer("io_thread_nice", &o->server.io_thread_nice, 0, 19));
  if (o->server.busy_poll_us > 0 && o->server.io_threads > 1) {
    return InvalidArgument(r.Name("busy_poll_us") +
                               " needs io_threads = 1: with more I/O threads, one sleeps in "
                               "epoll_wait holding the sockets while the others would poll in vain",
                           r.Name("busy_poll_us"));
  }
  VERDICT_RETURN_IF_ERROR(
      r.Integer("max_body_bytes", &o->server.max_body_bytes, 1024, int64_t{1} << 30));
  VERDICT_RETURN_IF_ERROR(
      r.Integer("max_header_bytes", &o->server.max_header_bytes, 1024, 1 << 20));
  VERDICT_RETURN_IF_ERROR(r.Integer("idle_timeout_ms", &o->server.idle_timeout_ms, 100, 3'600'000));
  VERDICT_RETURN_IF_ERROR(r.Integer("read_timeout_ms", &o->server.read_timeout_ms, 100, 600'000));
  VERDICT_RETURN_IF_ERROR(r.Integer("max_connections", &o->server.max_connections, 1, 1'000'000));
  VERDICT_RETURN_IF_ERROR(r.Integer("max_connections_per_address",
                                    &o->server.max_connections_per_address, 0, 1'000'000));
  VERDICT_RETURN_IF_ERROR(
      r.Integer("max_connections_per_tenant", &o->server.max_connections_per_tenant, 0, 1'000'000));
  VERDICT_RETURN_IF_ERROR(
      r.Integer("max_read_pause_ms", &o->server.max_read_pause_ms, 0, 3'600'000));
  VERDICT_RETURN_IF_ERROR(r.Integer("max_batch_items", &o->max_batch_items, 1, 1000));
  VERDICT_RETURN_IF_ERROR(r.Boolean("pause_after_bulk_refusal", &o->pause_after_bulk_refusal));
  VERDICT_RETURN_IF_ERROR(r.StringArray("metrics_operator_tenants", &o->metrics_operator_tenants));
  Result<const toml::table*> tls_table = r.Table("tls");
  if (!tls_table.ok()) return tls_table.status();
  TableReader tls(*tls_table, "server.tls.", r.base_dir());
  VERDICT_RETURN_IF_ERROR(ReadServerTls(tls, &o->server.tls));
  return r.RejectUnknown();
}

Status ReadEngine(TableReader& r, EngineOptions* o) {
  VERDICT_RETURN_IF_ERROR(r.Integer("workers", &o->sched.workers, 0, 1024));
  VERDICT_RETURN_IF_ERROR(r.Integer("account_stripes", &o->account_stripes, 1, 1 << 20));
  VERDICT_RETURN_IF_ERROR(r.Integer("queue_capacity", &o->sched.queue_capacity, 1, 1 << 24));
  VERDICT_RETURN_IF_ERROR(r.Path("data_dir", &o->data_dir));
  VERDICT_RETURN_IF_ERROR(r.Integer("heap_prefault_mb", &o->heap_prefault_mb, 0, 1 << 16));
  return r.RejectUnknown();
}

Status ReadSched(TableReader& r, EngineOptions* o) {
  static constexpr const char* kClassKeys[] = {"realtime", "standard", "bulk"};
  SchedulerOptions& s = o->sched;
  for (int i = 0; i < 3; ++i) {
    int64_t deadline_ms = s.classes[i].deadline_us / 1000;
    VERDICT_RETURN_IF_ERROR(
        r.Integer(std::string(kClassKeys[i]) + "_deadline_ms", &deadline_ms, 1, 60'000));
    s.classes[i].deadline_us = deadline_ms * 1000;
  }
  // Bulk has no such key: there is no class below it to preempt.
  for (int i = 0; i < 2; ++i) {
    VERDICT_RETURN_IF_ERROR(
        r.Boolean(std::string(kClassKeys[i]) + "_may_preempt", &s.classes[i].may_preempt));
  }
  // Strict priority: standard going ahead of bulk work while realtime waits behind it would put
  // standard before realtime (also past the journal backlog's hold).
  if (s.classes[1].may_preempt && !s.classes[0].may_preempt) {
    return InvalidArgument("standard_may_preempt = true needs realtime_may_preempt = true",
                           "sched.realtime_may_preempt");
  }
  VERDICT_RETURN_IF_ERROR(r.Integer("max_batch", &s.max_batch, 1, 4096));
  VERDICT_RETURN_IF_ERROR(r.Integer("bulk_queue_capacity", &s.bulk_queue_capacity, 1, 1 << 24));
  int64_t aging_ms = s.bulk_aging_us / 1000;
  VERDICT_RETURN_IF_ERROR(r.Integer("bulk_aging_ms", &aging_ms, 1, 600'000));
  s.bulk_aging_us = aging_ms * 1000;
  VERDICT_RETURN_IF_ERROR(r.Double("ewma_alpha", &s.ewma_alpha, 0.001, 1));
  VERDICT_RETURN_IF_ERROR(r.Boolean("fifo", &s.fifo));
  VERDICT_RETURN_IF_ERROR(r.Boolean("inline_when_idle", &s.inline_when_idle));
  VERDICT_RETURN_IF_ERROR(r.Integer("journal_backlog", &s.downstream_limit, 0, 1 << 20));
  int64_t budget_us = o->model_budget_us;
  VERDICT_RETURN_IF_ERROR(r.Integer("model_budget_us", &budget_us, 1, 10'000'000));
  o->model_budget_us = budget_us;
  VERDICT_RETURN_IF_ERROR(
      r.Integer("breaker_failures_to_open", &s.breaker.failures_to_open, 1, 1'000'000));
  int64_t open_ms = s.breaker.open_for_us / 1000;
  VERDICT_RETURN_IF_ERROR(r.Integer("breaker_open_ms", &open_ms, 1, 3'600'000));
  s.breaker.open_for_us = open_ms * 1000;
  VERDICT_RETURN_IF_ERROR(
      r.Integer("breaker_probes_to_close", &s.breaker.probes_to_close, 1, 1'000'000));
  return r.RejectUnknown();
}

Status ReadJournal(TableReader& r, EngineOptions* o) {
  std::string durability = o->journal.sync ? "sync" : "async";
  VERDICT_RETURN_IF_ERROR(r.String("durability", &durability));
  if (durability != "sync" && durability != "async") {
    return InvalidArgument("journal.durability must be \"sync\" or \"async\"",
                           r.Name("durability"));
  }
  o->journal.sync = durability == "sync";
  VERDICT_RETURN_IF_ERROR(r.Integer("checkpoint_every_records",
                                    &o->journal.checkpoint_every_records, 1, int64_t{1} << 40));
  VERDICT_RETURN_IF_ERROR(
      r.Integer("checkpoint_interval_ms", &o->journal.checkpoint_interval_ms, 1, 86'400'000));
  VERDICT_RETURN_IF_ERROR(r.Path("kek_file", &o->journal.kek_file));
  std::string cipher(journal::PayloadCipherName(o->journal.cipher));
  VERDICT_RETURN_IF_ERROR(r.String("cipher", &cipher));
  std::optional<journal::PayloadCipherKind> kind = journal::ParsePayloadCipher(cipher);
  if (!kind) {
    return InvalidArgument("journal.cipher must be \"aes-256-gcm\" or \"sm4-ctr-hmac-sm3\"",
                           r.Name("cipher"));
  }
  o->journal.cipher = *kind;
  VERDICT_RETURN_IF_ERROR(r.Integer("min_free_mb", &o->journal.min_free_mb, 0, 1 << 30));
  VERDICT_RETURN_IF_ERROR(r.Integer("group_delay_us", &o->journal.group_delay_us, 0, 100'000));
  VERDICT_RETURN_IF_ERROR(
      r.Integer("group_delay_above_per_s", &o->journal.group_delay_above_per_s, 1, 10'000'000));
  VERDICT_RETURN_IF_ERROR(r.Boolean("commit_on_io_thread", &o->journal.commit_on_io_thread));
  VERDICT_RETURN_IF_ERROR(r.Integer("commit_log_mb", &o->journal.commit_log_mb, 0, 1024));
  VERDICT_RETURN_IF_ERROR(
      r.Integer("background_idle_ms", &o->journal.background_idle_ms, 0, 60'000));
  return r.RejectUnknown();
}

Status ReadLifecycle(TableReader& r, EngineOptions* o) {
  lifecycle::RolloutOptions& ro = o->lifecycle.rollout;
  VERDICT_RETURN_IF_ERROR(r.DoubleArray("stages", &ro.stages));
  double dwell_s = static_cast<double>(ro.stage_dwell_us) * 1e-6;
  VERDICT_RETURN_IF_ERROR(r.Double("stage_dwell_s", &dwell_s, 0, 30.0 * 86400));
  ro.stage_dwell_us = static_cast<int64_t>(dwell_s * 1e6);
  VERDICT_RETURN_IF_ERROR(r.Double("max_outcome_divergence", &ro.max_outcome_divergence, 0, 1));
  VERDICT_RETURN_IF_ERROR(
      r.Integer("candidate_p99_budget_us", &ro.candidate_p99_budget_us, 0, 10'000'000));
  VERDICT_RETURN_IF_ERROR(r.Integer("min_comparisons", &ro.min_comparisons, 0, 1'000'000'000));
  VERDICT_RETURN_IF_ERROR(r.Integer("min_timings", &ro.min_timings, 0, 1'000'000'000));
  VERDICT_RETURN_IF_ERROR(r.Integer("tick_ms", &o->lifecycle.tick_ms, 10, 3'600'000));
  VERDICT_RETURN_IF_ERROR(r.Integer("history_limit", &o->lifecycle.history_limit, 1, 1000));
  lifecycle::RolloutOptions check = ro;
  if (check.candidate_p99_budget_us == 0) check.candidate_p99_budget_us = 1;
  VERDICT_RETURN_IF_ERROR(lifecycle::ValidateRolloutOptions(check, "lifecycle."));
  return r.RejectUnknown();
}

// [drift]: the live drift monitor (monitor::DriftOptions, docs/drift.md).
Status ReadDrift(TableReader& r, EngineOptions* o) {
  monitor::DriftOptions& d = o->drift;
  VERDICT_RETURN_IF_ERROR(r.Boolean("enabled", &d.enabled));
  auto whole_numbers = [&r](std::string_view key, auto* out) -> Status {
    if (!r.Has(key)) return Status::Ok();
    std::vector<double> values;
    VERDICT_RETURN_IF_ERROR(r.DoubleArray(key, &values));
    out->clear();
    for (double v : values) {
      if (!(v >= 1 && v <= 1e9) || v != static_cast<double>(static_cast<int64_t>(v))) {
        return InvalidArgument(r.Name(key) + " must hold whole numbers from 1 to 1e9", r.Name(key));
      }
      out->push_back(static_cast<typename std::remove_pointer_t<decltype(out)>::value_type>(v));
    }
    return Status::Ok();
  };
  VERDICT_RETURN_IF_ERROR(whole_numbers("windows_s", &d.windows_s));
  VERDICT_RETURN_IF_ERROR(whole_numbers("count_windows", &d.count_windows));
  VERDICT_RETURN_IF_ERROR(r.Integer("min_count", &d.min_count, 1, int64_t{1} << 40));
  VERDICT_RETURN_IF_ERROR(
      r.Double("min_account_history_days", &d.min_account_history_days, 0, 3650));
  VERDICT_RETURN_IF_ERROR(r.Integer("escalate_after_windows", &d.escalate_after_windows, 1, 100));
  VERDICT_RETURN_IF_ERROR(r.Boolean("freeze_model", &d.freeze_model));
  VERDICT_RETURN_IF_ERROR(r.Double("l1", &d.l1, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("l2", &d.l2, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("l3", &d.l3, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("weight_kl", &d.weights.kl, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("weight_js", &d.weights.js, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("weight_psi", &d.weights.psi, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("escalation_first", &d.escalation_first, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("escalation_second", &d.escalation_second, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Integer("escalation_window_s", &d.escalation_window_s, 1, 86'400));
  VERDICT_RETURN_IF_ERROR(r.Double("psi_warn", &d.psi_warn, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("psi_alert", &d.psi_alert, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("ks_p_value", &d.ks_p_value, 0, 1));
  VERDICT_RETURN_IF_ERROR(r.Double("wasserstein", &d.wasserstein, 0, 1e6));
  VERDICT_RETURN_IF_ERROR(r.Double("js", &d.js, 0, 1));
  VERDICT_RETURN_IF_ERROR(r.StringArray("retrain_command", &d.retrain_command));
  VERDICT_RETURN_IF_ERROR(r.String("retrain_webhook", &d.retrain_webhook));
  VERDICT_RETURN_IF_ERROR(r.Integer("retrain_cooldown_s", &d.retrain_cooldown_s, 0, 86'400 * 30));
  VERDICT_RETURN_IF_ERROR(r.Integer("evaluate_interval_ms", &d.evaluate_interval_ms, 10, 60'000));
  VERDICT_RETURN_IF_ERROR(monitor::ValidateDriftOptions(d));
  return r.RejectUnknown();
}

Status ReadScreening(TableReader& r, EngineOptions* o) {
  VERDICT_RETURN_IF_ERROR(r.Integer("rescreen_days", &o->screening.rescreen_days, 0, 3650));
  VERDICT_RETURN_IF_ERROR(
      r.Double("rescreen_min_score", &o->screening.rescreen_min_score, 0.70, 1));
  return r.RejectUnknown();
}

// [tracing] (docs/tracing.md): the endpoint's form is checked here, at start-up.
Status ReadTracing(TableReader& r, EngineOptions* o) {
  tracing::TracingOptions& t = o->tracing;
  VERDICT_RETURN_IF_ERROR(r.String("otlp_endpoint", &t.otlp_endpoint));
  VERDICT_RETURN_IF_ERROR(r.Double("sample_ratio", &t.sample_ratio, 0, 1));
  VERDICT_RETURN_IF_ERROR(r.Integer("max_queue_spans", &t.max_queue_spans, 16, 1 << 24));
  VERDICT_RETURN_IF_ERROR(r.Integer("export_timeout_ms", &t.export_timeout_ms, 10, 60'000));
  VERDICT_RETURN_IF_ERROR(r.String("service_name", &t.service_name));
  if (t.service_name.empty() || t.service_name.size() > 256) {
    return InvalidArgument(r.Name("service_name") + " must be 1 to 256 characters",
                           r.Name("service_name"));
  }
  if (!t.otlp_endpoint.empty()) {
    VERDICT_RETURN_IF_ERROR(
        tracing::ParseOtlpEndpoint(t.otlp_endpoint, r.Name("otlp_endpoint")).status());
  }
  return r.RejectUnknown();
}

Status ReadPolicy(TableReader& r, EngineOptions* o) {
  VERDICT_RETURN_IF_ERROR(r.Path("path", &o->policy_path));
  return r.RejectUnknown();
}

Status ReadModel(TableReader& r, EngineOptions* o) {
  VERDICT_RETURN_IF_ERROR(r.Path("path", &o->model.path));
  VERDICT_RETURN_IF_ERROR(r.String("name", &o->model.name));
  VERDICT_RETURN_IF_ERROR(r.String("version", &o->model.version));
  return r.RejectUnknown();
}

// "10000.00 USD" -> Money.
Result<Money> ParseMoneyText(std::string_view text) {
  size_t space = text.find(' ');
  if (space == std::string_view::npos) {
    return InvalidArgument("'" + std::string(text) +
                           "' must be an amount and a currency, e.g. "
                           "\"10000.00 USD\"");
  }
  const CurrencyInfo* currency = FindCurrency(text.substr(space + 1));
  if (currency == nullptr) {
    return InvalidArgument("'" + std::string(text.substr(space + 1)) +
                           "' is not an ISO 4217 currency code");
  }
  return Money::Parse(text.substr(0, space), *currency);
}

Status ReadRules(TableReader& r, EngineOptions* o) {
  if (r.Has("review_amounts")) {
    std::vector<std::string> amounts;
    VERDICT_RETURN_IF_ERROR(r.StringArray("review_amounts", &amounts));
    o->rules.review_amounts.clear();
    for (const std::string& text : amounts) {
      Result<Money> money = ParseMoneyText(text);
      if (!money.ok()) return InvalidArgument(money.status().message(), r.Name("review_amounts"));
      for (const Money& existing : o->rules.review_amounts) {
        if (&existing.currency() == &money->currency()) {
          return InvalidArgument("two review amounts for " + std::string(money->currency().code),
                                 r.Name("review_amounts"));
        }
      }
      o->rules.review_amounts.push_back(*money);
    }
  }
  VERDICT_RETURN_IF_ERROR(r.StringArray("block_accounts", &o->rules.block_accounts));
  VERDICT_RETURN_IF_ERROR(
      r.Integer("velocity_review_count_1h", &o->rules.velocity_review_count_1h, 0, 1'000'000));
  VERDICT_RETURN_IF_ERROR(r.Double("model_review_score", &o->rules.model_review_score, 0, 1));
  VERDICT_RETURN_IF_ERROR(r.Double("model_block_score", &o->rules.model_block_score, 0, 1));
  return r.RejectUnknown();
}

Status ReadCluster(TableReader& r, EngineOptions* o) {
  ClusterSettings& c = o->cluster;
  for (auto [key, out] : {std::pair{"node_id", &c.node_id}, std::pair{"etcd", &c.etcd},
                          std::pair{"postgres", &c.postgres}}) {
    VERDICT_RETURN_IF_ERROR(r.String(key, out));
    if (out->empty()) {
      return InvalidArgument(r.Name(key) + " is required in a [cluster] table", r.Name(key));
    }
  }
  VERDICT_RETURN_IF_ERROR(r.Integer("partitions", &c.partitions, 1, 65'536));
  VERDICT_RETURN_IF_ERROR(r.Integer("lease_seconds", &c.lease_seconds, 2, 600));
  VERDICT_RETURN_IF_ERROR(r.String("advertise_url", &c.advertise_url));
  VERDICT_RETURN_IF_ERROR(r.Boolean("warm_standby", &c.warm_standby));
  return r.RejectUnknown();
}

EngineOptions Defaults() {
  EngineOptions o;
  const CurrencyInfo* usd = FindCurrency("USD");
  const CurrencyInfo* eur = FindCurrency("EUR");
  const CurrencyInfo* gbp = FindCurrency("GBP");
  o.rules.review_amounts = {Money(1'000'000, *usd), Money(1'000'000, *eur), Money(800'000, *gbp)};
  return o;
}

}  // namespace

Status ParseListenAddress(std::string_view listen, HttpServerOptions* server) {
  size_t colon = listen.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return InvalidArgument("listen address '" + std::string(listen) +
                           "' must be HOST:PORT, e.g. 127.0.0.1:8080");
  }
  std::string_view host = listen.substr(0, colon);
  std::string_view port_text = listen.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    return InvalidArgument("listen port '" + std::string(port_text) + "' is not a port number");
  }
  server->address = std::string(host);
  server->port = static_cast<uint16_t>(port);
  return Status::Ok();
}

// [tenants.<name>]: one tenant's weight, rate limit and burst (SchedulerOptions::tenants).
Status ReadTenants(const toml::table* tenants, EngineOptions* o) {
  if (tenants == nullptr) return Status::Ok();
  for (const auto& [key, node] : *tenants) {
    const std::string name(key.str());
    const std::string prefix = "tenants." + name;
    if (name.empty() || name.size() > 64) {
      return InvalidArgument("tenant names must be 1 to 64 characters", prefix);
    }
    if (!node.is_table()) {
      return InvalidArgument("'" + prefix + "' must be a table (weight, rate, burst)", prefix);
    }
    TableReader r(node.as_table(), prefix + ".");
    TenantOptions tenant;
    tenant.name = name;
    VERDICT_RETURN_IF_ERROR(r.Double("weight", &tenant.weight, 0.001, 1e6));
    VERDICT_RETURN_IF_ERROR(r.Double("rate", &tenant.rate_per_s, 0, 1e9));
    VERDICT_RETURN_IF_ERROR(r.Double("burst", &tenant.burst, 0, 1e9));
    VERDICT_RETURN_IF_ERROR(r.RejectUnknown());
    if (tenant.burst != 0 && tenant.burst < 1) {
      return InvalidArgument(r.Name("burst") + " must be at least 1 (or 0: one second's worth)",
                             r.Name("burst"));
    }
    if (tenant.burst != 0 && tenant.rate_per_s == 0) {
      return InvalidArgument(r.Name("burst") + " needs a rate (" + r.Name("rate") + " > 0)",
                             r.Name("burst"));
    }
    o->sched.tenants.push_back(std::move(tenant));
  }
  return Status::Ok();
}

Result<EngineOptions> ParseEngineOptions(std::string_view toml_text, std::string_view source,
                                         const std::string& config_dir) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    return InvalidArgument(std::string(source) + ":" + std::to_string(begin.line) + ":" +
                           std::to_string(begin.column) + ": " + std::string(e.description()));
  }
  EngineOptions options = Defaults();
  struct Section {
    const char* name;
    Status (*read)(TableReader&, EngineOptions*);
  };
  static constexpr Section kSections[] = {
      {"server", ReadServer},   {"engine", ReadEngine},       {"sched", ReadSched},
      {"model", ReadModel},     {"rules", ReadRules},         {"journal", ReadJournal},
      {"policy", ReadPolicy},   {"lifecycle", ReadLifecycle}, {"drift", ReadDrift},
      {"tracing", ReadTracing}, {"screening", ReadScreening}};
  if (const toml::table* cluster = root["cluster"].as_table()) {
    options.cluster.enabled = true;
    TableReader reader(cluster, "cluster.");
    if (Status status = ReadCluster(reader, &options); !status.ok()) {
      return WithSource(status, source);
    }
  }
  for (const auto& [key, node] : root) {
    // "tenants" is a table of tables, read by ReadTenants; "cluster" is read only when present;
    // "webhooks" is an array of tables (ParseWebhookTables); "ingest" is an array of tables, read
    // by the ingest component (ingest/ingest_options.h); "reports" by ParseReportTables.
    if (key.str() == "webhooks" || key.str() == "ingest" || key.str() == "reports") continue;
    bool known = key.str() == "tenants" || key.str() == "cluster";
    for (const Section& s : kSections) known |= key.str() == s.name;
    if (!known) {
      return WithSource(
          InvalidArgument("unknown configuration section '" + std::string(key.str()) + "'",
                          std::string(key.str())),
          source);
    }
    if (!node.is_table()) {
      return WithSource(InvalidArgument("'" + std::string(key.str()) + "' must be a table",
                                        std::string(key.str())),
                        source);
    }
  }
  for (const Section& s : kSections) {
    TableReader reader(root[s.name].as_table(), std::string(s.name) + ".", config_dir);
    Status status = s.read(reader, &options);
    if (!status.ok()) return WithSource(status, source);
  }
  if (Status status = ReadTenants(root["tenants"].as_table(), &options); !status.ok()) {
    return WithSource(status, source);
  }
  Result<std::vector<webhooks::EndpointOptions>> hooks =
      webhooks::ParseWebhookTables(root.get("webhooks"), config_dir);
  if (!hooks.ok()) return WithSource(hooks.status(), source);
  options.webhooks = std::move(hooks).value();
  Result<reports::ReportOptions> report_options = reports::ParseReportTables(root.get("reports"));
  if (!report_options.ok()) return WithSource(report_options.status(), source);
  options.reports = std::move(report_options).value();
  if (options.model.name.empty() || options.model.version.empty()) {
    return WithSource(
        InvalidArgument("model.name and model.version must not be empty", "model.name"), source);
  }
  return options;
}

Result<EngineOptions> LoadEngineOptions(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("cannot read configuration file '" + path + "'", "--config");
  std::stringstream text;
  text << in.rdbuf();
  // Paths in the file are relative to the file: `--config /etc/verdict/verdict.toml` works
  // from any working directory.
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  return ParseEngineOptions(text.str(), path, dir.string());
}

}  // namespace verdict
