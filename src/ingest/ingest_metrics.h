// IngestMetrics: one stream's series, labelled stream="kafka:topic" or "amqp:queue"
// (docs/streams.md). The pointers belong to the MetricsRegistry, which outlives the stream;
// the counters and gauges are atomic, so any thread may update them.
#pragma once

#include <string>

#include "common/metrics.h"

namespace verdict::ingest {

struct IngestMetrics {
  IngestMetrics(MetricsRegistry& registry, const std::string& stream);

  Counter* received;          // input messages read
  Counter* decided;           // messages whose decisions were all published and committed
  Counter* dead_lettered;     // messages sent to the dead letter (committed)
  Counter* decisions;         // decisions published
  Counter* not_republished;   // outputs of a message read again that the broker already had
  Counter* backpressure;      // admissions the engine refused (the stream waited)
  Counter* retries;           // messages re-submitted after a transient engine failure
  Counter* transport_errors;  // broker errors (reconnects, failed deliveries)
  Gauge* in_flight;           // messages read and not yet committed
  Gauge* lag;                 // messages in the input not yet committed (Kafka: per high watermark)
};

}  // namespace verdict::ingest
