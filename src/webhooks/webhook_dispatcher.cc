#include "webhooks/webhook_dispatcher.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "webhooks/https_webhook_sender.h"

namespace verdict::webhooks {

Result<std::unique_ptr<WebhookDispatcher>> WebhookDispatcher::Create(DispatcherOptions options,
                                                                     journal::Journal& journal,
                                                                     const Clock& clock,
                                                                     MetricsRegistry* metrics) {
  std::unique_ptr<WebhookDispatcher> dispatcher(new WebhookDispatcher());
  if (options.endpoints.empty()) return dispatcher;
  if (journal.integrity().state == journal::IntegrityState::kDamaged) {
    spdlog::error("webhooks: the journal is damaged: no webhook is delivered");
    return dispatcher;
  }
  for (size_t i = 0; i < options.endpoints.size(); ++i) {
    EndpointOptions& endpoint = options.endpoints[i];
    const std::string where = "webhooks[" + std::to_string(i) + "]";
    Result<std::unique_ptr<WebhookSender>> sender =
        options.make_sender ? options.make_sender(endpoint)
        : endpoint.url.rfind("https://", 0) == 0
            ? MakeHttpsWebhookSender(endpoint.url, endpoint.ca_file)
            : MakeHttpWebhookSender(endpoint.url, std::chrono::milliseconds(endpoint.timeout_ms));
    if (!sender.ok()) {
      const std::string field =
          sender.status().field().empty() ? where : where + "." + sender.status().field();
      return Status(sender.status().code(), where + ": " + sender.status().message(), field);
    }
    Result<std::unique_ptr<EndpointWorker>> worker = EndpointWorker::Start(
        std::move(endpoint), journal, std::move(sender).value(), clock, metrics, options.tuning);
    if (!worker.ok()) {
      return Status(worker.status().code(), where + ": " + worker.status().message(), where);
    }
    dispatcher->workers_.push_back(std::move(worker).value());
  }
  return dispatcher;
}

WebhookDispatcher::~WebhookDispatcher() {
  // Stopped together rather than one after the other: each may be waiting out an attempt.
  std::vector<std::thread> stoppers;
  for (std::unique_ptr<EndpointWorker>& worker : workers_) {
    stoppers.emplace_back([w = std::move(worker)]() mutable { w.reset(); });
  }
  for (std::thread& t : stoppers) t.join();
}

std::vector<EndpointStatus> WebhookDispatcher::StatusFor(std::string_view tenant) const {
  std::vector<EndpointStatus> out;
  for (const std::unique_ptr<EndpointWorker>& worker : workers_) {
    const std::string& scope = worker->options().tenant;
    if (scope.empty() || scope == tenant) out.push_back(worker->status());
  }
  return out;
}

}  // namespace verdict::webhooks
