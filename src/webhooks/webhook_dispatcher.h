// WebhookDispatcher: the configured webhook endpoints, one EndpointWorker (and thread) each,
// delivering from the decision journal (endpoint_worker.h). Built by the engine stack after the
// engine and destroyed before it. With a journal that failed its integrity checks at open it
// delivers nothing (its records are not to be trusted; docs/webhooks.md). Thread-safe; owns the
// workers; the journal must outlive it.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/result.h"
#include "journal/journal.h"
#include "webhooks/endpoint_worker.h"
#include "webhooks/webhook_options.h"
#include "webhooks/webhook_sender.h"

namespace verdict::webhooks {

using SenderFactory =
    std::function<Result<std::unique_ptr<WebhookSender>>(const EndpointOptions& endpoint)>;

struct DispatcherOptions {
  std::vector<EndpointOptions> endpoints;
  // Null: plain HTTP (MakeHttpWebhookSender). Tests substitute their own.
  SenderFactory make_sender;
  EndpointWorker::Tuning tuning;
};

class WebhookDispatcher {
 public:
  static Result<std::unique_ptr<WebhookDispatcher>> Create(DispatcherOptions options,
                                                           journal::Journal& journal,
                                                           const Clock& clock,
                                                           MetricsRegistry* metrics);
  ~WebhookDispatcher();  // stops every worker
  WebhookDispatcher(const WebhookDispatcher&) = delete;
  WebhookDispatcher& operator=(const WebhookDispatcher&) = delete;

  // The endpoints `tenant` may see: its own and the deployment's (those of every tenant).
  std::vector<EndpointStatus> StatusFor(std::string_view tenant) const;

 private:
  WebhookDispatcher() = default;

  std::vector<std::unique_ptr<EndpointWorker>> workers_;  // set in Create, then read-only
};

}  // namespace verdict::webhooks
