// StreamDecider: turns one stream message into decisions with the engine, exactly as the HTTP
// API would (same decoders, scheduler class and deadlines, idempotency by transaction id), and
// reports what the transport must publish before it commits the message. Used by one consumer
// thread (its decoder is not thread-safe); `done` runs on an engine thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/transaction_json.h"
#include "engine/caller.h"
#include "engine/engine.h"
#include "ingest/ingest_metrics.h"
#include "ingest/ingest_options.h"

namespace verdict::ingest {

// What became of one message once every transaction in it is decided and durable.
struct MessageOutcome {
  // (transaction id, decision JSON as the HTTP answer), to publish keyed by the id.
  std::vector<std::pair<std::string, std::string>> decisions;
  // Non-empty: the message goes to the dead letter, as received, with this JSON
  // {"errors": [{"item": i, "error": {...}}]} (item -1: the whole message).
  std::string dead_letter_error;
  // A transient failure (the journal unavailable, a failed store): nothing may be committed;
  // decide the message again later (what was decided replays from the journal).
  bool retry = false;
  Status retry_status;
};

class StreamDecider {
 public:
  using Done = std::function<void(MessageOutcome)>;

  // `engine` must outlive the decider and every `done` it was given.
  StreamDecider(Engine& engine, const IngestOptions& options);

  // Decodes `payload` and submits its transactions in the stream's class. Ok: `done` will run
  // exactly once (at once for a message that cannot be decoded). kResourceExhausted or
  // kUnavailable: the engine refused admission (saturated or stopping), nothing was submitted
  // and `done` never runs: submit again later.
  // `traceparent` and `tracestate`: the message's, as the HTTP headers (invalid or "" : none).
  Status Submit(std::string_view content_type, std::string_view payload, Done done,
                std::string_view traceparent = {}, std::string_view tracestate = {});

  // True for an engine error worth waiting out rather than dead-lettering.
  static bool Transient(const Status& status);

 private:
  Engine& engine_;
  const Caller caller_;
  const Priority priority_;
  TransactionDecoder decoder_;
};

// {"errors": [{"item": item, "error": {"code", "message", "field"}}]} for one error.
std::string DeadLetterErrorJson(const std::vector<std::pair<int, Status>>& errors);

}  // namespace verdict::ingest
