// AmqpTransport: a StreamTransport over AMQP 0-9-1 (RabbitMQ) with rabbitmq-c. Two connections:
// one consumes the input queue with manual acknowledgements (basic.qos prefetch =
// max_in_flight), the other publishes in confirm mode, decisions to the decisions exchange
// (routing key: the transaction id) and bad messages to the dead-letter queue, all persistent.
// A message is acknowledged only after the broker has confirmed what was published for it; a
// connection lost before that has the broker deliver the message again. The input and
// dead-letter queues are declared durable and the exchange as a durable topic exchange.
// rabbitmq-c connections are not thread-safe: used from one thread (StreamRunner's).
#pragma once

#include <amqp.h>

#include <map>
#include <string>
#include <vector>

#include "ingest/ingest_options.h"
#include "ingest/stream_transport.h"

namespace verdict::ingest {

class AmqpTransport : public StreamTransport {
 public:
  explicit AmqpTransport(const IngestOptions& options);
  ~AmqpTransport() override;
  AmqpTransport(const AmqpTransport&) = delete;
  AmqpTransport& operator=(const AmqpTransport&) = delete;

  Status Connect() override;
  Result<std::optional<InputMessage>> Next(int timeout_ms) override;
  Status Publish(uint64_t id, const InputMessage& message, const MessageOutcome& outcome) override;
  Status Poll(std::vector<uint64_t>* confirmed) override;
  Status Commit(const InputMessage& message) override;
  std::optional<int64_t> Lag() override;
  void Close() override;

 private:
  Status PublishOne(const std::string& exchange, const std::string& routing_key,
                    const std::string& body, const std::string& content_type,
                    const std::string& error_header, uint64_t id);
  // Marks every publication up to `sequence` (all of them to it when `multiple`) confirmed.
  void Confirm(uint64_t sequence, bool multiple);

  const IngestOptions options_;
  amqp_connection_state_t consumer_ = nullptr;
  amqp_connection_state_t publisher_ = nullptr;
  uint64_t next_sequence_ = 1;                   // the publisher's confirm sequence
  std::map<uint64_t, uint64_t> sequence_to_id_;  // unconfirmed publications
  std::map<uint64_t, size_t> unconfirmed_;       // message id -> publications unconfirmed
  std::vector<uint64_t> confirmed_;
  size_t in_flight_ = 0;  // delivered and not yet acknowledged
};

}  // namespace verdict::ingest
