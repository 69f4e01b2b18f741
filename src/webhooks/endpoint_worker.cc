#include "webhooks/endpoint_worker.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include "common/sha256.h"
#include "webhooks/webhook_signature.h"

namespace verdict::webhooks {
namespace {

constexpr std::string_view kCursorPrefix = "webhooks/cursor/";

Result<std::optional<uint64_t>> LoadCursor(const journal::Journal& journal,
                                           const std::string& key) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> stored, journal.GetRegistry(key));
  if (!stored) return std::optional<uint64_t>();
  uint64_t seq = 0;
  const auto [end, ec] = std::from_chars(stored->data(), stored->data() + stored->size(), seq);
  if (ec != std::errc() || end != stored->data() + stored->size()) {
    return DataLoss("webhook cursor " + key + " is not a sequence number");
  }
  return std::optional<uint64_t>(seq);
}

// Failures are logged on the first and then at each power of two: a long outage of an endpoint
// must not flood the log.
bool WorthLogging(uint32_t failures) { return (failures & (failures - 1)) == 0; }

}  // namespace

std::string EndpointId(const EndpointOptions& endpoint) {
  return Sha256Hex(endpoint.tenant + "\n" + endpoint.url).substr(0, 12);
}

std::string CursorKey(const std::string& endpoint_id) {
  return std::string(kCursorPrefix) + endpoint_id;
}

std::chrono::milliseconds RetryDelay(const EndpointOptions& endpoint, uint32_t failures) {
  int64_t delay = endpoint.retry_initial_ms;
  for (uint32_t i = 1; i < failures && delay < endpoint.retry_max_ms; ++i) delay *= 2;
  return std::chrono::milliseconds(std::min(delay, endpoint.retry_max_ms));
}

EndpointWorker::EndpointWorker(EndpointOptions options, journal::Journal& journal,
                               std::unique_ptr<WebhookSender> sender, const Clock& clock,
                               Tuning tuning)
    : options_(std::move(options)),
      id_(EndpointId(options_)),
      journal_(journal),
      sender_(std::move(sender)),
      clock_(clock),
      tuning_(tuning) {}

Result<std::unique_ptr<EndpointWorker>> EndpointWorker::Start(
    EndpointOptions options, journal::Journal& journal, std::unique_ptr<WebhookSender> sender,
    const Clock& clock, MetricsRegistry* metrics, Tuning tuning) {
  std::unique_ptr<EndpointWorker> worker(
      new EndpointWorker(std::move(options), journal, std::move(sender), clock, tuning));
  const std::string key = CursorKey(worker->id_);
  VERDICT_ASSIGN_OR_RETURN(std::optional<uint64_t> cursor, LoadCursor(journal, key));
  if (!cursor) {
    // A new endpoint receives what is journaled from now on, not the journal's whole history;
    // synced, so that a restart before its first delivery does not move its start.
    cursor = journal.durable_sequence();
    VERDICT_RETURN_IF_ERROR(journal.PutRegistry(key, std::to_string(*cursor), /*sync=*/true));
  }
  worker->cursor_ = *cursor;
  worker->saved_cursor_ = *cursor;
  {
    MutexLock lock(worker->mu_);
    EndpointStatus& s = worker->status_;
    s.id = worker->id_;
    s.url = worker->options_.url;
    s.tenant = worker->options_.tenant;
    s.events = worker->options_.events;
    s.delivered_through_seq = *cursor;
  }
  worker->RegisterMetrics(metrics);
  spdlog::info("webhooks: endpoint {} ({}, tenant {}) delivers after journal record {}",
               worker->id_, worker->options_.url,
               worker->options_.tenant.empty() ? "every tenant" : worker->options_.tenant, *cursor);
  worker->thread_ = std::thread([raw = worker.get()] { raw->Run(); });
  pthread_setname_np(worker->thread_.native_handle(), "webhook");
  return worker;
}

EndpointWorker::~EndpointWorker() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  stop_cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

void EndpointWorker::RegisterMetrics(MetricsRegistry* metrics) {
  if (metrics == nullptr) return;
  const MetricLabels labels = {{"endpoint", id_}};
  delivered_ = metrics->GetCounter("verdict_webhooks_delivered_total",
                                   "Webhook events delivered (answered 2xx)", labels);
  failed_attempts_ = metrics->GetCounter(
      "verdict_webhooks_failed_attempts_total",
      "Webhook delivery attempts that failed (no answer in time, or not 2xx)", labels);
  pending_records_ = metrics->GetGauge(
      "verdict_webhooks_pending_records",
      "Journal records after the endpoint's delivery cursor, not yet delivered", labels);
  cursor_gauge_ =
      metrics->GetGauge("verdict_webhooks_cursor_seq",
                        "The journal record every event up to which was delivered", labels);
}

EndpointStatus EndpointWorker::status() const {
  const uint64_t head = journal_.durable_sequence();
  MutexLock lock(mu_);
  EndpointStatus s = status_;
  s.journal_seq = head;
  s.pending_records = head > s.delivered_through_seq ? head - s.delivered_through_seq : 0;
  return s;
}

bool EndpointWorker::Sleep(std::chrono::milliseconds delay) {
  const auto deadline = std::chrono::steady_clock::now() + delay;
  MutexLock lock(mu_);
  while (!stopping_ && stop_cv_.WaitUntil(mu_, deadline)) {
  }
  return !stopping_;
}

