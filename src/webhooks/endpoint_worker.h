// EndpointWorker: delivers one webhook endpoint's events, on a thread of its own, from a cursor
// over the decision journal: the journal is the durable outbox. The worker reads the durable
// records after its cursor in batches, POSTs each event the endpoint wants (signed, with a
// delivery id stable across redeliveries), retries a failed one with exponential backoff up to
// the endpoint's cap, and moves the cursor past a record only once all its events were answered
// 2xx. The cursor is kept in the journal's registry (webhooks/cursor/<endpoint id>), written
// at most every Tuning::save_every while delivering and whenever the worker stops or catches up,
// without a sync of its own: a crash can only move it back, and what lies after it is sent
// again (at least once). A new endpoint starts at the journal's head. Nothing here is on the
// decision path: the worker only reads the journal. Thread-safe (status() from any thread); owns
// its thread and sender; the journal must outlive it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "journal/journal.h"
#include "webhooks/webhook_event.h"
#include "webhooks/webhook_options.h"
#include "webhooks/webhook_sender.h"

namespace verdict::webhooks {

// What GET /v1/webhooks shows of one endpoint.
struct EndpointStatus {
  std::string id;  // derived from tenant and url; names the cursor and the metrics
  std::string url;
  std::string tenant;  // empty: every tenant
  std::vector<std::string> events;
  uint64_t delivered_through_seq = 0;  // the cursor: every event up to it was answered 2xx
  uint64_t journal_seq = 0;            // the journal's durable head when asked
  uint64_t pending_records = 0;        // journal records after the cursor, not yet examined
  uint64_t delivered_total = 0;        // since start
  uint64_t failed_attempts_total = 0;  // since start
  uint32_t consecutive_failures = 0;
  std::string retrying_delivery;  // the delivery id being retried; empty: none
  std::string retrying_event;
  int64_t last_attempt_at_us = 0;  // 0: none since start
  int last_status = 0;             // the last attempt's HTTP status; 0: no answer
  std::string last_error;          // why the last attempt failed; empty after a 2xx
  int64_t last_success_at_us = 0;
  int64_t next_attempt_at_us = 0;  // while retrying
};

// The registry key of an endpoint's cursor, and the endpoint's id.
std::string EndpointId(const EndpointOptions& endpoint);
std::string CursorKey(const std::string& endpoint_id);

// The wait after `failures` failed attempts in a row (1: the first): retry_initial_ms doubled
// each further failure, at most retry_max_ms.
std::chrono::milliseconds RetryDelay(const EndpointOptions& endpoint, uint32_t failures);

class EndpointWorker {
 public:
  struct Tuning {
    size_t batch_records = 512;                // records read before the head is looked at again
    std::chrono::milliseconds idle_poll{100};  // how often a caught-up worker looks again
    // The cursor is written at most this often while the worker delivers (and always when it
    // stops or catches up): each write is a store write beside the journal's own.
    std::chrono::milliseconds save_every{200};
  };

  // Reads (or starts) the cursor, then starts the thread.
  static Result<std::unique_ptr<EndpointWorker>> Start(EndpointOptions options,
                                                       journal::Journal& journal,
                                                       std::unique_ptr<WebhookSender> sender,
                                                       const Clock& clock, MetricsRegistry* metrics,
                                                       Tuning tuning);
  ~EndpointWorker();  // stops and joins: waits out an attempt in flight (timeout_ms at most)
  EndpointWorker(const EndpointWorker&) = delete;
  EndpointWorker& operator=(const EndpointWorker&) = delete;

  EndpointStatus status() const EXCLUDES(mu_);
  const EndpointOptions& options() const { return options_; }

 private:
  EndpointWorker(EndpointOptions options, journal::Journal& journal,
                 std::unique_ptr<WebhookSender> sender, const Clock& clock, Tuning tuning);
  void RegisterMetrics(MetricsRegistry* metrics);
  void Run() EXCLUDES(mu_);
  // Delivers the records after the cursor, up to `head`, a batch at a time; false on stop.
  bool DeliverThrough(uint64_t head) EXCLUDES(mu_);
  // POSTs `event` until it is answered 2xx; false when stopped first.
  bool DeliverUntilDone(const WebhookEvent& event) EXCLUDES(mu_);
  // One attempt: whether it was answered 2xx; records the outcome in the status.
  bool Attempt(const WebhookEvent& event) EXCLUDES(mu_);
  // Moves the cursor to `seq` (the worker's position); writes it to the registry when `force`
  // is set or the last write is tuning_.save_every old.
  void MoveCursor(uint64_t seq, bool force) EXCLUDES(mu_);
  // Waits `delay` unless stopped meanwhile; false when stopped.
  bool Sleep(std::chrono::milliseconds delay) EXCLUDES(mu_);
  bool Wanted(const WebhookEvent& event) const;

  const EndpointOptions options_;
  const std::string id_;
  journal::Journal& journal_;
  std::unique_ptr<WebhookSender> sender_;  // the worker thread's alone
  const Clock& clock_;
  const Tuning tuning_;
  // The worker thread's alone (and Start's before it): every event up to cursor_ was
  // delivered; saved_cursor_ is the value last written to the registry, at saved_at_ns_.
  uint64_t cursor_ = 0;
  uint64_t saved_cursor_ = 0;
  int64_t saved_at_ns_ = 0;

  mutable Mutex mu_;
  CondVar stop_cv_;
  bool stopping_ GUARDED_BY(mu_) = false;
  EndpointStatus status_ GUARDED_BY(mu_);

  Counter* delivered_ = nullptr;        // null without metrics
  Counter* failed_attempts_ = nullptr;  // null without metrics
  Gauge* pending_records_ = nullptr;    // null without metrics
  Gauge* cursor_gauge_ = nullptr;       // null without metrics
  std::thread thread_;                  // last: started once everything above is set
};

}  // namespace verdict::webhooks
