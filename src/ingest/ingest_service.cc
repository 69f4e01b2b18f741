#include "ingest/ingest_service.h"

#include <spdlog/spdlog.h>

#include <cctype>

#include "ingest/amqp_transport.h"
#include "ingest/kafka_transport.h"

namespace verdict::ingest {

Result<std::unique_ptr<IngestService>> IngestService::Start(
    const std::vector<IngestOptions>& streams, Engine& engine, MetricsRegistry& metrics,
    const std::string& data_dir) {
  std::unique_ptr<IngestService> service(new IngestService());
  for (const IngestOptions& stream : streams) {
    std::unique_ptr<StreamTransport> transport;
    if (stream.kind == StreamKind::kKafka) {
      transport = std::make_unique<KafkaTransport>(stream);
    } else {
      std::string file = stream.Name();
      for (char& c : file) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
      }
      transport =
          std::make_unique<AmqpTransport>(stream, data_dir + "/ingest/" + file + ".published");
    }
    service->runners_.push_back(
        std::make_unique<StreamRunner>(engine, stream, std::move(transport), metrics));
    spdlog::info(
        "ingest {}: tenant {}, {} class, decisions to {}", stream.Name(), stream.tenant,
        PriorityName(stream.priority),
        stream.kind == StreamKind::kKafka ? stream.decisions_topic : stream.decisions_exchange);
  }
  for (auto& runner : service->runners_) runner->Start();
  return service;
}

IngestService::~IngestService() { Stop(); }

void IngestService::Stop() {
  for (auto& runner : runners_) runner->Stop();
  runners_.clear();
}

}  // namespace verdict::ingest
