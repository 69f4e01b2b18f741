// StreamRunner: one [[ingest]] stream's consumer thread. It reads messages from its transport,
// has them decided (StreamDecider), publishes each message's decisions (or the message to the
// dead letter) and commits the message only once the decisions are durable in the journal and
// the broker has confirmed what was published: at-least-once in, and since a decision is
// idempotent by transaction id, a message read again after a crash is answered with the
// decision already journaled, never decided twice.
//
// Backpressure: at most max_in_flight messages are in the engine at once, and a message the
// engine refuses (saturated queues, the tenant over its rate) waits and is offered again, so
// consumption slows to what the engine admits while realtime requests keep their class.
//
// Owns its transport and thread. Start and Stop from one thread; the decisions' callbacks
// reach the thread through a shared Inbox, so one that runs after Stop is harmless.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "engine/engine.h"
#include "ingest/ingest_metrics.h"
#include "ingest/ingest_options.h"
#include "ingest/stream_decider.h"
#include "ingest/stream_transport.h"

namespace verdict::ingest {

class StreamRunner {
 public:
  StreamRunner(Engine& engine, const IngestOptions& options,
               std::unique_ptr<StreamTransport> transport, MetricsRegistry& metrics);
  ~StreamRunner();
  StreamRunner(const StreamRunner&) = delete;
  StreamRunner& operator=(const StreamRunner&) = delete;

  void Start();
  // Stops reading, finishes the messages in flight (for a bounded time: what is left is read
  // again at the next start) and closes the transport. Idempotent.
  void Stop();

 private:
  // Decided messages on their way from the engine's threads to the runner's.
  class Inbox {
   public:
    void Push(uint64_t id, MessageOutcome outcome) EXCLUDES(mu_);
    // Waits up to `timeout_ms` for something to arrive, then takes everything that has.
    std::vector<std::pair<uint64_t, MessageOutcome>> Take(int timeout_ms) EXCLUDES(mu_);

   private:
    Mutex mu_;
    CondVar arrived_;
    std::vector<std::pair<uint64_t, MessageOutcome>> outcomes_ GUARDED_BY(mu_);
  };

  struct Pending {
    InputMessage message;
    int64_t submit_after_ns = 0;  // a message waiting for admission: not before then
    bool dead_letter = false;     // what was published for it
  };

  void Run();
  // One turn of the loop: outcomes in, confirmations and commits, admissions, and (when
  // `read`) the next input message. An error: the connection is lost.
  Status Turn(bool read);
  Status TakeOutcomes(int wait_ms);
  Status CommitConfirmed();
  // Offers the waiting messages to the engine, oldest first, until one is refused.
  void SubmitWaiting();
  // Forgets every message in flight after a lost connection (the broker delivers them again).
  void Reset();
  void UpdateGauges();
  int64_t NowNs() const { return engine_.clock().MonotonicNanos(); }

  Engine& engine_;
  const IngestOptions options_;
  const std::string name_;
  std::unique_ptr<StreamTransport> transport_;
  IngestMetrics metrics_;
  StreamDecider decider_;
  std::shared_ptr<Inbox> inbox_ = std::make_shared<Inbox>();
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  // The runner thread's own state.
  std::map<uint64_t, Pending> pending_;
  std::deque<uint64_t> waiting_;  // ids not yet admitted by the engine, oldest first
  uint64_t next_id_ = 1;
  int64_t backoff_ns_ = 0;
  int64_t next_lag_ns_ = 0;
  uint64_t not_republished_ = 0;  // the transport's count, as last added to the metric
};

}  // namespace verdict::ingest
