// WebhookSender: sends one signed POST to an endpoint and reports the HTTP status (or that no
// answer came in time). HttpWebhookSender is the real one, over cluster::HttpClient: plain
// http, one kept-alive connection, a deadline on every call. Tests substitute their own.
// Not thread-safe: each endpoint's worker owns its sender.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace verdict::webhooks {

class WebhookSender {
 public:
  virtual ~WebhookSender() = default;
  // The answer's HTTP status; kUnavailable when none came within `timeout`.
  virtual Result<int> Post(const std::vector<std::pair<std::string, std::string>>& headers,
                           std::string_view body, std::chrono::milliseconds timeout) = 0;
};

// A sender for `url` (http://host:port/path, as webhook_config.cc validated it).
Result<std::unique_ptr<WebhookSender>> MakeHttpWebhookSender(std::string_view url,
                                                             std::chrono::milliseconds timeout);

}  // namespace verdict::webhooks
