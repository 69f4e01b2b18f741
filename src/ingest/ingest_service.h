// IngestService: every [[ingest]] stream of the configuration, each consumed by its own
// StreamRunner (docs/streams.md). Started by `verdict serve` once the engine is up and stopped
// before the engine: the engine must outlive it. Start and Stop from one thread.
#pragma once

#include <memory>
#include <vector>

#include "common/metrics.h"
#include "engine/engine.h"
#include "ingest/ingest_options.h"
#include "ingest/stream_runner.h"

namespace verdict::ingest {

class IngestService {
 public:
  // Starts one consumer per stream; a broker that cannot be reached yet is retried in the
  // background, so this fails only for a stream that cannot be made at all.
  // `data_dir`: where a stream keeps its own state (AMQP: the record of published_log.h).
  static Result<std::unique_ptr<IngestService>> Start(const std::vector<IngestOptions>& streams,
                                                      Engine& engine, MetricsRegistry& metrics,
                                                      const std::string& data_dir);
  ~IngestService();
  // Stops every consumer (each finishes what it has in flight, bounded). Idempotent.
  void Stop();

 private:
  IngestService() = default;
  std::vector<std::unique_ptr<StreamRunner>> runners_;
};

}  // namespace verdict::ingest
