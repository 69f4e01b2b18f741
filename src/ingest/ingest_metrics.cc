#include "ingest/ingest_metrics.h"

namespace verdict::ingest {

IngestMetrics::IngestMetrics(MetricsRegistry& registry, const std::string& stream) {
  const MetricLabels labels{{"stream", stream}};
  auto with_result = [&](const char* result) {
    MetricLabels l = labels;
    l.emplace_back("result", result);
    return l;
  };
  received = registry.GetCounter("verdict_ingest_messages_received_total",
                                 "Stream messages read from the input", labels);
  decided = registry.GetCounter("verdict_ingest_messages_total",
                                "Stream messages committed, by result", with_result("decided"));
  dead_lettered =
      registry.GetCounter("verdict_ingest_messages_total", "Stream messages committed, by result",
                          with_result("dead_letter"));
  decisions = registry.GetCounter("verdict_ingest_decisions_published_total",
                                  "Decisions published to the output", labels);
  not_republished =
      registry.GetCounter("verdict_ingest_outputs_not_republished_total",
                          "Outputs of a message read again that the broker already had", labels);
  backpressure = registry.GetCounter("verdict_ingest_backpressure_waits_total",
                                     "Admissions the engine refused; the stream waited", labels);
  retries = registry.GetCounter("verdict_ingest_retries_total",
                                "Messages decided again after a transient engine failure", labels);
  transport_errors = registry.GetCounter("verdict_ingest_transport_errors_total",
                                         "Broker errors: reconnects and failed deliveries", labels);
  in_flight = registry.GetGauge("verdict_ingest_in_flight_messages",
                                "Stream messages read and not yet committed", labels);
  lag = registry.GetGauge("verdict_ingest_lag_messages",
                          "Input messages not yet committed (consumer lag)", labels);
}

}  // namespace verdict::ingest
