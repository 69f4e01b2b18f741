// AmqpTransport: a StreamTransport over AMQP 0-9-1 (RabbitMQ) with rabbitmq-c. Two connections:
// one consumes the input queue with manual acknowledgements (basic.qos prefetch = twice
// max_in_flight), the other publishes in confirm mode, decisions to the decisions exchange
// (routing key: the transaction id) and bad messages to the dead-letter queue, all persistent.
// A message is acknowledged only after the broker has confirmed what was published for it and
// that is recorded durably (published_log.h); acknowledgements go in batches (`multiple`, up to
// the oldest message not yet done). A connection lost before the acknowledgement has the broker
// deliver the message again, and its outputs in the record are not published a second time.
// Each decision carries `message_id` = its transaction id, for the receiver's deduplication. The
// input and dead-letter queues are declared durable and the exchange as a durable topic exchange.
// rabbitmq-c connections are not thread-safe: used from one thread (StreamRunner's).
#pragma once

#include <amqp.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ingest/ingest_options.h"
#include "ingest/published_log.h"
#include "ingest/stream_transport.h"

namespace verdict::ingest {

class AmqpTransport : public StreamTransport {
 public:
  // `record_path`: the file of published_log.h for this stream.
  AmqpTransport(const IngestOptions& options, std::string record_path);
  ~AmqpTransport() override;
  AmqpTransport(const AmqpTransport&) = delete;
  AmqpTransport& operator=(const AmqpTransport&) = delete;

  Status Connect() override;
  Result<std::optional<InputMessage>> Next(int timeout_ms) override;
  Status Publish(uint64_t id, const InputMessage& message, const MessageOutcome& outcome) override;
  Status Poll(std::vector<uint64_t>* confirmed) override;
  Status Commit(const InputMessage& message) override;
  std::optional<int64_t> Lag() override;
  uint64_t OutputsNotRepublished() const override { return not_republished_; }
  void Close() override;

 private:
  Status PublishOne(const std::string& exchange, const std::string& routing_key,
                    const std::string& body, const std::string& content_type,
                    const std::string& message_id, const std::string& error_header, uint64_t id);
  // Marks every publication up to `sequence` (all of them to it when `multiple`) confirmed.
  void Confirm(uint64_t sequence, bool multiple);
  // Acknowledges every delivery up to the oldest not yet done, in one basic.ack.
  Status AckDone();

  const IngestOptions options_;
  amqp_connection_state_t consumer_ = nullptr;
  amqp_connection_state_t publisher_ = nullptr;
  uint64_t next_sequence_ = 1;                   // the publisher's confirm sequence
  std::map<uint64_t, uint64_t> sequence_to_id_;  // unconfirmed publications
  std::map<uint64_t, size_t> unconfirmed_;       // message id -> publications unconfirmed
  std::vector<uint64_t> confirmed_;
  const std::string record_path_;
  std::unique_ptr<PublishedLog> record_;
  std::map<uint64_t, std::vector<uint64_t>> keys_;  // message id -> its outputs' record keys
  std::set<uint64_t> undone_tags_;                  // delivered, not yet done
  uint64_t last_tag_ = 0;                           // the last delivered
  uint64_t acked_tag_ = 0;                          // acknowledged up to
  uint64_t not_republished_ = 0;
  // When the oldest confirmed message not yet recorded was confirmed; default: none waits.
  std::chrono::steady_clock::time_point unrecorded_since_;
};

}  // namespace verdict::ingest
