#include "ingest/stream_decider.h"

#include <memory>

#include "api/decision_json.h"
#include "common/json_writer.h"
#include "ingest/message_decoding.h"
#include "tracing/trace_context.h"

namespace verdict::ingest {
namespace {

// The most transactions one message may carry (the HTTP API's default max_batch_items).
constexpr size_t kMaxItemsPerMessage = 1000;

}  // namespace

std::string DeadLetterErrorJson(const std::vector<std::pair<int, Status>>& errors) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("errors").BeginArray();
  for (const auto& [item, status] : errors) {
    // The API's error object ({"error": {...}}), its inner object under "error" here.
    const std::string error = ErrorToJson(status);
    constexpr std::string_view kOpen = "{\"error\":";
    w.BeginObject();
    w.Key("item").Int(item);
    w.Key("error").Raw(
        std::string_view(error).substr(kOpen.size(), error.size() - kOpen.size() - 1));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return out;
}

StreamDecider::StreamDecider(Engine& engine, const IngestOptions& options)
    : engine_(engine),
      caller_{options.tenant, "ingest:" + options.Name()},
      priority_(options.priority) {}

bool StreamDecider::Transient(const Status& status) {
  switch (status.code()) {
    case StatusCode::kUnavailable:
    case StatusCode::kResourceExhausted:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kInternal:
    case StatusCode::kDataLoss:
      return true;
    default:
      return false;
  }
}

Status StreamDecider::Submit(std::string_view content_type, std::string_view payload, Done done,
                             std::string_view traceparent, std::string_view tracestate) {
  const int64_t received_ns = engine_.clock().MonotonicNanos();
  Result<std::vector<Result<Transaction>>> items = DecodeStreamMessage(
      decoder_, content_type, payload, engine_.clock().NowMicros(), kMaxItemsPerMessage);
  if (!items.ok()) {
    MessageOutcome outcome;
    outcome.dead_letter_error = DeadLetterErrorJson({{-1, items.status()}});
    done(std::move(outcome));
    return Status::Ok();
  }
  // The stream's class, whatever the message says: the operator chose it per stream.
  for (Result<Transaction>& item : *items) {
    if (item.ok()) item->priority = priority_;
  }
  Caller caller = caller_;
  caller.trace = tracing::ParseTraceParent(traceparent, tracestate);
  return engine_.SubmitBatch(std::move(items).value(), caller, received_ns,
                             [done = std::move(done)](std::vector<Result<Decision>> results) {
                               MessageOutcome outcome;
                               std::vector<std::pair<int, Status>> errors;
                               for (size_t i = 0; i < results.size(); ++i) {
                                 const Result<Decision>& result = results[i];
                                 if (result.ok()) {
                                   outcome.decisions.emplace_back(result->transaction_id,
                                                                  DecisionToJson(*result));
                                 } else if (Transient(result.status())) {
                                   outcome.retry = true;
                                   outcome.retry_status = result.status();
                                 } else {
                                   errors.emplace_back(static_cast<int>(i), result.status());
                                 }
                               }
                               if (outcome.retry) {
                                 // Decided items replay from the journal when the message is
                                 // decided again.
                                 outcome.decisions.clear();
                               } else if (!errors.empty()) {
                                 outcome.dead_letter_error = DeadLetterErrorJson(errors);
                               }
                               done(std::move(outcome));
                             });
}

}  // namespace verdict::ingest
