// StreamTransport: what StreamRunner needs from a broker client (Kafka: kafka_transport.h,
// AMQP 0-9-1: amqp_transport.h). Every call is made from the runner's one thread, so an
// implementation needs no locking of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "ingest/stream_decider.h"

namespace verdict::ingest {

// One message as read from the input. `position` is the transport's own handle on it (Kafka:
// partition and offset; AMQP: delivery tag), opaque to the runner.
struct InputMessage {
  std::string payload;
  std::string key;
  std::string content_type;  // "" when the message declares none
  // The W3C trace context the message carries (Kafka headers, AMQP headers table), "" if none:
  // its decisions join that trace as an HTTP request's would.
  std::string traceparent;
  std::string tracestate;
  int32_t partition = 0;
  uint64_t position = 0;
  // Kafka: which assignment of the partition the message was read under (a message read
  // before the partition was revoked is no longer this consumer's to publish or commit).
  uint64_t generation = 0;
};

class StreamTransport {
 public:
  virtual ~StreamTransport() = default;

  // Connects to the broker and starts consuming from where the last commit left off.
  virtual Status Connect() = 0;
  // The next input message, waiting up to `timeout_ms`; nullopt when none came. An error means
  // the connection is lost (the runner reconnects).
  virtual Result<std::optional<InputMessage>> Next(int timeout_ms) = 0;
  // Publishes what `outcome` says (decisions, or the message to the dead letter) for message
  // `id`; Poll reports `id` once the broker has confirmed every one of them.
  virtual Status Publish(uint64_t id, const InputMessage& message,
                         const MessageOutcome& outcome) = 0;
  // Serves the broker's confirmations, appending the ids now fully published to `confirmed`.
  // An error means the connection is lost.
  virtual Status Poll(std::vector<uint64_t>* confirmed) = 0;
  // The message is done: commit its offset (in order, Kafka) or acknowledge it (AMQP).
  virtual Status Commit(const InputMessage& message) = 0;
  // Messages in the input not yet committed, when the transport knows (metrics).
  virtual std::optional<int64_t> Lag() = 0;
  // Outputs not published again because the broker already had them from an earlier reading of
  // their message (metrics), since the transport was made.
  virtual uint64_t OutputsNotRepublished() const { return 0; }
  // Commits what is done and closes the connection.
  virtual void Close() = 0;
};

}  // namespace verdict::ingest
