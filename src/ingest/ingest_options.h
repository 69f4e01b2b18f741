// IngestOptions: one [[ingest]] table of verdict.toml, a stream of transactions consumed from
// Kafka or AMQP 0-9-1 (RabbitMQ) and decided like HTTP requests (docs/streams.md). Parsed from
// the same file as EngineOptions, by this component (the engine's parser only accepts the key),
// so that the engine does not depend on the stream clients. Value types; thread-compatible.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "core/transaction.h"

namespace verdict::ingest {

enum class StreamKind { kKafka, kAmqp };

struct IngestOptions {
  StreamKind kind = StreamKind::kKafka;
  // Kafka: bootstrap servers "host:port,..."; AMQP: "amqp://user:password@host:port/vhost".
  std::string brokers;
  std::string url;
  // Where transactions come from: a Kafka topic, or an AMQP queue (declared durable).
  std::string topic;
  std::string queue;
  // Where decisions go, keyed (Kafka message key, AMQP routing key) by transaction id: a Kafka
  // topic, or an AMQP exchange (declared as a durable topic exchange).
  std::string decisions_topic;
  std::string decisions_exchange;
  // Where bad messages go with their error: a Kafka topic, or an AMQP queue (declared durable).
  std::string dead_letter;
  // The tenant the stream's transactions are decided for (its accounts, rate and share, I7).
  std::string tenant = "default";
  // The scheduler class every transaction of the stream is decided in.
  Priority priority = Priority::kStandard;
  // Kafka consumer group whose committed offsets say where to resume.
  std::string group = "verdict";
  // Kafka: how long the group waits for a consumer that stopped answering (an engine killed)
  // before its partitions move to the others, or to the same engine restarted. The broker bounds
  // it (group.min.session.timeout.ms, 6 s by default).
  size_t session_timeout_ms = 10'000;
  // Messages being decided at once (AMQP: the prefetch count); the engine's backpressure
  // slows consumption further when its queues are full. 32: a bulk stream at full speed then
  // left realtime HTTP within its deadline, where 256 did not (docs/PERFORMANCE.md, Streams).
  size_t max_in_flight = 32;

  // The stream's input, for logs and the metrics' `stream` label: "kafka:topic" or "amqp:queue".
  std::string Name() const;
};

// Reads every [[ingest]] table of a verdict.toml text (none: an empty list). Unknown keys, a
// missing required key and bad values are errors naming the key ("ingest[1].topic").
Result<std::vector<IngestOptions>> ParseIngestOptions(std::string_view toml_text,
                                                      std::string_view source);
// Reads the file at `path` ("" : no file, no streams).
Result<std::vector<IngestOptions>> LoadIngestOptions(const std::string& path);

}  // namespace verdict::ingest