bool EndpointWorker::Wanted(const WebhookEvent& event) const {
  if (!options_.tenant.empty() && event.tenant != options_.tenant) return false;
  return options_.Wants(event.name);
}

void EndpointWorker::Run() {
  while (true) {
    const uint64_t head = journal_.durable_sequence();
    if (pending_records_ != nullptr) {
      pending_records_->Set(static_cast<double>(head > cursor_ ? head - cursor_ : 0));
    }
    if (head > cursor_) {
      if (!DeliverThrough(head)) {
        MoveCursor(cursor_, /*force=*/true);
        return;
      }
      continue;
    }
    MoveCursor(cursor_, /*force=*/true);  // caught up: written now, not kept waiting
    if (!Sleep(tuning_.idle_poll)) return;
  }
}

bool EndpointWorker::DeliverThrough(uint64_t head) {
  const uint64_t end = std::min(head, cursor_ + tuning_.batch_records);
  for (uint64_t seq = cursor_ + 1; seq <= end; ++seq) {
    Result<std::optional<journal::JournalRecord>> record = journal_.ReadRecord(seq);
    if (!record.ok()) {
      // Never skipped: the record is read again after a pause (a journal failed closed answers
      // nothing until the process restarts).
      {
        MutexLock lock(mu_);
        status_.last_error = "journal record " + std::to_string(seq) +
                             " cannot be read: " + record.status().message();
      }
      return Sleep(RetryDelay(options_, 1));
    }
    if (*record) {
      for (const WebhookEvent& event : EventsFromRecord(**record)) {
        if (Wanted(event) && !DeliverUntilDone(event)) return false;
      }
    }
    MoveCursor(seq, /*force=*/false);
  }
  return true;
}

bool EndpointWorker::DeliverUntilDone(const WebhookEvent& event) {
  uint32_t failures = 0;
  while (!Attempt(event)) {
    ++failures;
    const std::chrono::milliseconds delay = RetryDelay(options_, failures);
    {
      MutexLock lock(mu_);
      status_.retrying_delivery = event.delivery_id;
      status_.retrying_event = event.name;
      status_.next_attempt_at_us = clock_.NowMicros() + delay.count() * 1000;
      if (WorthLogging(failures)) {
        spdlog::warn("webhooks: endpoint {}: {} {} failed {} time(s): {}; next attempt in {} ms",
                     id_, event.name, event.delivery_id, failures, status_.last_error,
                     delay.count());
      }
    }
    if (!Sleep(delay)) return false;
  }
  MutexLock lock(mu_);
  if (failures > 0) {
    spdlog::info("webhooks: endpoint {}: {} {} delivered after {} failed attempt(s)", id_,
                 event.name, event.delivery_id, failures);
  }
  status_.retrying_delivery.clear();
  status_.retrying_event.clear();
  status_.next_attempt_at_us = 0;
  return true;
}

bool EndpointWorker::Attempt(const WebhookEvent& event) {
  const int64_t now_us = clock_.NowMicros();
  // Signed afresh on every attempt: a receiver refusing old timestamps still takes a retry.
  const std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Type", "application/json"},
      {"User-Agent", "verdict-webhooks"},
      {std::string(kEventHeader), event.name},
      {std::string(kDeliveryHeader), event.delivery_id},
      {std::string(kSignatureHeader),
       SignatureHeaderValue(options_.secret, now_us / 1'000'000, event.body)},
  };
  const Result<int> answer =
      sender_->Post(headers, event.body, std::chrono::milliseconds(options_.timeout_ms));
  const bool ok = answer.ok() && *answer >= 200 && *answer < 300;
  MutexLock lock(mu_);
  status_.last_attempt_at_us = now_us;
  status_.last_status = answer.ok() ? *answer : 0;
  if (ok) {
    status_.last_error.clear();
    status_.last_success_at_us = clock_.NowMicros();
    status_.consecutive_failures = 0;
    ++status_.delivered_total;
    if (delivered_ != nullptr) delivered_->Increment();
  } else {
    status_.last_error =
        answer.ok() ? "answered HTTP " + std::to_string(*answer) : answer.status().message();
    ++status_.consecutive_failures;
    ++status_.failed_attempts_total;
    if (failed_attempts_ != nullptr) failed_attempts_->Increment();
  }
  return ok;
}

void EndpointWorker::MoveCursor(uint64_t seq, bool force) {
  cursor_ = seq;
  if (cursor_gauge_ != nullptr) cursor_gauge_->Set(static_cast<double>(seq));
  {
    MutexLock lock(mu_);
    status_.delivered_through_seq = seq;
  }
  if (seq == saved_cursor_) return;
  const int64_t now_ns = clock_.MonotonicNanos();
  const int64_t every_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(tuning_.save_every).count();
  if (!force && now_ns - saved_at_ns_ < every_ns) return;
  // Unsynced (Journal::PutRegistry): the journal's next group sync carries it, and a crash can
  // only lose a suffix of such writes, moving the cursor back: those events are sent again.
  const Status saved = journal_.PutRegistry(CursorKey(id_), std::to_string(seq), /*sync=*/false);
  if (!saved.ok()) {
    spdlog::warn("webhooks: endpoint {}: cursor {} not saved: {}", id_, seq, saved.ToString());
    return;
  }
  saved_cursor_ = seq;
  saved_at_ns_ = now_ns;
}

}  // namespace verdict::webhooks
